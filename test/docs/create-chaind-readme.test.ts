// The scaffolded project's README: a command typed in a shell (outside npm scripts) runs on the machine's own `node`,
// which may be older than 24 and then stops at the first .ts file (ERR_UNKNOWN_FILE_EXTENSION). The project's pinned
// Node 24 is node_modules/.bin/node, so the README's shell commands call it by that path.
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { test } from "node:test";

test("the scaffolded README runs the chain's binary on the project's Node 24, not the machine's node", async () => {
  const readme = await readFile(new URL("../../packages/create-chaind/template/README.md", import.meta.url), "utf8");
  const blocks = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]);
  const bare = blocks.flatMap((block) => block.split("\n")).filter((line) => /^node \S+\.ts\b/.test(line));
  assert.deepEqual(bare, []);
});
