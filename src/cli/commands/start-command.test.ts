// The node flags of `start` and `dev` (src/cli/commands/start-command.ts): `--unsafe-skip-upgrades` may be repeated
// and given lists, and a malformed value is a one-line user error before anything starts. The parser's own cases
// are in src/x/upgrade/keeper.test.ts; the real process in src/cli/user-errors.test.ts.
import assert from "node:assert/strict";
import { test } from "node:test";
import { Command } from "commander";
import { UserError } from "../../errors/user-error.ts";
import { addNodeFlags, type NodeFlags, nodeOptionsOf } from "./start-command.ts";

function flagsOf(args: string[]): NodeFlags {
  const command = addNodeFlags(new Command("start").exitOverride()).action(() => {});
  command.parse(args, { from: "user" });
  return command.opts<NodeFlags>();
}

test("--unsafe-skip-upgrades: repeated flags and lists add up, in order", () => {
  assert.deepEqual(nodeOptionsOf(flagsOf([])).skipUpgradeHeights, []);
  assert.deepEqual(nodeOptionsOf(flagsOf(["--unsafe-skip-upgrades", "120,340"])).skipUpgradeHeights, [120n, 340n]);
  assert.deepEqual(
    nodeOptionsOf(flagsOf(["--unsafe-skip-upgrades", "5", "--unsafe-skip-upgrades=6,7", "--unsafe-skip-upgrades", "8"]))
      .skipUpgradeHeights,
    [5n, 6n, 7n, 8n],
  );
});

test("--unsafe-skip-upgrades: a malformed value in any of the repeated flags is a user error naming it", () => {
  for (const bad of ["", " ", "5,", "5,,6", "99999999999999999999", "abc", "-5", "0", "1.5", "5 6", "0x10", "5,abc"]) {
    assert.throws(
      () => nodeOptionsOf(flagsOf(["--unsafe-skip-upgrades", "7", `--unsafe-skip-upgrades=${bad}`])),
      (err: Error) =>
        err instanceof UserError &&
        err.message.startsWith(`invalid --unsafe-skip-upgrades ${JSON.stringify(bad)}: `) &&
        err.message.endsWith("expected positive integers up to 9223372036854775807, comma-separated, e.g. 120,340"),
      JSON.stringify(bad),
    );
  }
});
