// `chaind replay`'s checks of its two homes, before anything is read or written: a target that is a file and a
// source that is a file or missing are one line each saying what was expected, and nothing is created.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { runChaindInProcess, tempDir } from "../../test/support/node/chaind.ts";

let dir: Awaited<ReturnType<typeof tempDir>>;

before(async () => {
  dir = await tempDir("chaind-replay-inputs-");
});

after(async () => {
  await dir?.remove();
});

test("a file as the target or the source, and a missing source: one line each, nothing created", async () => {
  const file = join(dir.path, "a-file");
  await writeFile(file, "not a home");
  const fresh = join(dir.path, "fresh");
  for (const [args, pattern] of [
    [
      ["--from", dir.path, "--home", file],
      // Every directory flag refuses a file before the command runs (src/cli/directory-paths.ts).
      /^Error: --home .*a-file is not a directory: expected the path of a directory\n$/,
    ],
    [
      ["--from", file, "--home", fresh],
      /^Error: --from .*a-file is not a directory: expected the path of a directory\n$/,
    ],
    [
      ["--from", join(dir.path, "missing"), "--home", fresh],
      /^Error: the source home .*missing does not exist: expected the home of the node whose blocks to replay\n$/,
    ],
  ] as const) {
    const result = await runChaindInProcess(["replay", ...args]);
    assert.equal(result.code, 1, args.join(" "));
    assert.match(result.stderr, pattern, args.join(" "));
  }
  assert.equal(await readFile(file, "utf8"), "not a home");
  assert.equal(existsSync(fresh), false);
});
