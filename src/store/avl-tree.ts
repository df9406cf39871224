// Copy-on-write updates of the AVL+ commitment tree. Every node on the path of a change is
// copied into the working version (its old record becomes an "orphan" of that version), so all
// older versions stay intact on disk; a commit then writes only the new nodes. Cost per change:
// O(log n) node visits and hashes, never proportional to the tree size.
import { compareBytes, equalBytes } from "../bytes/compare.ts";
import {
  type Digest,
  digestBytes,
  encodePageView,
  hashOf,
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
  type TreeNode,
  toStub,
} from "./tree-node.ts";

/** Loads persisted inner nodes (through a cache). */
export interface NodeLoader {
  load(stub: StubNode): InnerNode;
  /**
   * Loads a node the caller is about to replace (copy into a new version): as `load`, but the node is not kept in the
   * cache, and leaves it if it was read from disk before. Within a version a replaced node is never visited again (its
   * copy is), so caching it only crowded out nodes still in use: a version that rewrites a large store filled the
   * cache with them up to its bound (docs/PERFORMANCE.md, "The one handler's stage and commit, measured").
   */
  take?(stub: StubNode): InnerNode;
}

/** Resolves a stub to its loaded node; other nodes are returned as they are. */
export function resolve(loader: NodeLoader, node: TreeNode): LeafNode | InnerNode {
  return node.kind === 2 ? loader.load(node) : node;
}

/**
 * Loads, through `loader` (and so into its cache), every persisted node on the path from `root` to where `key` is or
 * would go: the nodes a write of `key` copies. Reads only.
 */
export function loadPath(loader: NodeLoader, root: TreeNode | undefined, key: Uint8Array): void {
  let node = root;
  while (node !== undefined && node.kind !== 0) {
    const n = resolve(loader, node) as InnerNode;
    node = compareBytes(key, n.key) < 0 ? n.left : n.right;
  }
}

/**
 * Thrown by a TreeWriter set to {@link TreeWriter.updatesOnly} when a write would insert or remove a key, before the
 * tree changes shape (a streamed stage then redoes the store the ordinary way: tree-stream.ts).
 */
export class NotAnUpdateError extends Error {
  readonly key: Uint8Array;
  constructor(key: Uint8Array) {
    super("internal: a write that is not an update of a key the tree holds");
    this.key = key;
  }
}

/** Applies the writes of one version to one store's tree. */
export class TreeWriter {
  readonly version: number;
  private readonly loader: NodeLoader;
  /** Packed refs of persisted nodes this version replaced (prunable once the version before is gone). */
  readonly orphans: number[] = [];
  root: TreeNode | undefined;
  /** The leaf the current set() replaced (a field rather than a tuple: set() is the hot path). */
  private replaced: LeafNode | undefined;
  /**
   * Refuse (NotAnUpdateError) a set of a key the tree does not hold and a removal of one it holds, before anything
   * rotates: a tree streamed at stage (tree-stream.ts) holds stubs of subtrees whose pages are not on disk yet.
   */
  updatesOnly = false;

  constructor(root: TreeNode | undefined, version: number, loader: NodeLoader) {
    this.root = root;
    this.version = version;
    this.loader = loader;
  }

  /** Sets `key` to `value`; returns the new leaf and the leaf it replaced. */
  set(key: Uint8Array, value: Uint8Array): { leaf: LeafNode; old: LeafNode | undefined } {
    const leaf: LeafNode = {
      kind: 0,
      key,
      version: this.version,
      writeNo: 0,
      hash: leafHashOfValue(key, value, this.version),
    };
    return { leaf, old: this.setLeaf(leaf) };
  }

  /**
   * Puts a leaf of this version into the tree; returns the leaf it replaced. The leaf's hash may be
   * filled in later (LeafHasher), as long as it is before the tree is hashed.
   */
  setLeaf(leaf: LeafNode): LeafNode | undefined {
    this.replaced = undefined;
    if (this.root === undefined && this.updatesOnly) throw new NotAnUpdateError(leaf.key);
    this.root = this.root === undefined ? leaf : this.setIn(this.root, leaf, keyPrefix(leaf.key));
    return this.replaced;
  }

  /** Removes `key`; returns the removed leaf, or undefined when the key is not in the tree. */
  remove(key: Uint8Array): LeafNode | undefined {
    if (this.root === undefined) return undefined;
    const result = this.removeIn(this.root, key);
    if (result === undefined) return undefined;
    this.root = result.node;
    return result.removed;
  }

  private newInner(key: Uint8Array, left: TreeNode, right: TreeNode): InnerNode {
    return {
      kind: 1,
      height: 1 + Math.max(heightOf(left), heightOf(right)),
      size: sizeOf(left) + sizeOf(right),
      version: this.version,
      key,
      kp: keyPrefix(key),
      left,
      right,
      hash: undefined,
      ref: -1,
    };
  }

  /** A node this version may modify: new nodes are modified in place, persisted ones copied. */
  private writable(node: TreeNode): InnerNode {
    const loader = this.loader;
    const n = node.kind !== 2 ? node : loader.take !== undefined ? loader.take(node) : loader.load(node);
    if (n.kind !== 1) throw new Error("internal: expected an inner node");
    if (n.ref < 0) {
      n.hash = undefined;
      return n;
    }
    this.orphans.push(n.ref);
    return {
      kind: 1,
      height: n.height,
      size: n.size,
      version: this.version,
      key: n.key,
      kp: n.kp,
      left: n.left,
      right: n.right,
      hash: undefined,
      ref: -1,
    };
  }

  /** `kp` is keyPrefix(leaf.key). */
  private setIn(node: TreeNode, leaf: LeafNode, kp: number): TreeNode {
    if (node.kind === 0) {
      const c = compareBytes(leaf.key, node.key);
      if (c === 0) {
        this.replaced = node;
        // The new leaf keeps the key array the tree already holds (the same bytes): a right leaf's key is its
        // parent's, which the path copy keeps, so the writer's array would be one more kept for as long as this
        // version's nodes are (a stepped migration rewrites tens of thousands of keys a block).
        (leaf as { key: Uint8Array }).key = node.key;
        return leaf;
      }
      if (this.updatesOnly) throw new NotAnUpdateError(leaf.key);
      if (c < 0) return this.newInner(node.key, leaf, node);
      return this.newInner(leaf.key, node, leaf);
    }
    const n = this.writable(node);
    // The prefixes decide almost every level without reaching the inner key's bytes.
    const nkp = n.kp;
    if (kp < nkp || (kp === nkp && compareBytes(leaf.key, n.key) < 0)) n.left = this.setIn(n.left, leaf, kp);
    else n.right = this.setIn(n.right, leaf, kp);
    // An update keeps the shape; an insert may unbalance the path.
    if (this.replaced !== undefined) return n;
    refresh(n);
    return this.balance(n);
  }

  private removeIn(
    node: TreeNode,
    key: Uint8Array,
  ): { node: TreeNode | undefined; newKey: Uint8Array | undefined; removed: LeafNode } | undefined {
    if (node.kind === 0) {
      if (!equalBytes(node.key, key)) return undefined;
      if (this.updatesOnly) throw new NotAnUpdateError(key);
      return { node: undefined, newKey: undefined, removed: node };
    }
    const current = resolve(this.loader, node) as InnerNode;
    if (compareBytes(key, current.key) < 0) {
      const r = this.removeIn(current.left, key);
      if (r === undefined) return undefined;
      if (r.node === undefined) {
        // The left leaf is gone: the right subtree takes this node's place; its smallest key is ours.
        if (current.ref >= 0) this.orphans.push(current.ref);
        return { node: current.right, newKey: current.key, removed: r.removed };
      }
      const n = this.writable(current);
      n.left = r.node;
      refresh(n);
      return { node: this.balance(n), newKey: r.newKey, removed: r.removed };
    }
    const r = this.removeIn(current.right, key);
    if (r === undefined) return undefined;
    if (r.node === undefined) {
      if (current.ref >= 0) this.orphans.push(current.ref);
      return { node: current.left, newKey: undefined, removed: r.removed };
    }
    const n = this.writable(current);
    n.right = r.node;
    if (r.newKey !== undefined) {
      n.key = r.newKey;
      n.kp = keyPrefix(r.newKey);
    }
    refresh(n);
    return { node: this.balance(n), newKey: undefined, removed: r.removed };
  }

  private balanceOf(node: TreeNode): number {
    if (node.kind === 0) return 0;
    const n = resolve(this.loader, node) as InnerNode;
    return heightOf(n.left) - heightOf(n.right);
  }

  private balance(n: InnerNode): InnerNode {
    const b = heightOf(n.left) - heightOf(n.right);
    if (b > 1) {
      if (this.balanceOf(n.left) < 0) n.left = this.rotateLeft(this.writable(n.left));
      return this.rotateRight(n);
    }
    if (b < -1) {
      if (this.balanceOf(n.right) > 0) n.right = this.rotateRight(this.writable(n.right));
      return this.rotateLeft(n);
    }
    return n;
  }

  /** `n` must be writable. Rotations keep every inner key: each subtree keeps its smallest key. */
  private rotateRight(n: InnerNode): InnerNode {
    const l = this.writable(n.left);
    n.left = l.right;
    refresh(n);
    l.right = n;
    refresh(l);
    return l;
  }

  private rotateLeft(n: InnerNode): InnerNode {
    const r = this.writable(n.right);
    n.right = r.left;
    refresh(n);
    r.left = n;
    refresh(r);
    return r;
  }
}

function refresh(n: InnerNode): void {
  n.height = 1 + Math.max(heightOf(n.left), heightOf(n.right));
  n.size = sizeOf(n.left) + sizeOf(n.right);
  n.hash = undefined;
}

/** The nodes a commit writes for one store's tree, and the tree as it will be once written. */
export interface PersistedTree {
  /** Every new node in persisted form (older inner children as stubs), numbered children first by seq. */
  nodes: InnerNode[];
  /** The root in its persisted form. */
  root: TreeNode | undefined;
}

/**
 * Numbers the new nodes of `root` children first and turns them into their persisted form in
 * place (a ref; inner children of older versions as stubs, so a node holds no other version's
 * nodes and what is cached is bounded by the cache). In place rather
 * than as copies: a commit persists tens of thousands of nodes and the copies were a large share
 * of its allocations. The working nodes are this version's own, so nothing else sees the change;
 * callers persist a staged tree once and keep the result, so a failed write can be retried.
 * Hashes must have been computed (rootHash) before.
 *
 * With `putPage`, each page of PAGE_NODES nodes is encoded as soon as its last node is numbered,
 * while those nodes are still in the CPU's cache (a second walk over a large commit's nodes cost
 * as much again in cache misses); the page view is valid until `putPage` returns.
 */
export function persistTree(
  root: TreeNode | undefined,
  version: number,
  putPage?: (page: number, bytes: Uint8Array) => void,
): PersistedTree {
  const nodes: InnerNode[] = [];
  const visit = (node: InnerNode): void => {
    const left = node.left;
    const right = node.right;
    // A child new in this version stays a direct reference (it is cached with this version's nodes and
    // dropped with them); an older node becomes a stub, so no node holds another version's nodes and
    // memory stays bounded by the cache. One stub object less per new node, and a descent reaches a
    // child of the same version without a cache lookup.
    if (left.kind === 1) {
      if (left.ref < 0) visit(left);
      else node.left = toStub(left);
    }
    if (right.kind === 1) {
      if (right.ref < 0) visit(right);
      else node.right = toStub(right);
    }
    const seq = nodes.length;
    if (seq >= MAX_NODES_PER_VERSION) {
      throw new Error(`one store changed too many tree nodes in one version (limit ${MAX_NODES_PER_VERSION})`);
    }
    hashOf(node);
    node.ref = packRef(version, seq);
    nodes.push(node);
    if (putPage !== undefined && nodes.length % PAGE_NODES === 0) {
      putPage(nodes.length / PAGE_NODES - 1, encodePageView(nodes, nodes.length - PAGE_NODES, nodes.length));
    }
  };
  if (root !== undefined && root.kind === 1 && root.ref < 0) visit(root);
  const tail = nodes.length % PAGE_NODES;
  if (putPage !== undefined && tail !== 0) {
    putPage((nodes.length - tail) / PAGE_NODES, encodePageView(nodes, nodes.length - tail, nodes.length));
  }
  return { nodes, root };
}

/**
 * persistTree over the new nodes as hashNewNodes listed them (children first, the order persistTree's
 * walk numbers them in): a loop over the array instead of a second recursive walk, and the array
 * becomes the persisted nodes. A child new in this version is numbered before its parent, so it is told
 * from an older node by its version rather than by its missing ref.
 */
export function persistInOrder(root: TreeNode | undefined, version: number, nodes: InnerNode[]): PersistedTree {
  if (nodes.length > MAX_NODES_PER_VERSION) {
    throw new Error(`one store changed too many tree nodes in one version (limit ${MAX_NODES_PER_VERSION})`);
  }
  for (let seq = 0; seq < nodes.length; seq++) {
    const node = nodes[seq];
    const left = node.left;
    const right = node.right;
    if (left.kind === 1 && left.version !== version) node.left = toStub(left);
    if (right.kind === 1 && right.version !== version) node.right = toStub(right);
    node.ref = packRef(version, seq);
  }
  return { nodes, root };
}

/**
 * Hashes the new nodes of `root` bottom-up and counts them (and lists them in `order` when given, for
 * persistInOrder). persistTree numbers the same nodes
 * children first, so the root's seq will be the count − 1: the commit info can name the root before
 * the nodes are numbered (which a commit does while its first batch is written).
 */
export function hashNewNodes(root: TreeNode | undefined, order?: InnerNode[]): number {
  let count = 0;
  const visit = (node: InnerNode): void => {
    const left = node.left;
    const right = node.right;
    if (left.kind === 1 && left.ref < 0) visit(left);
    if (right.kind === 1 && right.ref < 0) visit(right);
    count++;
    // The children are hashed by now (leaves by LeafHasher, new inner nodes just above, older ones and
    // stubs carry theirs): the node's own hash straight from theirs, without hashOf's three calls.
    if (node.hash === undefined) {
      node.hash = innerHash(node.height, node.size, node.version, left.hash as Digest, right.hash as Digest);
    }
    order?.push(node);
  };
  if (root !== undefined && root.kind === 1 && root.ref < 0) visit(root);
  if (count > MAX_NODES_PER_VERSION) {
    throw new Error(`one store changed too many tree nodes in one version (limit ${MAX_NODES_PER_VERSION})`);
  }
  return count;
}

/**
 * The root as the commit info records it: a root new in `version` as the stub persistTree will make
 * of it (seq `newNodes − 1`), any other as it is.
 */
export function committedRoot(root: TreeNode | undefined, version: number, newNodes: number): TreeNode | undefined {
  if (root === undefined || root.kind !== 1 || root.ref >= 0) return root;
  return { kind: 2, ref: packRef(version, newNodes - 1), hash: hashOf(root), height: root.height, size: root.size };
}

/** The root hash of a tree (sha256 of nothing for an empty tree, as IAVL). */
export function rootHash(root: TreeNode | undefined, emptyHash: Uint8Array): Uint8Array {
  return root === undefined ? emptyHash : digestBytes(hashOf(root));
}
