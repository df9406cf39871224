import assert from "node:assert/strict";
import { mkdir, symlink } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { tempDir } from "../../test/support/node/chaind.ts";
import { liesWithin } from "./path-within.ts";

test("liesWithin follows links and judges paths that do not exist yet by their nearest existing folder", async () => {
  const dir = await tempDir("chaind-path-within-");
  try {
    const store = join(dir.path, "home", "data", "snapshots");
    await mkdir(join(store, "14", "1"), { recursive: true });
    await symlink(join(store, "14", "1"), join(dir.path, "link-into"));
    await symlink(dir.path, join(store, "link-out"));
    assert.equal(await liesWithin(store, store), true);
    assert.equal(await liesWithin(join(store, "14", "1", "0"), store), true);
    assert.equal(await liesWithin(join(store, "new", "deeper", "file"), store), true);
    assert.equal(await liesWithin(join(store, "..chunk"), store), true, "a name starting with two dots is inside");
    assert.equal(await liesWithin(join(dir.path, "link-into", "0"), store), true, "a link into the folder");
    assert.equal(await liesWithin(join(store, "link-out", "x"), store), false, "a link out of the folder");
    assert.equal(await liesWithin(join(dir.path, "home", "data", "x.tar.gz"), store), false);
    assert.equal(await liesWithin(join(dir.path, "home", "data", "snapshots-other"), store), false, "a sibling prefix");
  } finally {
    await dir.remove();
  }
});
