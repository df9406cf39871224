// VersionView.keyCount: a store's key count at a version read from its tree's root, which must always equal what
// iterating the store at that version finds (the rehearsal and the dry run report it per store).
import assert from "node:assert/strict";
import { test } from "node:test";
import { b, KEEP_ALL, tempDir } from "../../test/support/store/helpers.ts";
import { StoreNotFoundError } from "./errors.ts";
import { openMultiStore } from "./multistore.ts";
import type { CommitMultiStore, VersionView } from "./types.ts";

async function iterated(view: VersionView, name: string): Promise<number> {
  let count = 0;
  for await (const _entry of view.store(name).iterate()) count++;
  return count;
}

async function assertCountsMatch(store: CommitMultiStore, version: bigint): Promise<void> {
  const view = await store.view(version);
  for (const name of view.storeNames()) {
    assert.equal(view.keyCount?.(name), await iterated(view, name), `store ${name} at version ${version}`);
  }
}

test("keyCount equals the iterated count at every version, after writes, overwrites, deletes and a reopen", async () => {
  const dir = await tempDir();
  try {
    const names = ["bank", "empty", "notes"];
    let store = await openMultiStore({ path: dir.path, storeNames: names, pruning: KEEP_ALL });
    // v1: 3,000 keys (a tree deep enough to span many pages); v2: overwrites and deletes; v3: nothing changes.
    const first = store.branch();
    for (let i = 0; i < 3000; i++) first.store("notes").set(b(`note-${i}`), b(`v${i}`));
    first.store("bank").set(b("a"), b("1"));
    await store.stage(first);
    await store.commit();
    const second = store.branch();
    for (let i = 0; i < 3000; i += 3) second.store("notes").delete(b(`note-${i}`));
    for (let i = 1; i < 3000; i += 7) second.store("notes").set(b(`note-${i}`), b("again"));
    second.store("notes").delete(b("never-written"));
    second.store("bank").set(b("b"), b("2"));
    await store.stage(second);
    await store.commit();
    await store.stage(store.branch());
    await store.commit();
    for (const version of [1n, 2n, 3n]) await assertCountsMatch(store, version);
    assert.equal((await store.view(2n)).keyCount?.("notes"), 2143); // 1,000 deleted, 143 of them set again (i ≡ 15 mod 21)
    assert.equal((await store.view(2n)).keyCount?.("empty"), 0);

    // After a reopen the roots are read back from the commit records (stubs, not loaded nodes).
    await store.close();
    store = await openMultiStore({ path: dir.path, storeNames: names, pruning: KEEP_ALL });
    for (const version of [1n, 3n]) await assertCountsMatch(store, version);
    const latest = await store.view();
    assert.throws(() => latest.keyCount?.("missing"), StoreNotFoundError);
    await store.close();
  } finally {
    await dir.remove();
  }
});

test("keyCount follows a renamed store under its new name", async () => {
  const dir = await tempDir();
  try {
    let store = await openMultiStore({ path: dir.path, storeNames: ["old"], pruning: KEEP_ALL });
    const block = store.branch();
    for (let i = 0; i < 50; i++) block.store("old").set(b(`k${i}`), b("v"));
    await store.stage(block);
    await store.commit();
    await store.close();
    store = await openMultiStore({
      path: dir.path,
      storeNames: ["new", "added"],
      pruning: KEEP_ALL,
      upgrades: { added: ["added"], renamed: [{ oldKey: "old", newKey: "new" }], deleted: [] },
    });
    await store.stage(store.branch());
    await store.commit();
    const view = await store.view();
    assert.deepEqual(view.storeNames().sort(), ["added", "new"]);
    assert.equal(view.keyCount?.("new"), 50);
    assert.equal(view.keyCount?.("added"), 0);
    await assertCountsMatch(store, 2n);
    await store.close();
  } finally {
    await dir.remove();
  }
});
