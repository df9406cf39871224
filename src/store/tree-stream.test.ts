// The streamed tree (Step C) against the ordinary way on the same walk: the same numbers, the same pages, byte for byte.
import assert from "node:assert/strict";
import { test } from "node:test";
import { toHex } from "../bytes/hex.ts";
import {
  hashNewNodes,
  type NodeLoader,
  NotAnUpdateError,
  persistInOrder,
  persistTree,
  TreeWriter,
} from "./avl-tree.ts";
import { nodeKey } from "./keys.ts";
import { encodePage, type InnerNode, type LeafNode, leafHashOfValue, PAGE_NODES, type TreeNode } from "./tree-node.ts";
import { TreeStream } from "./tree-stream.ts";

const enc = new TextEncoder();
const key = (i: number) => enc.encode(`k-${String(i).padStart(5, "0")}`);
const noLoads: NodeLoader = {
  load: () => {
    throw new Error("no node is on disk in this test");
  },
};

/** A tree of `n` keys committed at version 1 (in memory, numbered). */
function committed(n: number): TreeNode | undefined {
  const tree = new TreeWriter(undefined, 1, noLoads);
  for (let i = 0; i < n; i++) tree.set(key(i), enc.encode(`v1-${i}`)).leaf.writeNo = 1;
  hashNewNodes(tree.root);
  return persistTree(tree.root, 1).root;
}

function leaf(i: number): LeafNode {
  return { kind: 0, key: key(i), version: 2, writeNo: 2, hash: leafHashOfValue(key(i), enc.encode(`v2-${i}`), 2) };
}

test("a streamed walk numbers and pages the new nodes as persistInOrder and PageBatch do", () => {
  const base = committed(3000);
  for (const { updated, every } of [
    { updated: () => true, every: 1 },
    { updated: (i: number) => i % 3 !== 0, every: 50 },
    { updated: (i: number) => i % 97 < 40, every: 7 },
  ]) {
    const written = Array.from({ length: 3000 }, (_, i) => i).filter(updated);
    // The ordinary way.
    const ordinary = new TreeWriter(base, 2, noLoads);
    for (const i of written) ordinary.setLeaf(leaf(i));
    const order: InnerNode[] = [];
    const count = hashNewNodes(ordinary.root, order);
    const { nodes } = persistInOrder(ordinary.root, 2, order);
    const expected = new Map<string, string>();
    for (let from = 0; from < nodes.length; from += PAGE_NODES) {
      const page = encodePage(nodes, from, Math.min(nodes.length, from + PAGE_NODES));
      expected.set(toHex(nodeKey(7, 2, from / PAGE_NODES)), toHex(page));
    }
    // Streamed, written out every `every` writes.
    const pages = new Map<string, string>();
    const stream = new TreeStream(7, 2, { put: (k, v) => pages.set(toHex(k), toHex(v)) });
    const tree = new TreeWriter(base, 2, noLoads);
    tree.updatesOnly = true;
    for (let j = 0; j < written.length; j++) {
      tree.setLeaf(leaf(written[j]));
      if ((j + 1) % every === 0 && j + 1 < written.length) stream.writeBefore(tree.root, key(written[j + 1]));
    }
    const root = stream.finish(tree.root);
    assert.equal(stream.count, count);
    assert.equal(root?.kind, 2, "the root is kept as a stub");
    assert.equal(root?.hash, ordinary.root?.hash);
    assert.deepEqual(pages, expected);
  }
});

test("a streamed TreeWriter refuses an insert and a removal before the tree changes shape", () => {
  const base = committed(100);
  const tree = new TreeWriter(base, 2, noLoads);
  tree.updatesOnly = true;
  assert.throws(() => tree.setLeaf({ ...leaf(0), key: enc.encode("k-00000a") }), NotAnUpdateError);
  assert.throws(() => tree.remove(key(5)), NotAnUpdateError);
  // A removal of a key the tree does not hold changes nothing, and is allowed.
  assert.equal(tree.remove(enc.encode("absent")), undefined);
  const empty = new TreeWriter(undefined, 2, noLoads);
  empty.updatesOnly = true;
  assert.throws(() => empty.setLeaf(leaf(0)), NotAnUpdateError);
});

test("a leaf not hashed yet is never streamed", () => {
  const base = committed(200);
  const tree = new TreeWriter(base, 2, noLoads);
  tree.updatesOnly = true;
  tree.setLeaf({ ...leaf(0), hash: "" });
  tree.setLeaf(leaf(1));
  const stream = new TreeStream(1, 2, { put: () => {} });
  assert.throws(() => stream.finish(tree.root), /before it was hashed/);
});
