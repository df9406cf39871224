// A large version's new tree written out while stage walks its writes, for a version that only updates keys the tree
// holds (README "A large version's memory", Step C). Such a walk never rotates, so once the walk is past a subtree
// (every key of it is below the next write's) the subtree is final: it is hashed, its new nodes numbered and encoded
// into pages, and its parent keeps a stub of it (ref, hash, height, size) instead of its nodes, which V8 can then
// collect. The numbers and pages are the ones the ordinary way gives (hashNewNodes' children-first order, numbered by
// persistInOrder, a page cut at every PAGE_NODES-th by PageBatch): the final subtrees along the walk's path, taken top
// down, are each wholly before every node not yet written in that order, and what is left at the end (the path, the
// root last) comes after them all.
import { compareBytes } from "../bytes/compare.ts";
import { nodeKey } from "./keys.ts";
import type { RowSink } from "./part-writer.ts";
import {
  encodePageView,
  type InnerNode,
  innerHash,
  MAX_NODES_PER_VERSION,
  PAGE_NODES,
  packRef,
  type StubNode,
  type TreeNode,
} from "./tree-node.ts";

export class TreeStream {
  private readonly sid: number;
  private readonly version: number;
  private readonly sink: RowSink;
  /** The numbered nodes of the page being filled (at most PAGE_NODES − 1 between calls). */
  private readonly page: InnerNode[] = [];
  /** Nodes numbered so far: the next node's seq. */
  count = 0;
  /** Pages put into the sink so far. */
  pagesPut = 0;

  constructor(sid: number, version: number, sink: RowSink) {
    this.sid = sid;
    this.version = version;
    this.sink = sink;
  }

  /**
   * Writes out every new subtree of `root` whose keys are all below `next` (the walk's next key: every write below it
   * is applied and its leaf hashed), replacing each in its parent by a stub.
   */
  writeBefore(root: TreeNode | undefined, next: Uint8Array): void {
    let node = root;
    while (node !== undefined && node.kind === 1 && node.ref < 0) {
      if (compareBytes(next, node.key) >= 0) {
        // The walk is in the right subtree: the left one is final.
        const left = node.left;
        if (left.kind === 1 && left.ref < 0) node.left = this.emit(left);
        node = node.right;
      } else node = node.left;
    }
  }

  /** Writes out what is left of the tree (its root last) and the last page; returns the root as the commit keeps it. */
  finish(root: TreeNode | undefined): TreeNode | undefined {
    const out = root !== undefined && root.kind === 1 && root.ref < 0 ? this.emit(root) : root;
    if (this.page.length > 0) this.cutPage();
    return out;
  }

  /** Hashes and numbers the new nodes of `node`'s subtree children first, pages them; returns its stub. */
  private emit(node: InnerNode): StubNode {
    const left = node.left;
    const right = node.right;
    // Children become stubs: a numbered node waiting for its page must not hold its subtree.
    if (left.kind === 1) node.left = left.ref < 0 ? this.emit(left) : toStubOf(left);
    else if (left.kind === 0 && left.hash === "") throw new Error("internal: a leaf streamed before it was hashed");
    if (right.kind === 1) node.right = right.ref < 0 ? this.emit(right) : toStubOf(right);
    else if (right.kind === 0 && right.hash === "") throw new Error("internal: a leaf streamed before it was hashed");
    const hash =
      node.hash ?? innerHash(node.height, node.size, node.version, node.left.hash as string, node.right.hash as string);
    node.hash = hash;
    const seq = this.count++;
    if (seq >= MAX_NODES_PER_VERSION) {
      throw new Error(`one store changed too many tree nodes in one version (limit ${MAX_NODES_PER_VERSION})`);
    }
    node.ref = packRef(this.version, seq);
    this.page.push(node);
    if (this.page.length === PAGE_NODES) this.cutPage();
    return { kind: 2, ref: node.ref, hash, height: node.height, size: node.size };
  }

  private cutPage(): void {
    const page = this.page;
    this.sink.put(nodeKey(this.sid, this.version, this.pagesPut), encodePageView(page, 0, page.length));
    this.pagesPut++;
    page.length = 0;
  }
}

/** An older version's inner node (hashed, numbered) as a stub. */
function toStubOf(node: InnerNode): StubNode {
  return { kind: 2, ref: node.ref, hash: node.hash as string, height: node.height, size: node.size };
}
