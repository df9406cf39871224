// docs/CONTRACT.md §12 "No stack traces for user mistakes", end to end: each mistake below runs `chaind` as a real
// process (through test/support/node/chaind.ts) and must print exactly one `Error: …` line on stderr, no
// stack frame, and exit non-zero. The classification itself (src/cli/report-error.ts) is also tested
// directly, including that a bug still prints its stack.
import assert from "node:assert/strict";
import { cp, mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { CommanderError } from "commander";
import {
  bannerEndpoints,
  type ChaindResult,
  killAllChaind,
  LOOPBACK_PORT_FLAGS,
  runChaind,
  spawnChaind,
  tempDir,
  waitForHeight,
} from "../../test/support/node/chaind.ts";
import { CliError } from "../client/cli/errors.ts";
import { StoreUpgradeError } from "../store/errors.ts";
import { reportError } from "./report-error.ts";

const STACK_FRAME = /^\s+at /m;

/** The run failed with one `Error:` line on stderr and no stack frame. */
function assertOneLine(result: ChaindResult, pattern: RegExp): void {
  const lines = result.stderr.split("\n").filter((line) => line.startsWith("Error"));
  assert.notEqual(result.code, 0, `expected a non-zero exit\n${result.stderr}`);
  assert.equal(lines.length, 1, `expected one Error line\n${result.stderr}`);
  assert.match(lines[0] as string, pattern);
  assert.doesNotMatch(result.stderr, STACK_FRAME, `a stack trace was printed\n${result.stderr}`);
  assert.doesNotMatch(result.stderr, /Error: \w*Error:/, `the class name leaked into the message\n${result.stderr}`);
}

describe("chaind prints one line for a user mistake", { timeout: 600_000 }, () => {
  const dirs: { remove(): Promise<void> }[] = [];
  after(async () => {
    await killAllChaind();
    for (const dir of dirs) await dir.remove();
  });

  // One initialised home without validators: `init` only, no gentx. Each case copies it.
  let initialised: string | undefined;
  async function home(name: string): Promise<string> {
    const dir = await tempDir("chaind-user-errors-");
    dirs.push(dir);
    if (initialised === undefined) {
      initialised = join(dir.path, "initialised");
      const init = await runChaind(["init", "m", "--chain-id", "errors-1", "--home", initialised]);
      assert.equal(init.code, 0, init.stderr);
    }
    const copy = join(dir.path, name);
    await cp(initialised, copy, { recursive: true });
    return copy;
  }

  it("start with a home that does not exist", async () => {
    const dir = await tempDir("chaind-user-errors-");
    dirs.push(dir);
    const result = await runChaind(["start", "--home", join(dir.path, "missing"), ...LOOPBACK_PORT_FLAGS]);
    assertOneLine(result, /app\.toml: file not found; run "chaind init/);
  });

  it("start with a genesis that has no validators", async () => {
    const result = await runChaind(["start", "--home", await home("no-validators"), ...LOOPBACK_PORT_FLAGS]);
    assertOneLine(result, /validator set is nil in genesis .*chaind genesis gentx/);
  });

  it("start with a data directory that is a file", async () => {
    const dir = await home("data-file");
    await rm(join(dir, "data"), { recursive: true, force: true });
    await writeFile(join(dir, "data"), "not a directory\n");
    const result = await runChaind(["start", "--home", dir, ...LOOPBACK_PORT_FLAGS]);
    // Whichever reader of data/ comes first (a scan, upgrade-info.json, the state store) names the path and why.
    assertOneLine(result, /\/data\b.*ENOTDIR|ENOTDIR: not a directory.*\/data\b/);
  });

  it("start with a malformed app.toml", async () => {
    const dir = await home("bad-toml");
    const file = join(dir, "config", "app.toml");
    await writeFile(file, `${await readFile(file, "utf8")}\n[[[ not toml\n`);
    const result = await runChaind(["start", "--home", dir, ...LOOPBACK_PORT_FLAGS]);
    assertOneLine(result, /app\.toml: line \d+, column \d+: invalid TOML syntax/);
  });

  it("start with a config.toml that cannot be read", async () => {
    const dir = await home("unreadable-config");
    const file = join(dir, "config", "config.toml");
    await rm(file);
    await mkdir(file);
    const result = await runChaind(["start", "--home", dir, ...LOOPBACK_PORT_FLAGS]);
    assertOneLine(result, /config\.toml: cannot read the file \(EISDIR\)/);
  });

  it("start with a malformed --unsafe-skip-upgrades value, refused before anything starts", async () => {
    const dir = await home("bad-skip-heights");
    const before = (await readdir(join(dir, "data"))).sort();
    const results = await Promise.all(
      ["", "5,", "5,,6", "99999999999999999999"].map((value) =>
        runChaind([
          "start",
          "--home",
          dir,
          ...LOOPBACK_PORT_FLAGS,
          "--unsafe-skip-upgrades",
          "7",
          "--unsafe-skip-upgrades",
          value,
        ]),
      ),
    );
    assertOneLine(
      results[0] as ChaindResult,
      /^Error: invalid --unsafe-skip-upgrades "": the value is empty; expected positive integers up to 9223372036854775807, comma-separated/,
    );
    assertOneLine(results[1] as ChaindResult, /^Error: invalid --unsafe-skip-upgrades "5,": item 2 is empty; expected/);
    assertOneLine(
      results[2] as ChaindResult,
      /^Error: invalid --unsafe-skip-upgrades "5,,6": item 2 is empty; expected/,
    );
    assertOneLine(
      results[3] as ChaindResult,
      /^Error: invalid --unsafe-skip-upgrades "99999999999999999999": "99999999999999999999" is out of range; expected/,
    );
    // Refused before the genesis is read (this home has no validators) and before any store is opened.
    for (const result of results) assert.doesNotMatch(result.stderr, /validator set is nil/);
    assert.deepEqual((await readdir(join(dir, "data"))).sort(), before);
  });

  it("dev with a malformed node flag: refused before the home is created", async () => {
    const dir = await tempDir("chaind-user-errors-");
    dirs.push(dir);
    const missing = join(dir.path, "new-home");
    for (const [flag, value] of [
      ["--halt-height", "@@"],
      ["--rpc.laddr", ""],
      ["--minimum-gas-prices", "@@"],
      ["--halt-time", "18446744073709551616"],
    ] as const) {
      const result = await runChaind(["dev", "--home", missing, ...LOOPBACK_PORT_FLAGS, flag, value]);
      assertOneLine(result, new RegExp(`^Error: invalid ${flag.replace(".", "\\.")} "${value}": expected`));
      await assert.rejects(readdir(missing), { code: "ENOENT" }, `${flag} left ${missing} behind`);
    }
  });

  it("genesis validate of a malformed genesis.json", async () => {
    const dir = await home("bad-genesis");
    await writeFile(join(dir, "config", "genesis.json"), "{ not json");
    const result = await runChaind(["genesis", "validate", "--home", dir]);
    assertOneLine(result, /genesis\.json/);
  });

  it("genesis gentx whose commission rate is above its max rate (upstream runs the message's checks)", async () => {
    const dir = await home("bad-gentx");
    assert.equal((await runChaind(["keys", "add", "val", "--home", dir])).code, 0);
    const account = await runChaind(["genesis", "add-genesis-account", "val", "1000000000stake", "--home", dir]);
    assert.equal(account.code, 0, account.stderr);
    const result = await runChaind([
      ...["genesis", "gentx", "val", "100000000stake", "--chain-id", "errors-1", "--home", dir],
      ...["--commission-rate", "0.5", "--commission-max-rate", "0.2"],
    ]);
    assertOneLine(result, /^Error: invalid validator: commission cannot be more than the max rate/);
    // Nothing was written: no gentx for collect-gentxs to pick up.
    assert.deepEqual(await readdir(join(dir, "config", "gentx")).catch(() => []), []);
    // A directory as --output-document is named as the flag's mistake (the rename's error named a temporary file).
    const toDirectory = await runChaind([
      ...["genesis", "gentx", "val", "100000000stake", "--chain-id", "errors-1", "--home", dir],
      ...["--output-document", dir],
    ]);
    assertOneLine(toDirectory, /^Error: --output-document .* is a directory: expected the path of the gentx file/);
    // An empty --moniker is config.toml's moniker, as upstream (not an empty description the checks refuse).
    const output = join(dir, "gentx.json");
    const made = await runChaind([
      ...["genesis", "gentx", "val", "100000000stake", "--chain-id", "errors-1", "--home", dir],
      ...["--moniker", "", "--output-document", output],
    ]);
    assert.equal(made.code, 0, made.stderr);
    const genTx = JSON.parse(await readFile(output, "utf8"));
    assert.equal(genTx.body.messages[0].description.moniker, "m");
  });

  it("an unknown release in CHAIND_RELEASE", async () => {
    const result = await runChaind(["version"], { env: { CHAIND_RELEASE: "v9" } });
    assertOneLine(result, /unknown release "v9" \(CHAIND_RELEASE\): expected one of v1, v2, v3/);
  });

  it("an older release started on state whose stores it does not declare (StoreUpgradeError)", async () => {
    const dir = await tempDir("chaind-user-errors-");
    dirs.push(dir);
    const chainHome = join(dir.path, "v2-chain");
    // A chain born on release v2 (stores `notes`, no `legacy`): let it commit a block, then stop it.
    const node = spawnChaind(["dev", "--home", chainHome, ...LOOPBACK_PORT_FLAGS], {
      env: { CHAIND_RELEASE: "v2" },
      userHome: dir.path,
    });
    const { rpc } = await bannerEndpoints(node);
    await waitForHeight(rpc, 2n);
    node.signal("SIGTERM");
    assert.equal((await node.exited).code, 0);
    // v1 declares `notes_v1` and `legacy`, which this state never had.
    const result = await runChaind(["start", "--home", chainHome, ...LOOPBACK_PORT_FLAGS], {
      env: { CHAIND_RELEASE: "v1" },
      userHome: dir.path,
    });
    assertOneLine(
      result,
      /the app declares store\(s\) "legacy", "notes_v1" that the state at version \d+ does not have/,
    );
  });
});

describe("reportError", () => {
  function report(err: unknown): { code: number; text: string } {
    let text = "";
    const code = reportError(err, { write: (s: string) => (text += s) });
    return { code, text };
  }

  it("prints a user error as one line with its exit status", () => {
    assert.deepEqual(report(new CliError("no upgrade scheduled")), { code: 1, text: "Error: no upgrade scheduled\n" });
    assert.deepEqual(report(new CliError("halted", { exitCode: 21 })), { code: 21, text: "Error: halted\n" });
    const store = report(new StoreUpgradeError("stores differ"));
    assert.equal(store.text, "Error: stores differ\n");
  });

  it("reports an orderly stop (status 0, e.g. halt-height reached) without calling it an error", () => {
    assert.deepEqual(report(new CliError("halt per configuration height 80 time 0", { exitCode: 0 })), {
      code: 0,
      text: "halt per configuration height 80 time 0\n",
    });
  });

  it("adds a system-error cause the message does not name", () => {
    const cause = Object.assign(new Error("EACCES: permission denied, open '/x'"), { code: "EACCES", syscall: "open" });
    assert.equal(report(new CliError("cannot write /x", { cause })).text, `Error: cannot write /x: ${cause.message}\n`);
    assert.equal(report(new CliError("cannot write /x (EACCES)", { cause })).text, "Error: cannot write /x (EACCES)\n");
    const withPath = Object.assign(new Error("ENOENT: no such file or directory, open '/h/app.toml'"), {
      code: "ENOENT",
      syscall: "open",
      path: "/h/app.toml",
    });
    assert.equal(
      report(new CliError("/h/app.toml: file not found", { cause: withPath })).text,
      "Error: /h/app.toml: file not found\n",
    );
  });

  it("prints a system error (files, network) as one line", () => {
    const err = Object.assign(new Error("ENOTDIR: not a directory, mkdir '/x/y'"), {
      code: "ENOTDIR",
      syscall: "mkdir",
    });
    assert.deepEqual(report(err), { code: 1, text: "Error: ENOTDIR: not a directory, mkdir '/x/y'\n" });
  });

  it("keeps a file that is not JSON on one line: the text V8 quotes has its line breaks escaped", () => {
    for (const text of ["garbage\n", `{\n "x": garbage\n${" ".repeat(40)}\n}\n`]) {
      let parseError = "";
      try {
        JSON.parse(text);
      } catch (err) {
        parseError = (err as Error).message;
      }
      assert.match(parseError, /\n/, "V8 quotes the raw text, line breaks included");
      const { code, text: printed } = report(new CliError(`proposal file is not valid JSON: ${parseError}`));
      assert.equal(code, 1);
      assert.equal(printed.split("\n").length, 2, `one line:\n${printed}`);
      assert.match(
        printed,
        /^Error: proposal file is not valid JSON: Unexpected token 'g', .*\\n.* is not valid JSON\n$/,
      );
    }
  });

  it("prints a bug with its stack", () => {
    const { code, text } = report(new TypeError("cannot read properties of undefined"));
    assert.equal(code, 1);
    assert.match(text, /^Error: TypeError: cannot read properties of undefined\n\s+at /);
  });

  it("prints nothing more for commander's own errors (it already printed them)", () => {
    assert.deepEqual(report(new CommanderError(1, "commander.unknownOption", "error: unknown option")), {
      code: 1,
      text: "",
    });
  });
});
