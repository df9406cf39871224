// Every path-valued flag and argument of chaind refuses an empty string with one line and runs nothing (issue 39,
// N15: `replay --from ''` replayed the default home). The cases are read from the command tree itself, so a new
// path flag is covered; a flag that looks like a path but is not marked as one (its placeholder) fails the last test.
import assert from "node:assert/strict";
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import type { Argument, Command, Option } from "commander";
import { runChaind as runChaindProcess } from "../../test/support/node/chaind.ts";
import { DIRECTORY_PLACEHOLDERS, notADirectoryMessage } from "./directory-paths.ts";
import { emptyPathMessage, optionPlaceholder, takesPath } from "./empty-paths.ts";
import { runChaind } from "./main.ts";
import { rootCommand } from "./root.ts";

const sink = { write: () => true };

function* walk(command: Command, path: string[] = []): Generator<[string[], Command]> {
  yield [path, command];
  for (const sub of command.commands) yield* walk(sub, [...path, sub.name()]);
}

/** The argv that gives `''` to one path value, with "x" for every other argument the command requires. */
interface PathCase {
  label: string;
  args: string[];
  what: string;
}

function pathCases(root: Command): PathCase[] {
  const cases: PathCase[] = [];
  for (const [path, command] of walk(root)) {
    const args = command.registeredArguments;
    const required = args.filter((a) => a.required).map(() => "x");
    for (const option of command.options) {
      if (!takesPath(option)) continue;
      const flag = option.long as string;
      cases.push({ label: `${[...path, flag].join(" ")} ''`, args: [...path, flag, "", ...required], what: flag });
    }
    args.forEach((argument, i) => {
      if (!takesPath(argument)) return;
      const values = args.slice(0, i + 1).map((_, j) => (j === i ? "" : "x"));
      for (const later of args.slice(i + 1)) if (later.required) values.push("x");
      const what = `<${argument.name()}>`;
      cases.push({ label: `${[...path, what].join(" ")} ''`, args: [...path, ...values], what });
    });
  }
  return cases;
}

/** Runs chaind in this process with its output captured. */
async function runCaptured(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const code = await runChaind(args, {
    stdout: { write: (text) => (out += text) },
    stderr: { write: (text) => (err += text) },
  });
  return { code, out, err };
}

test("every path flag and argument of chaind refuses '' with one line, before the command runs", async () => {
  const cases = pathCases(await rootCommand({ stdout: sink, stderr: sink }));
  const labels = cases.map((c) => c.label);
  // The ones the issue names, and one of each kind, are among them.
  for (const expected of [
    "--home ''",
    "replay --from ''",
    "keys --keyring-dir ''",
    "tx sign --output-document ''",
    "tx sign <file> ''",
    "genesis validate <file> ''",
    "genesis collect-gentxs --gentx-dir ''",
    "snapshots dump --out ''",
    "snapshots load <archive> ''",
    "keys import <keyfile> ''",
    "tx gov submit-proposal <proposal-json> ''",
    "tx staking create-validator <validator-json> ''",
  ]) {
    assert.ok(labels.includes(expected), `${expected} is among the cases: ${labels.join(", ")}`);
  }
  const user = await mkdtemp(join(tmpdir(), "chaind-empty-paths-"));
  const cwd = process.cwd();
  const home = process.env.HOME;
  // A relative or default path would land in the working directory or $HOME: both are an empty directory here.
  process.env.HOME = user;
  process.chdir(user);
  try {
    for (const { label, args, what } of cases) {
      const { code, out, err } = await runCaptured(args);
      assert.equal(code, 1, `${label}: exit status\n${err}`);
      assert.equal(err, `Error: ${emptyPathMessage(what)}\n`, label);
      assert.equal(out, "", label);
    }
    assert.deepEqual(await readdir(user), [], "nothing was written");
  } finally {
    process.chdir(cwd);
    process.env.HOME = home;
    await rm(user, { recursive: true, force: true });
  }
});

test("replay --from '' and --home '' as real processes: one line, nothing done to the default home", async () => {
  const user = await mkdtemp(join(tmpdir(), "chaind-empty-paths-"));
  try {
    for (const args of [
      ["replay", "--from", "", "--home", join(user, "new-home")],
      ["init", "node0", "--home", ""],
      ["--home=", "genesis", "validate"],
      ["status", "--home", ""],
    ]) {
      const result = await runChaindProcess(args, { userHome: user });
      const flag = args.includes("--from") ? "--from" : "--home";
      assert.notEqual(result.code, 0, `chaind ${args.join(" ")}\n${result.stderr}`);
      assert.equal(result.stderr, `Error: ${emptyPathMessage(flag)}\n`, `chaind ${args.join(" ")}`);
    }
    assert.deepEqual(await readdir(user), [], "no default home (or anything else) was created");
  } finally {
    await rm(user, { recursive: true, force: true });
  }
});

test("every directory flag refuses a regular file (or a path under one) with one line, before the command runs", async () => {
  const user = await mkdtemp(join(tmpdir(), "chaind-directory-paths-"));
  const file = join(user, "a-file");
  await writeFile(file, "not a directory\n");
  const cases: { label: string; args: string[]; flag: string; value: string }[] = [];
  for (const [path, command] of walk(await rootCommand({ stdout: sink, stderr: sink }))) {
    const required = command.registeredArguments.filter((a) => a.required).map(() => "x");
    for (const option of command.options) {
      const placeholder = optionPlaceholder(option);
      if (placeholder === undefined || !DIRECTORY_PLACEHOLDERS.has(placeholder)) continue;
      const flag = option.long as string;
      for (const value of [file, join(file, "sub")]) {
        cases.push({ label: [...path, flag, value].join(" "), args: [...path, flag, value, ...required], flag, value });
      }
    }
  }
  const labels = cases.map((c) => c.label.replace(user, "U"));
  for (const expected of ["--home U/a-file", "keys --keyring-dir U/a-file/sub", "replay --from U/a-file"]) {
    assert.ok(labels.includes(expected), `${expected} is among the cases: ${labels.join(", ")}`);
  }
  const cwd = process.cwd();
  const home = process.env.HOME;
  process.env.HOME = user;
  process.chdir(user);
  try {
    for (const { label, args, flag, value } of cases) {
      const { code, out, err } = await runCaptured(args);
      assert.equal(code, 1, `${label}: exit status\n${err}`);
      assert.equal(err, `Error: ${notADirectoryMessage(flag, value)}\n`, label);
      assert.equal(out, "", label);
    }
    assert.deepEqual(await readdir(user), ["a-file"], "nothing was written");
    // Subcommands read --home as a global flag: a real process gives the same line (keys, init and a query
    // printed a raw ENOTDIR or called it an unreadable upgrade-info.json).
    for (const args of [
      ["keys", "list"],
      ["init", "m"],
      ["query", "bank", "params", "--node", "tcp://127.0.0.1:1"],
    ]) {
      const result = await runChaindProcess([...args, "--home", file], { userHome: user });
      assert.notEqual(result.code, 0, `chaind ${args.join(" ")}`);
      assert.equal(result.stderr, `Error: ${notADirectoryMessage("--home", file)}\n`, `chaind ${args.join(" ")}`);
    }
  } finally {
    process.chdir(cwd);
    process.env.HOME = home;
    await rm(user, { recursive: true, force: true });
  }
});

test("every flag or argument that reads like a path is marked as one by its placeholder", async () => {
  const looksLikePath = /\b(file|directory|dir|path|home)\b/i;
  // Value names that are not paths although their description mentions files ("keyring backend: test or file",
  // "--node <url>: default: the --home's config.toml rpc.laddr").
  const notPaths = new Set(["backend", "url"]);
  const unmarked: string[] = [];
  for (const [path, command] of walk(await rootCommand({ stdout: sink, stderr: sink }))) {
    const values: [string, Option | Argument, string | undefined][] = [
      ...command.options.map((o): [string, Option, string | undefined] => [o.flags, o, optionPlaceholder(o)]),
      ...command.registeredArguments.map((a): [string, Argument, string] => [`<${a.name()}>`, a, a.name()]),
    ];
    for (const [label, target, placeholder] of values) {
      if (placeholder === undefined || notPaths.has(placeholder) || takesPath(target)) continue;
      if (looksLikePath.test(target.description)) unmarked.push(`${[...path, label].join(" ")}: ${target.description}`);
    }
  }
  assert.deepEqual(unmarked, [], "use a path placeholder (src/cli/empty-paths.ts PATH_PLACEHOLDERS) for these");
});
