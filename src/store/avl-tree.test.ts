// The one-pass update of existing keys (TreeWriter.updateExisting, then the inserts and deletes one
// by one) must give exactly the tree that one set()/remove() per write in key order gives: same
// root hash (shape, node versions, sizes), same replaced leaves and the same orphaned records, or
// app hashes and pruning would change. Checked on random workloads over a small key space, so
// updates, inserts, deletes, rotations and emptied trees all mix within one version.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { type NodeLoader, persistTree, rootHash, type SortedWrite, TreeWriter } from "./avl-tree.ts";
import { compareBytes, toHex } from "./bytes.ts";
import { EMPTY_HASH } from "./hash.ts";
import type { InnerNode, LeafNode, StubNode, TreeNode } from "./tree-node.ts";

/** A deterministic PRNG (mulberry32), so a failure replays. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Persisted nodes by ref, as the node store would load them. */
class MemoryLoader implements NodeLoader {
  readonly nodes = new Map<number, InnerNode>();
  load(stub: StubNode): InnerNode {
    const node = this.nodes.get(stub.ref);
    if (node === undefined) throw new Error(`no node ${stub.ref}`);
    return node;
  }
}

function randomWrites(next: () => number, keySpace: number, count: number): SortedWrite[] {
  const byKey = new Map<number, SortedWrite>();
  for (let i = 0; i < count; i++) {
    const k = Math.floor(next() * keySpace);
    const key = Uint8Array.of(k >> 8, k & 0xff);
    const value = next() < 0.25 ? null : Uint8Array.of(Math.floor(next() * 256), i & 0xff);
    byKey.set(k, { key, value });
  }
  return [...byKey.values()].sort((a, b) => compareBytes(a.key, b.key));
}

/** One set()/remove() per write in key order: the reference. */
function perKey(writer: TreeWriter, writes: SortedWrite[]): (LeafNode | undefined)[] {
  return writes.map((w) => (w.value === null ? writer.remove(w.key) : writer.set(w.key, w.value).old));
}

/** updateExisting, then the rest one by one (as MultiStore.stageStore does). */
function batched(writer: TreeWriter, writes: SortedWrite[]): (LeafNode | undefined)[] {
  const leaves: (LeafNode | undefined)[] = new Array(writes.length);
  const olds: (LeafNode | undefined)[] = new Array(writes.length);
  for (const i of writer.updateExisting(writes, leaves, olds)) {
    const w = writes[i];
    olds[i] = w.value === null ? writer.remove(w.key) : writer.set(w.key, w.value).old;
  }
  return olds;
}

describe("TreeWriter.updateExisting", () => {
  for (const [seed, keySpace, perVersion] of [
    [1, 40, 12],
    [2, 300, 60],
    [3, 2000, 400],
    [4, 12, 30],
  ] as const) {
    test(`gives the per-key tree, replaced leaves and orphans (seed ${seed}, ${keySpace} keys)`, () => {
      const next = prng(seed);
      const loader = new MemoryLoader();
      let root: TreeNode | undefined;
      for (let version = 1; version <= 60; version++) {
        const writes = randomWrites(next, keySpace, perVersion);
        const a = new TreeWriter(root, version, loader);
        const b = new TreeWriter(root, version, loader);
        const oldsA = perKey(a, writes);
        const oldsB = batched(b, writes);
        assert.equal(
          toHex(rootHash(b.root, EMPTY_HASH)),
          toHex(rootHash(a.root, EMPTY_HASH)),
          `root hash at version ${version}`,
        );
        assert.deepEqual(
          oldsB.map((l) => l?.hash),
          oldsA.map((l) => l?.hash),
          `replaced leaves at version ${version}`,
        );
        assert.deepEqual([...b.orphans].sort(), [...a.orphans].sort(), `orphans at version ${version}`);
        // Continue from the batched tree (the same one), persisted as a commit would.
        const persisted = persistTree(b.root, version);
        for (const node of persisted.nodes) loader.nodes.set(node.ref, node);
        root = persisted.root;
      }
    });
  }
});
