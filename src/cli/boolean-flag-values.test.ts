// Boolean flags with a spelled value (`--yes=true`), as upstream's CLI accepts them: unit cases on a small tree, and
// end to end through `runChaind` with `keys add --dry-run=<bool>`, whose effect (a key written or not) is visible.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { Command } from "commander";
import { spellBooleanValues } from "./boolean-flag-values.ts";
import { runChaind } from "./main.ts";

function tree(): Command {
  const root = new Command("chaind").option("--home <dir>").option("-o, --output <format>");
  const tx = root.command("tx");
  tx.command("send").option("-y, --yes").option("--note <text>").option("--no-validate");
  root.command("other").option("--yes <answer>");
  return root;
}

describe("spellBooleanValues", () => {
  it("turns true into the bare flag and false into nothing, in every spelling cobra takes", () => {
    const rewrite = (...rest: string[]) => spellBooleanValues(tree(), ["tx", "send", ...rest]);
    assert.deepEqual(rewrite("--yes=true"), ["tx", "send", "--yes"]);
    assert.deepEqual(rewrite("--yes=T", "--no-validate=1"), ["tx", "send", "--yes", "--no-validate"]);
    assert.deepEqual(rewrite("--yes=false", "--no-validate=F"), ["tx", "send"]);
  });

  it("leaves valued flags, their values, positional arguments and everything after -- alone", () => {
    assert.deepEqual(spellBooleanValues(tree(), ["--home", "tx", "tx", "send", "--note", "--yes=true"]), [
      "--home",
      "tx",
      "tx",
      "send",
      "--note",
      "--yes=true",
    ]);
    assert.deepEqual(spellBooleanValues(tree(), ["tx", "send", "--", "--yes=true"]), [
      "tx",
      "send",
      "--",
      "--yes=true",
    ]);
    assert.deepEqual(spellBooleanValues(tree(), ["other", "--yes=true"]), ["other", "--yes=true"], "valued there");
    assert.deepEqual(spellBooleanValues(tree(), ["tx", "send", "--unknown=true"]), ["tx", "send", "--unknown=true"]);
  });

  it("refuses a value that is not a boolean, naming the flag", () => {
    assert.throws(() => spellBooleanValues(tree(), ["tx", "send", "--yes=maybe"]), /invalid value "maybe" for --yes/);
  });
});

describe("chaind with a boolean flag's value spelled out", () => {
  async function keysAdd(home: string, flag: string) {
    let stdout = "";
    let stderr = "";
    const io = { stdout: { write: (t: string) => (stdout += t) }, stderr: { write: (t: string) => (stderr += t) } };
    const code = await runChaind(
      ["keys", "add", "k", "--keyring-backend", "test", "--home", home, flag, "-o", "json"],
      io as never,
    );
    return { code, stdout, stderr };
  }

  it("keys add --dry-run=true writes nothing, --dry-run=false writes the key, --dry-run=maybe is one line", async (t) => {
    const home = await mkdtemp(join(tmpdir(), "boolean-flag-values-"));
    t.after(() => rm(home, { recursive: true, force: true }));
    const keyring = join(home, "keyring-test");

    const dry = await keysAdd(home, "--dry-run=true");
    assert.equal(dry.code, 0, dry.stderr);
    assert.equal(existsSync(keyring), false, "a dry run stores no key");

    const bad = await keysAdd(home, "--dry-run=maybe");
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /^Error: invalid value "maybe" for --dry-run: expected true or false/);
    assert.equal(bad.stderr.trimEnd().split("\n").length, 1);

    const real = await keysAdd(home, "--dry-run=false");
    assert.equal(real.code, 0, real.stderr);
    assert.equal(existsSync(keyring), true, "the key is stored");
  });
});
