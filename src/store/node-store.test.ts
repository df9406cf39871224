// The node cache and the nodes a new version replaces (NodeLoader.take): a stage copies each node on its writes' paths
// and never visits the original again, so those originals are not kept in the cache's loaded generations.
import assert from "node:assert/strict";
import { test } from "node:test";
import { b, KEEP_ALL, tempDir } from "../../test/support/store/helpers.ts";
import { type MultiStore, openMultiStore } from "./multistore.ts";
import { verifyStoreProof } from "./proofs.ts";

const KEYS = 2000;

/** How many nodes read from disk the store's node caches hold (test access to private state). */
function loadedNodes(store: MultiStore): number {
  const caches = (store as unknown as { nodes: { nodes: Map<number, { loaded: { size: number } }> } }).nodes.nodes;
  let n = 0;
  for (const cache of caches.values()) n += cache.loaded.size;
  return n;
}

async function rewriteAll(store: MultiStore, tag: string): Promise<void> {
  const branch = store.branch();
  for (let i = 0; i < KEYS; i++) branch.store("bank").set(b(`key-${i}`), b(`${tag}-${i}`));
  await store.stage(branch);
}

test("a stage does not cache the nodes it replaces; reads of the old version load them again", async () => {
  const dir = await tempDir();
  const options = { path: dir.path, storeNames: ["bank"], pruning: KEEP_ALL, nodeCacheSize: 10 * KEYS };
  let store = await openMultiStore(options);
  try {
    await rewriteAll(store, "a");
    await store.commit();
    await store.close();
    // A fresh process: the tree is on disk only, and every node a rewrite of every key copies is read from its page.
    store = await openMultiStore(options);
    await rewriteAll(store, "b");
    assert.equal(loadedNodes(store), 0, "the replaced nodes were not cached");
    await store.commit();
    await store.idle();
    // The old version's nodes are read from their pages again (and cached: a read keeps them).
    const old = await store.view(1n);
    const proof = await store.prove("bank", b("key-7"), 1n);
    assert.ok(verifyStoreProof(proof, old.appHash as Uint8Array));
    assert.ok(loadedNodes(store) > 0, "a proof's reads of the old version are cached");
    const now = await store.prove("bank", b("key-7"), 2n);
    assert.ok(verifyStoreProof(now, store.lastCommit().appHash));
  } finally {
    await store.close();
    await dir.remove();
  }
});
