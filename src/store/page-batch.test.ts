// A commit's pages may be encoded a slice at a time (in the wait for the commit's first write) and the rest at once
// (after it): the batch must hold exactly the pages one pass over the nodes makes, whatever the slicing.
import assert from "node:assert/strict";
import { test } from "node:test";
import { toHex } from "../bytes/hex.ts";
import { hashNewNodes, persistInOrder, TreeWriter } from "./avl-tree.ts";
import { nodeKey } from "./keys.ts";
import type { KVBatch } from "./kv-backend.ts";
import { PageBatch } from "./page-batch.ts";
import { encodePageView, type InnerNode, PAGE_NODES } from "./tree-node.ts";

/** A batch that records its puts (copies: the page views are reused). */
function recording(): { batch: KVBatch; puts: string[] } {
  const puts: string[] = [];
  const batch: KVBatch = {
    put: (key, value) => {
      puts.push(`${toHex(key)}=${toHex(value)}`);
    },
    del: () => assert.fail("no deletes"),
    write: async () => {},
    close: async () => {},
  };
  return { batch, puts };
}

/** A version's numbered nodes of a tree of `keys` keys. */
function numberedNodes(keys: number, version: number): InnerNode[] {
  const w = new TreeWriter(undefined, version, { load: () => assert.fail("a fresh tree loads nothing") });
  for (let i = 0; i < keys; i++) w.set(new Uint8Array([i >> 8, i & 0xff]), new Uint8Array([i & 7]));
  const order: InnerNode[] = [];
  hashNewNodes(w.root, order);
  return persistInOrder(w.root, version, order).nodes;
}

test("pages encoded in slices are the pages of one pass, store after store", () => {
  const stores = [
    // n keys make n - 1 inner nodes: 3 pages and a part, none, 1 page and a node, exactly 1 page.
    { sid: 1, nodes: numberedNodes(3 * PAGE_NODES + 11, 7) },
    { sid: 2, nodes: [] },
    { sid: 3, nodes: numberedNodes(PAGE_NODES + 2, 7) },
    { sid: 4, nodes: numberedNodes(PAGE_NODES + 1, 7) },
  ];
  const whole: string[] = [];
  for (const { sid, nodes } of stores) {
    for (let from = 0; from < nodes.length; from += PAGE_NODES) {
      const view = encodePageView(nodes, from, Math.min(nodes.length, from + PAGE_NODES));
      whole.push(`${toHex(nodeKey(sid, 7, from / PAGE_NODES))}=${toHex(view)}`);
    }
  }
  assert.equal(whole.length, 4 + 2 + 1);
  for (const slice of [1, 2, 3, 5, 16]) {
    const { batch, puts } = recording();
    const pages = new PageBatch(batch, 7, stores);
    let slices = 0;
    while (!pages.done) {
      pages.encode(slice);
      slices++;
    }
    assert.deepEqual(puts, whole, `slices of ${slice}`);
    assert.equal(slices, Math.ceil(whole.length / slice), `no empty slice at the end (slices of ${slice})`);
    pages.encode(Number.POSITIVE_INFINITY);
    assert.equal(puts.length, whole.length, "nothing more once done");
  }
  const { batch, puts } = recording();
  const pages = new PageBatch(batch, 7, stores);
  pages.encode(2);
  pages.encode(Number.POSITIVE_INFINITY);
  assert.ok(pages.done);
  assert.deepEqual(puts, whole, "a start in the wait, the rest at once");
});

test("pages in parts: each part stops at the first page that reaches the limit, and the parts make one pass", () => {
  const stores = [
    { sid: 1, nodes: numberedNodes(3 * PAGE_NODES + 11, 7) },
    { sid: 3, nodes: numberedNodes(PAGE_NODES + 2, 7) },
  ];
  const whole: string[] = [];
  const sizes: number[] = [];
  for (const { sid, nodes } of stores) {
    for (let from = 0; from < nodes.length; from += PAGE_NODES) {
      const view = encodePageView(nodes, from, Math.min(nodes.length, from + PAGE_NODES));
      whole.push(`${toHex(nodeKey(sid, 7, from / PAGE_NODES))}=${toHex(view)}`);
      sizes.push(view.length);
    }
  }
  for (const limit of [1, sizes[0], sizes[0] + 1, 2 * sizes[0] + 1]) {
    const { batch, puts } = recording();
    const pages = new PageBatch(batch, 7, stores);
    const parts: number[] = [];
    // The commit's wait starts the first part a slice at a time; the rest goes part after part.
    pages.encode(1, limit);
    while (!pages.done) {
      pages.encode(Number.POSITIVE_INFINITY, limit);
      const before = parts.reduce((a, n) => a + n, 0);
      const count = puts.length - before;
      assert.ok(count > 0, `a part holds a page at least (limit ${limit})`);
      const bytes = sizes.slice(before, before + count).reduce((a, n) => a + n, 0);
      assert.equal(pages.partBytes, bytes);
      if (!pages.done) {
        assert.ok(bytes >= limit, `a part before the last reaches the limit (limit ${limit})`);
        assert.ok(bytes - sizes[before + count - 1] < limit, `and no page more (limit ${limit})`);
      }
      parts.push(count);
      pages.partWritten();
    }
    assert.deepEqual(puts, whole, `parts of ${limit} bytes`);
  }
});
