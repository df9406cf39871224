import assert from "node:assert/strict";
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { after, before, describe, it } from "node:test";
import { Command, CommanderError } from "commander";
import { CliError } from "../client/cli/errors.ts";
import { keysCommand } from "./keys-command.ts";

const FAUCET_MNEMONIC =
  "economy stock theory fatal elder harbor betray wasp final emotion task crumble siren bottom lizard educate guess current outdoor pair theory focus wife stone";
const FAUCET_ADDRESS = "chain1pkptre7fdkl6gfrzlesjjvhxhlc3r4gmw5ngm0";
const FAUCET_PUBKEY_JSON =
  '{"@type":"/chain.crypto.secp256k1.PubKey","key":"A08EGB7ro1ORuFhjOnZcSgwYlpe0DSFjVNUIkNNQxwKQ"}';

interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

interface RunOptions {
  stdin?: string;
  env?: Record<string, string>;
  /** Declare --home/-o on the root too, as the real `chaind` root may. */
  rootGlobals?: boolean;
}

// The in-process harness: a root `chaind` command holding `keys`, output captured, commander's exits turned
// into exceptions, and errors handled the way the root CLI is meant to (CliError → message on stderr, exit 1).
async function runKeys(home: string, args: string[], options: RunOptions = {}): Promise<RunResult> {
  let stdout = "";
  let stderr = "";
  const io = {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    stdin: Readable.from(options.stdin === undefined ? [] : [options.stdin]),
    env: options.env ?? {},
  };
  const root = new Command("chaind");
  if (options.rootGlobals) root.option("--home <dir>", "home").option("-o, --output <format>", "output");
  root.addCommand(keysCommand(io));
  const configure = (command: Command): void => {
    command.exitOverride().configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
    });
    for (const sub of command.commands) configure(sub);
  };
  configure(root);
  try {
    await root.parseAsync(["keys", ...args, "--home", home], { from: "user" });
    return { code: 0, stdout, stderr };
  } catch (error) {
    if (error instanceof CliError)
      return { code: error.exitCode, stdout, stderr: `${stderr}Error: ${error.message}\n` };
    if (error instanceof CommanderError) return { code: error.exitCode, stdout, stderr };
    throw error;
  }
}

let base: string;
let counter = 0;
before(async () => {
  base = await mkdtemp(join(tmpdir(), "chaind-keys-cli-"));
});
after(async () => {
  await rm(base, { recursive: true, force: true });
});
const freshHome = () => join(base, `home-${++counter}`);

describe("keys add", () => {
  it("creates a key, prints the record on stdout and the mnemonic once on stderr", async () => {
    const home = freshHome();
    const result = await runKeys(home, ["add", "alice"]);
    assert.equal(result.code, 0, result.stderr);
    assert.match(
      result.stdout,
      /^- address: chain1[a-z0-9]{38}\n {2}name: alice\n {2}pubkey: '\{"@type":"\/chain\.crypto\.secp256k1\.PubKey","key":"[A-Za-z0-9+/]{44}"\}'\n {2}type: local\n$/,
    );
    const mnemonic = result.stderr.trim().split("\n").at(-1) ?? "";
    assert.match(result.stderr, /\*\*Important\*\* write this mnemonic phrase in a safe place/);
    assert.equal(mnemonic.split(" ").length, 24);
    // The printed mnemonic really is the key's.
    const other = freshHome();
    const recovered = await runKeys(other, ["add", "again", "--recover", "-o", "json"], { stdin: `${mnemonic}\n` });
    const address = /address: (\S+)/.exec(result.stdout)?.[1];
    assert.equal(JSON.parse(recovered.stdout).address, address);
  });

  it("prints one JSON line with the mnemonic in json mode, none with --no-backup", async () => {
    const home = freshHome();
    const json = await runKeys(home, ["add", "a", "-o", "json"]);
    const record = JSON.parse(json.stdout);
    assert.deepEqual(Object.keys(record), ["name", "type", "address", "pubkey", "mnemonic"]);
    assert.equal(record.mnemonic.split(" ").length, 24);
    const quiet = await runKeys(home, ["add", "b", "-o", "json", "--no-backup"]);
    assert.equal(JSON.parse(quiet.stdout).mnemonic, undefined);
    const quietText = await runKeys(home, ["add", "c", "--no-backup"]);
    assert.equal(quietText.stderr, "");
  });

  it("recovers from a mnemonic on stdin, on the requested account and index", async () => {
    const home = freshHome();
    const result = await runKeys(home, ["add", "faucet", "--recover"], { stdin: `${FAUCET_MNEMONIC}\n` });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(
      result.stdout,
      `- address: ${FAUCET_ADDRESS}\n  name: faucet\n  pubkey: '${FAUCET_PUBKEY_JSON}'\n  type: local\n`,
    );
    assert.match(result.stderr, /Enter your bip39 mnemonic/);
    assert.doesNotMatch(result.stderr, /economy/);
    const moved = await runKeys(home, ["add", "f2", "--recover", "--account", "1", "--index", "2", "-o", "json"], {
      stdin: FAUCET_MNEMONIC,
    });
    assert.notEqual(JSON.parse(moved.stdout).address, FAUCET_ADDRESS);
  });

  it("--dry-run prints the key it would add and writes nothing, for a new key and a recovered one", async () => {
    const home = freshHome();
    const recovered = await runKeys(home, ["add", "faucet", "--recover", "--dry-run"], { stdin: FAUCET_MNEMONIC });
    assert.equal(recovered.code, 0, recovered.stderr);
    assert.equal(
      recovered.stdout,
      `- address: ${FAUCET_ADDRESS}\n  name: faucet\n  pubkey: '${FAUCET_PUBKEY_JSON}'\n  type: local\n`,
    );
    const created = await runKeys(home, ["add", "new", "--dry-run", "-o", "json", "--keyring-backend", "file"]);
    assert.equal(created.code, 0, created.stderr);
    assert.equal(JSON.parse(created.stdout).mnemonic.split(" ").length, 24);
    assert.deepEqual(await readdir(home).catch(() => []), [], "nothing written in the home");
    // A dry run is not checked against the keyring, as upstream's runs against one in memory.
    await runKeys(home, ["add", "faucet", "--recover"], { stdin: FAUCET_MNEMONIC });
    const again = await runKeys(home, ["add", "faucet", "--recover", "--dry-run"], { stdin: FAUCET_MNEMONIC });
    assert.equal(again.code, 0, again.stderr);
    const listed = await runKeys(home, ["list", "-n"]);
    assert.equal(listed.stdout, "faucet\n");
  });

  it("fails clearly on a bad mnemonic, an existing name, bad numbers and a wrong backend", async () => {
    const home = freshHome();
    const bad = await runKeys(home, ["add", "x", "--recover"], { stdin: "economy stock theory\n" });
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /Error: invalid mnemonic: 3 words, expected 12, 15, 18, 21 or 24/);
    const none = await runKeys(home, ["add", "x", "--recover"]);
    assert.match(none.stderr, /no mnemonic: type it on standard input/);
    await runKeys(home, ["add", "x"]);
    const exists = await runKeys(home, ["add", "x"]);
    assert.equal(exists.code, 1);
    assert.match(exists.stderr, /key "x" already exists in the test keyring/);
    const account = await runKeys(home, ["add", "y", "--account", "1.5"]);
    assert.equal(account.code, 1);
    assert.match(account.stderr, /invalid --account "1\.5": expected an integer from 0 to 2147483647/);
    const backend = await runKeys(home, ["add", "y", "--keyring-backend", "os"]);
    assert.match(backend.stderr, /keyring backend "os" is not supported by chaind: use test or file/);
    const output = await runKeys(home, ["list", "-o", "yaml"]);
    assert.match(output.stderr, /invalid output format "yaml": expected text or json/);
    const missing = await runKeys(home, ["add"]);
    assert.notEqual(missing.code, 0);
    assert.match(missing.stderr, /missing required argument 'name'/);
  });
});

describe("keys list, show, delete", () => {
  it("lists, shows in every form and deletes", async () => {
    const home = freshHome();
    const empty = await runKeys(home, ["list"]);
    assert.equal(empty.stdout, "");
    assert.equal(empty.stderr, "No records were found in keyring\n");
    assert.equal((await runKeys(home, ["list", "-o", "json"])).stdout, "[]\n");

    await runKeys(home, ["add", "zed", "--no-backup"]);
    await runKeys(home, ["add", "faucet", "--recover"], { stdin: FAUCET_MNEMONIC });
    const list = await runKeys(home, ["list", "-o", "json"]);
    assert.deepEqual(
      JSON.parse(list.stdout).map((k: { name: string }) => k.name),
      ["faucet", "zed"],
    );
    assert.equal((await runKeys(home, ["list", "-n"])).stdout, "faucet\nzed\n");

    const show = await runKeys(home, ["show", "faucet"]);
    assert.equal(
      show.stdout,
      `address: ${FAUCET_ADDRESS}\nname: faucet\npubkey: '${FAUCET_PUBKEY_JSON}'\ntype: local\n`,
    );
    assert.equal((await runKeys(home, ["show", "faucet", "-a"])).stdout, `${FAUCET_ADDRESS}\n`);
    assert.equal((await runKeys(home, ["show", FAUCET_ADDRESS, "--address"])).stdout, `${FAUCET_ADDRESS}\n`);
    assert.match((await runKeys(home, ["show", "faucet", "-a", "--bech", "val"])).stdout, /^chainvaloper1\S+\n$/);
    assert.match((await runKeys(home, ["show", "faucet", "-a", "--bech", "cons"])).stdout, /^chainvalcons1\S+\n$/);
    assert.equal((await runKeys(home, ["show", "faucet", "-p"])).stdout, `${FAUCET_PUBKEY_JSON}\n`);
    assert.deepEqual(JSON.parse((await runKeys(home, ["show", "faucet", "-o", "json"])).stdout), {
      name: "faucet",
      type: "local",
      address: FAUCET_ADDRESS,
      pubkey: FAUCET_PUBKEY_JSON,
    });
    const badBech = await runKeys(home, ["show", "faucet", "--bech", "op"]);
    assert.match(badBech.stderr, /invalid --bech "op": expected acc, val or cons/);
    const unknown = await runKeys(home, ["show", "nobody"]);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /Error: key "nobody" not found in the test keyring at /);

    const declined = await runKeys(home, ["delete", "zed"], { stdin: "n\n" });
    assert.equal(declined.code, 0);
    assert.match(declined.stderr, /Key reference will be deleted\. Continue\? \[y\/N\]:[\s\S]*aborted/);
    assert.equal((await runKeys(home, ["list", "-n"])).stdout, "faucet\nzed\n");
    const confirmed = await runKeys(home, ["delete", "zed"], { stdin: "y\n" });
    assert.match(confirmed.stderr, /Key deleted forever \(uh oh!\)/);
    const yes = await runKeys(home, ["delete", FAUCET_ADDRESS, "-y"]);
    assert.equal(yes.code, 0);
    assert.equal((await runKeys(home, ["list", "-o", "json"])).stdout, "[]\n");
    const gone = await runKeys(home, ["delete", "zed", "-y"]);
    assert.match(gone.stderr, /key "zed" not found/);
  });

  it("deletes several keys at once, refuses them all when one is unknown, and fails without an answer", async () => {
    const home = freshHome();
    await runKeys(home, ["add", "one", "--no-backup"]);
    await runKeys(home, ["add", "two", "--no-backup"]);
    await runKeys(home, ["add", "three", "--no-backup"]);

    const typo = await runKeys(home, ["delete", "one", "nobody", "-y"]);
    assert.equal(typo.code, 1);
    assert.match(typo.stderr, /key "nobody" not found/);
    assert.equal((await runKeys(home, ["list", "-n"])).stdout, "one\nthree\ntwo\n");

    // No terminal and nothing on stdin: upstream fails (EOF) rather than reporting success.
    const noAnswer = await runKeys(home, ["delete", "one"], { stdin: "" });
    assert.equal(noAnswer.code, 1);
    assert.match(
      noAnswer.stderr,
      /Error: no answer to the confirmation prompt .*key "one" was not deleted; pass --yes/,
    );
    assert.equal((await runKeys(home, ["list", "-n"])).stdout, "one\nthree\ntwo\n");

    const each = await runKeys(home, ["delete", "one", "two"], { stdin: "y\nn\n" });
    assert.equal(each.code, 0, each.stderr);
    assert.match(each.stderr, /Key deleted forever[\s\S]*aborted: key "two" was not deleted/);
    const both = await runKeys(home, ["delete", "two", "three", "-y", "-f"]);
    assert.equal(both.code, 0, both.stderr);
    assert.equal((await runKeys(home, ["list", "-o", "json"])).stdout, "[]\n");
  });

  it("takes --home and -o from the root when the root declares them", async () => {
    const home = freshHome();
    await runKeys(home, ["add", "faucet", "--recover"], { stdin: FAUCET_MNEMONIC, rootGlobals: true });
    const show = await runKeys(home, ["show", "faucet", "-o", "json"], { rootGlobals: true });
    assert.equal(JSON.parse(show.stdout).address, FAUCET_ADDRESS);
    assert.ok((await readdir(join(home, "keyring-test"))).includes("faucet.info"));
  });
});

describe("keys export and import, file backend", () => {
  it("exports with a passphrase and imports into a file keyring", async () => {
    const home = freshHome();
    await runKeys(home, ["add", "faucet", "--recover"], { stdin: FAUCET_MNEMONIC });
    const exported = await runKeys(home, ["export", "faucet"], { stdin: "export-secret\n" });
    assert.equal(exported.code, 0, exported.stderr);
    assert.match(exported.stderr, /Enter passphrase to encrypt the exported key:/);
    assert.match(exported.stdout, /^-----BEGIN CHAIND PRIVATE KEY-----\n/);
    const keyfile = join(home, "faucet.armor");
    await writeFile(keyfile, exported.stdout);

    const env = { CHAIND_KEYRING_PASSPHRASE: "keyring-secret" };
    const imported = await runKeys(home, ["import", "copy", keyfile, "--keyring-backend", "file"], {
      stdin: "export-secret\n",
      env,
    });
    assert.equal(imported.code, 0, imported.stderr);
    const show = await runKeys(home, ["show", "copy", "-a", "--keyring-backend", "file"]);
    assert.equal(show.stdout, `${FAUCET_ADDRESS}\n`);

    const again = await runKeys(home, ["import", "copy", keyfile, "--keyring-backend", "file"], { env });
    assert.match(again.stderr, /key "copy" already exists in the file keyring .*cannot overwrite/);
    const wrong = await runKeys(home, ["import", "other", keyfile], { stdin: "nope\n" });
    assert.match(wrong.stderr, /wrong passphrase for the exported key/);
    const missing = await runKeys(home, ["import", "other", join(home, "missing.armor")]);
    assert.match(missing.stderr, /cannot read key file ".*missing\.armor": no such file/);
    const directory = await runKeys(home, ["import", "other", home]);
    assert.equal(
      directory.stderr,
      `Error: cannot read key file "${home}": it is a directory; expected the file \`keys export\` wrote\n`,
    );

    // Keyring passphrase first (from stdin here), then the export passphrase.
    const fromFile = await runKeys(home, ["export", "copy", "--keyring-backend", "file"], {
      stdin: "keyring-secret\nsecond-export\n",
    });
    assert.equal(fromFile.code, 0, fromFile.stderr);
    assert.match(fromFile.stderr, /Enter keyring passphrase:\n[\s\S]*encrypt the exported key/);
    const badKeyring = await runKeys(home, ["export", "copy", "--keyring-backend", "file"], {
      env: { CHAIND_KEYRING_PASSPHRASE: "not-it-at-all" },
    });
    assert.match(badKeyring.stderr, /Error: wrong passphrase for the file keyring at /);

    const hex = await runKeys(home, ["export", "faucet", "--unarmored-hex"]);
    assert.match(hex.stderr, /add --unsafe to confirm/);
    const unsafe = await runKeys(home, ["export", "faucet", "--unarmored-hex", "--unsafe"]);
    assert.match(unsafe.stdout, /^[0-9a-f]{64}\n$/);
  });
});

describe("keys --keyring-dir", () => {
  it("keeps the keyring in the given directory instead of --home, as upstream", async () => {
    const home = freshHome();
    const dir = freshHome();
    const added = await runKeys(home, ["add", "kd", "--recover", "--keyring-dir", dir], {
      stdin: `${FAUCET_MNEMONIC}\n`,
    });
    assert.equal(added.code, 0, added.stderr);
    const there = await runKeys(home, ["show", "kd", "-a", "--keyring-dir", dir]);
    assert.equal(there.code, 0, there.stderr);
    const notInHome = await runKeys(home, ["show", "kd", "-a"]);
    assert.notEqual(notInHome.code, 0);
  });
});
