// One store's commitment tree rebuilt from an export's post-order node stream (state-export.ts), bottom-up, with
// memory bounded by the tree's height rather than its size. The stream gives every inner node after its two
// children, which is also the order a commit numbers a version's new nodes in (persistTree: children first), so
// each inner node's place on disk (its seq, hence its page) is known the moment it arrives: it is hashed from
// its children's hashes at once, and every PAGE_NODES nodes a page is encoded and handed out. What stays in
// memory is the stack of subtrees still waiting for their parent (at most ~1.44·log2(keys) of them in an AVL
// tree), each as the stub its parent's record needs, and the page being filled.
import { compareBytes } from "../bytes/compare.ts";
import { toHex } from "../bytes/hex.ts";
import {
  encodePageView,
  heightOf,
  type InnerNode,
  innerHash,
  keyPrefix,
  type LeafNode,
  leafHashOfValue,
  MAX_NODES_PER_VERSION,
  PAGE_NODES,
  packRef,
  type StubNode,
  sizeOf,
} from "./tree-node.ts";

/** Why a node stream does not describe a tree; the caller names the store and wraps it. */
export class TreeStreamError extends Error {}

/** Rebuilds one store's tree at `version` from its export items, handing out each page as it is complete. */
export class TreeRebuilder {
  private readonly version: number;
  /** Receives page `page` of the version's nodes; the bytes are valid only during the call. */
  private readonly putPage: (page: number, bytes: Uint8Array) => void;
  /** Subtrees waiting for their parent, oldest first, each with the smallest key under it. */
  private readonly stack: (LeafNode | StubNode)[] = [];
  private readonly minKeys: Uint8Array[] = [];
  /** The nodes of the page being filled (seq = pages handed out × PAGE_NODES + index). */
  private page: InnerNode[] = [];
  private pages = 0;
  private lastKey: Uint8Array | undefined;

  constructor(version: number, putPage: (page: number, bytes: Uint8Array) => void) {
    this.version = version;
    this.putPage = putPage;
  }

  /** A leaf: `key` (kept; the caller hands over a copy) = `value` (only hashed) written at `version`. */
  leaf(key: Uint8Array, value: Uint8Array, version: number): void {
    if (version <= 0 || version > this.version) {
      throw new TreeStreamError(`a leaf has version ${version}, outside 1..${this.version}`);
    }
    if (this.lastKey !== undefined && compareBytes(this.lastKey, key) >= 0) {
      throw new TreeStreamError(`leaf keys are not in increasing order at ${toHex(key)}`);
    }
    this.lastKey = key;
    // Write number 1: the key's only write as far as the rebuilt store knows.
    this.stack.push({ kind: 0, key, version, writeNo: 1, hash: leafHashOfValue(key, value, version) });
    this.minKeys.push(key);
  }

  /** An inner node over the two subtrees on top of the stack. */
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
    const seq = this.pages * PAGE_NODES + this.page.length;
    if (seq >= MAX_NODES_PER_VERSION) {
      throw new TreeStreamError(
        `the tree has more than ${MAX_NODES_PER_VERSION} inner nodes, the most one version holds`,
      );
    }
    const size = sizeOf(left) + sizeOf(right);
    const hash = innerHash(height, size, version, left.hash, right.hash);
    const ref = packRef(this.version, seq);
    // The node in full only until its page is encoded; its parent needs no more than the stub.
    this.page.push({ kind: 1, height, size, version, key: rightMin, kp: keyPrefix(rightMin), left, right, hash, ref });
    this.stack.push({ kind: 2, ref, hash, height, size });
    this.minKeys.push(leftMin);
    if (this.page.length === PAGE_NODES) this.flushPage();
  }

  /** Ends the stream: hands out the last page and returns the root (undefined for an empty store). */
  finish(): LeafNode | StubNode | undefined {
    if (this.stack.length > 1) throw new TreeStreamError(`the exported tree has ${this.stack.length} roots`);
    if (this.page.length > 0) this.flushPage();
    return this.stack[0];
  }

  private flushPage(): void {
    this.putPage(this.pages, encodePageView(this.page, 0, this.page.length));
    this.pages++;
    this.page = [];
  }
}
