// Every command of the tree can print its help: a default value that JSON cannot show (a bigint)
// once made `--help` crash, so the whole tree is walked.
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import type { Command } from "commander";
import { defaultHome, homePaths, loadGenesis } from "../config/index.ts";
import { defineChain, STANDARD_CHAIN, useChain } from "../runtime/index.ts";
import { rootCommand } from "./root.ts";

function* walk(command: Command, path: string[] = []): Generator<[string, Command]> {
  yield [path.join(" ") || "chaind", command];
  for (const sub of command.commands) yield* walk(sub, [...path, sub.name()]);
}

test("every chaind command prints its help", async () => {
  const sink = { write: () => true };
  let count = 0;
  for (const [name, command] of walk(await rootCommand({ stdout: sink, stderr: sink }))) {
    assert.doesNotThrow(() => command.helpInformation(), name);
    count++;
  }
  assert.ok(count > 60, `only ${count} commands found`);
});

test("every subcommand's help lists the global flags, as upstream's does", async () => {
  const sink = { write: () => true };
  for (const [name, command] of walk(await rootCommand({ stdout: sink, stderr: sink }))) {
    if (name === "chaind") continue;
    const help = command.helpInformation();
    assert.match(help, /Global Options:[\s\S]*--home <dir>[\s\S]*-o, --output <format>/, name);
  }
});

test("no help lists a flag twice (a subcommand tree declaring its own --home or -o hides the copy)", async () => {
  const sink = { write: () => true };
  for (const [name, command] of walk(await rootCommand({ stdout: sink, stderr: sink }))) {
    const flags = command.helpInformation().match(/^ {2}(?:-\w, )?--[\w.-]+/gm) ?? [];
    const seen = new Set<string>();
    for (const flag of flags.map((f) => f.trim())) {
      assert.ok(!seen.has(flag), `${name} --help lists ${flag} twice`);
      seen.add(flag);
    }
  }
});

test("tx commands offer the Cosmos SDK v0.50 flags", async () => {
  const sink = { write: () => true };
  let checked = 0;
  for (const [name, command] of walk(await rootCommand({ stdout: sink, stderr: sink }))) {
    if (!/^tx (bank send|gov vote|staking delegate|upgrade software-upgrade|sign|broadcast)$/.test(name)) continue;
    checked++;
    const help = command.helpInformation();
    for (const flag of ["--offline", "--sign-mode", "--fee-payer", "--fee-granter", "--dry-run", "--keyring-dir"]) {
      assert.ok(help.includes(flag), `${name} lacks ${flag}`);
    }
  }
  assert.equal(checked, 6);
});

test("the help names the chain's own binary, not chaind", async (t) => {
  useChain(defineChain({ name: "mychaind", releases: [{ name: "v1", version: "1.0.0" }] }));
  t.after(() => useChain(STANDARD_CHAIN));
  const sink = { write: () => true };
  const root = await rootCommand({ stdout: sink, stderr: sink });
  assert.match(root.helpInformation(), /^Usage: mychaind \[options\] \[command\]/);
  const start = root.commands.find((command) => command.name() === "start");
  assert.match(start?.helpInformation() ?? "", /^Usage: mychaind start \[options\]/);
});

test("a chain with its own name has its own default home and says its name in hints", async (t) => {
  useChain(defineChain({ name: "mychaind", releases: [{ name: "v1", version: "1.0.0" }] }));
  t.after(() => useChain(STANDARD_CHAIN));
  assert.equal(defaultHome(), join(homedir(), ".mychaind"));
  const sink = { write: () => true };
  const root = await rootCommand({ stdout: sink, stderr: sink });
  assert.equal(root.opts().home, join(homedir(), ".mychaind"));
  const empty = await mkdtemp(join(tmpdir(), "root-test-"));
  t.after(() => rm(empty, { recursive: true, force: true }));
  await assert.rejects(loadGenesis(homePaths(empty).genesis), /run "mychaind init" to create it/);
  useChain(STANDARD_CHAIN);
  assert.equal(defaultHome(), join(homedir(), ".chaind"));
});

test("no help of a chain with its own name calls its binary chaind", async (t) => {
  const identity = { devChainId: "my-dev" }; // the default dev chain id is "chaind-dev"
  useChain(defineChain({ name: "mychaind", releases: [{ name: "v1", version: "1.0.0" }], identity }));
  t.after(() => useChain(STANDARD_CHAIN));
  const sink = { write: () => true };
  const offenders: string[] = [];
  for (const [name, command] of walk(await rootCommand({ stdout: sink, stderr: sink }))) {
    const line = command
      .helpInformation()
      .split("\n")
      .find((text) => /\bchaind\b/.test(text));
    if (line !== undefined) offenders.push(`${name}: ${line.trim()}`);
  }
  assert.deepEqual(offenders, []);
});
