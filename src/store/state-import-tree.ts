// One store's commitment tree rebuilt from an export's post-order node stream (state-export.ts), bottom-up, with
// memory bounded by the tree's height rather than its size. The stream gives every inner node after its two
// children, which is also the order a commit numbers a version's new nodes in (persistTree: children first), so
// each inner node's place on disk (its seq, hence its page) is known the moment it arrives. The caller hashes a
// round of leaves (a batch of the stream; LeafHasher, beside a worker thread), then settle() hashes the round's
// inner nodes from their children's hashes and hands out every page of PAGE_NODES nodes they fill. What stays
// in memory is one round's nodes and the stack of subtrees still waiting for their parent (at most
// ~1.44·log2(keys) of them in an AVL tree), each as the stub its parent's record needs.
import { compareBytes } from "../bytes/compare.ts";
import { toHex } from "../bytes/hex.ts";
import {
  type Digest,
  encodePageView,
  heightOf,
  type InnerNode,
  innerHash,
  keyPrefix,
  type LeafNode,
  MAX_NODES_PER_VERSION,
  PAGE_NODES,
  packRef,
  sizeOf,
  type TreeNode,
} from "./tree-node.ts";

/** Why a node stream does not describe a tree; the caller names the store and wraps it. */
export class TreeStreamError extends Error {}

/** Rebuilds one store's tree at `version` from its export items, handing out each page as it is complete. */
export class TreeRebuilder {
  private readonly version: number;
  /** Receives page `page` of the version's nodes; the bytes are valid only during the call. */
  private readonly putPage: (page: number, bytes: Uint8Array) => void;
  /** Subtrees waiting for their parent, oldest first, each with the smallest key under it. */
  private readonly stack: TreeNode[] = [];
  private readonly minKeys: Uint8Array[] = [];
  /** Inner nodes that came since the last settle(), in stream order (children first), not hashed yet. */
  private unsettled: InnerNode[] = [];
  /** The nodes of the page being filled (seq = pages handed out × PAGE_NODES + index). */
  private page: InnerNode[] = [];
  private pages = 0;
  private seq = 0;
  private lastKey: Uint8Array | undefined;

  constructor(version: number, putPage: (page: number, bytes: Uint8Array) => void) {
    this.version = version;
    this.putPage = putPage;
  }

  /**
   * A leaf: `key` (kept; the caller hands over a copy) written at `version`. Returns the leaf, whose hash the
   * caller sets (LeafHasher) before the next settle().
   */
  leaf(key: Uint8Array, version: number): LeafNode {
    if (version <= 0 || version > this.version) {
      throw new TreeStreamError(`a leaf has version ${version}, outside 1..${this.version}`);
    }
    if (this.lastKey !== undefined && compareBytes(this.lastKey, key) >= 0) {
      throw new TreeStreamError(`leaf keys are not in increasing order at ${toHex(key)}`);
    }
    this.lastKey = key;
    // Write number 1: the key's only write as far as the rebuilt store knows.
    const leaf: LeafNode = { kind: 0, key, version, writeNo: 1, hash: "" };
    this.stack.push(leaf);
    this.minKeys.push(key);
    return leaf;
  }

  /** An inner node over the two subtrees on top of the stack (hashed at the next settle()). */
  inner(version: number, height: number): void {
    const right = this.stack.pop();
    const left = this.stack.pop();
    const rightMin = this.minKeys.pop();
    const leftMin = this.minKeys.pop();
    if (left === undefined || right === undefined || leftMin === undefined || rightMin === undefined) {
      throw new TreeStreamError("an inner node comes before its two children");
    }
    const expected = 1 + Math.max(heightOf(left), heightOf(right));
    if (height !== expected || version <= 0 || version > this.version) {
      throw new TreeStreamError(
        `an inner node says height ${height} version ${version}, expected height ${expected} and a version in 1..${this.version}`,
      );
    }
    const seq = this.seq++;
    if (seq >= MAX_NODES_PER_VERSION) {
      throw new TreeStreamError(
        `the tree has more than ${MAX_NODES_PER_VERSION} inner nodes, the most one version holds`,
      );
    }
    const node: InnerNode = {
      kind: 1,
      height,
      size: sizeOf(left) + sizeOf(right),
      version,
      key: rightMin,
      kp: keyPrefix(rightMin),
      left,
      right,
      hash: undefined,
      ref: packRef(this.version, seq),
    };
    this.unsettled.push(node);
    this.stack.push(node);
    this.minKeys.push(leftMin);
  }

  /**
   * Hashes the inner nodes that came since the last call (every leaf under them has its hash by now), hands out the
   * pages they fill, and leaves on the stack only stubs: the full nodes go with their pages.
   */
  settle(): void {
    for (const node of this.unsettled) {
      node.hash = innerHash(node.height, node.size, node.version, hashOfChild(node.left), hashOfChild(node.right));
      this.page.push(node);
      if (this.page.length === PAGE_NODES) this.flushPage();
    }
    this.unsettled = [];
    const stack = this.stack;
    for (let i = 0; i < stack.length; i++) {
      const node = stack[i];
      if (node.kind === 1)
        stack[i] = { kind: 2, ref: node.ref, hash: node.hash as Digest, height: node.height, size: node.size };
    }
  }

  /** Ends the stream (after a settle()): hands out the last page and returns the root (undefined for an empty store). */
  finish(): TreeNode | undefined {
    if (this.stack.length > 1) throw new TreeStreamError(`the exported tree has ${this.stack.length} roots`);
    this.settle();
    if (this.page.length > 0) this.flushPage();
    return this.stack[0];
  }

  private flushPage(): void {
    this.putPage(this.pages, encodePageView(this.page, 0, this.page.length));
    this.pages++;
    this.page = [];
  }
}

/** A settled child's hash: a leaf's (set by the caller), an inner node's (settled before its parent), a stub's. */
function hashOfChild(node: TreeNode): Digest {
  const hash = node.hash;
  if (hash === undefined || hash === "") throw new Error("internal: a child is not hashed before its parent");
  return hash;
}
