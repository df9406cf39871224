// withLevelView: a reader sees a copy of the store's files, and the store itself is judged before any copy is made,
// so a directory whose CURRENT is lost is reported with its own file count (`chaind status --home` said "holds 3
// files" of a store listing 6, counting the view that leaves LOCK and the info logs out).
import assert from "node:assert/strict";
import { mkdir, readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { tempDir } from "../../test/support/store/helpers.ts";
import { NotALevelStoreError } from "./errors.ts";
import { levelDirectoryState } from "./level-directory.ts";
import { withLevelView } from "./level-view.ts";

const STORE_FILES = ["LOCK", "LOG", "LOG.old", "MANIFEST-000004", "000005.ldb", "000006.log"];

async function storeWithout(dir: string, missing: string): Promise<string> {
  const path = join(dir, "data", "application.db");
  await mkdir(path, { recursive: true });
  for (const name of [...STORE_FILES, "CURRENT"].filter((name) => name !== missing)) {
    await writeFile(join(path, name), name === "CURRENT" ? "MANIFEST-000004\n" : "x");
  }
  return path;
}

test("a store without CURRENT is refused with its own file count, before any view is made", async () => {
  const dir = await tempDir();
  try {
    const path = await storeWithout(dir.path, "CURRENT");
    let reads = 0;
    await assert.rejects(
      withLevelView(path, async (view) => {
        reads++;
        return levelDirectoryState(view);
      }),
      (err: unknown) => {
        assert.ok(err instanceof NotALevelStoreError, String(err));
        assert.equal(err.entries, STORE_FILES.length);
        assert.match(
          err.message,
          new RegExp(`^data/application\\.db holds ${STORE_FILES.length} files but no CURRENT`),
        );
        return true;
      },
    );
    assert.equal(reads, 0, "the reader never ran");
    assert.deepEqual((await readdir(path)).sort(), [...STORE_FILES].sort(), "nothing in the store changed");
  } finally {
    await dir.remove();
  }
});

test("a whole store is read through a view holding its data files, without LOCK or the info logs", async () => {
  const dir = await tempDir();
  try {
    const path = await storeWithout(dir.path, "none");
    const seen = await withLevelView(path, async (view) => (await readdir(view)).sort());
    assert.deepEqual(seen, ["000005.ldb", "000006.log", "CURRENT", "MANIFEST-000004"]);
  } finally {
    await dir.remove();
  }
});
