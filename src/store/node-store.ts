// Loads inner nodes of the commitment trees from their page records through bounded caches, so
// memory stays flat however large the state grows (the trees themselves live on disk).
import type { NodeLoader } from "./avl-tree.ts";
import { DataDirectoryCorruptError } from "./errors.ts";
import { nodeKey } from "./keys.ts";
import type { KVBackend } from "./kv-backend.ts";
import { decodePageNode, type InnerNode, pageOf, refSeq, refVersion, type StubNode } from "./tree-node.ts";

/**
 * A two-generation cache: entries go into the young generation; when it is full it becomes the
 * old one (the previous old one is dropped). A hit in the old generation moves the entry back to
 * the young one. Constant time per operation, approximately least-recently-used.
 */
class GenerationCache<K, V> {
  private young = new Map<K, V>();
  private old = new Map<K, V>();
  private readonly half: number;

  constructor(capacity: number) {
    this.half = Math.max(1, Math.floor(capacity / 2));
  }

  get(key: K): V | undefined {
    const hit = this.young.get(key);
    if (hit !== undefined) return hit;
    const aged = this.old.get(key);
    if (aged !== undefined) this.set(key, aged);
    return aged;
  }

  set(key: K, value: V): void {
    if (this.young.size >= this.half) {
      this.old = this.young;
      this.young = new Map();
    }
    this.young.set(key, value);
  }

  delete(key: K): void {
    this.young.delete(key);
    this.old.delete(key);
  }

  /** Entries held (both generations). */
  get size(): number {
    return this.young.size + this.old.size;
  }

  clear(): void {
    this.young.clear();
    this.old.clear();
  }
}

/**
 * One store's cached inner nodes. The nodes this process committed are kept per version, as the
 * commit's own array (indexed by seq, which is how refs address them): adding a commit's tens of
 * thousands of nodes is one map entry, and dropping a node it replaced is one array slot, where a
 * map entry per node cost ~15 ms per 10k-write commit of a 100k-key store. Nodes read from disk go
 * into a two-generation cache. Together they hold at most `capacity` nodes: the oldest committed
 * versions go first (their nodes are the deepest, least walked part of the tree).
 */
class NodeCache {
  private readonly committed = new Map<number, { nodes: (InnerNode | undefined)[]; live: number }>();
  private committedCount = 0;
  private readonly loaded: GenerationCache<number, InnerNode>;
  private readonly capacity: number;

  constructor(capacity: number) {
    this.capacity = capacity;
    this.loaded = new GenerationCache(Math.max(2, Math.floor(capacity / 2)));
  }

  get(ref: number): InnerNode | undefined {
    const version = this.committed.get(refVersion(ref));
    if (version !== undefined) {
      const node = version.nodes[refSeq(ref)];
      if (node !== undefined) return node;
    }
    return this.loaded.get(ref);
  }

  /** Forgets a node read from disk (one a new version replaced); nodes this process committed stay. */
  dropLoaded(ref: number): void {
    if (this.loaded.size !== 0) this.loaded.delete(ref);
  }

  /** A node read from disk. */
  setLoaded(ref: number, node: InnerNode): void {
    this.loaded.set(ref, node);
    this.trim();
  }

  /** The nodes of a version just committed, indexed by seq (the array is the cache's from now on). */
  addVersion(version: number, nodes: InnerNode[]): void {
    const previous = this.committed.get(version);
    if (previous !== undefined) this.committedCount -= previous.live;
    this.committed.set(version, { nodes, live: nodes.length });
    this.committedCount += nodes.length;
    this.trim();
  }

  delete(ref: number): void {
    const v = refVersion(ref);
    const version = this.committed.get(v);
    if (version !== undefined) {
      const seq = refSeq(ref);
      if (version.nodes[seq] !== undefined) {
        version.nodes[seq] = undefined;
        this.committedCount--;
        if (--version.live === 0) this.committed.delete(v);
      }
    }
    // Skipped when empty (a process that committed the whole live tree reads nothing from disk): two map
    // deletes per replaced node, ~44k of them per commit of 10k random keys of a 100k-key store.
    if (this.loaded.size !== 0) this.loaded.delete(ref);
  }

  private trim(): void {
    if (this.committedCount + this.loaded.size <= this.capacity) return;
    // Whole versions, oldest first (a map iterates in insertion order), down to 3/4 of the room.
    const target = Math.floor((this.capacity * 3) / 4) - this.loaded.size;
    for (const [v, version] of this.committed) {
      if (this.committedCount <= target) break;
      this.committed.delete(v);
      this.committedCount -= version.live;
    }
  }
}

/**
 * Inner nodes kept in memory per store by default. Enough for the whole live tree of a 100k-key store (99,999 inner
 * nodes; the nodes a commit replaces leave the cache before its new ones join, so the count never passes the live
 * tree), whose commits would otherwise re-read evicted nodes. A larger store's tree does not fit whatever the size:
 * its walks read pages. Each cached node costs ~1.3 KiB of RSS with the garbage V8 lets grow beside it; the default
 * was 200,000 until the stepped migration over 1M records showed the extra 80,000 cost ~100 MiB of peak RSS and made
 * no block faster (docs/PERFORMANCE.md, "A migration of 1,000,000 records, stepped").
 */
export const DEFAULT_NODE_CACHE_SIZE = 120_000;

/** Node and page caches over one backend, shared by every store. */
export class NodeStore {
  private readonly backend: KVBackend;
  private readonly enabled: boolean;
  /** Per store id: decoded nodes by packed ref. */
  private readonly nodes = new Map<number, NodeCache>();
  private readonly nodeCapacity: number;
  /** Raw page records, so a walk down one subtree reads its page once. */
  private readonly pages: GenerationCache<string, Uint8Array>;
  private readonly loaders = new Map<number, NodeLoader>();
  /**
   * Per store id and version: the nodes of a commit whose pages are not durable yet (written after the
   * commit's own batch). Reads that miss the cache find them here, whatever the cache evicted.
   */
  private readonly pinned = new Map<number, Map<number, InnerNode[]>>();

  constructor(backend: KVBackend, capacity: number) {
    this.backend = backend;
    this.enabled = capacity > 0;
    this.nodeCapacity = Math.max(2, capacity);
    this.pages = new GenerationCache(256);
  }

  /** The loader for one store's nodes. */
  loader(sid: number): NodeLoader {
    let loader = this.loaders.get(sid);
    if (loader === undefined) {
      const cache = this.cacheOf(sid);
      loader = {
        load: (stub: StubNode) => {
          const hit = cache.get(stub.ref);
          if (hit !== undefined) return hit;
          const node = this.read(sid, stub);
          if (this.enabled) cache.setLoaded(stub.ref, node);
          return node;
        },
        // A node being replaced: from the cache (and out of its loaded nodes), else from its page, not cached. The
        // commit drops the replaced nodes this process committed (dropReplaced), as before.
        take: (stub: StubNode) => {
          const hit = cache.get(stub.ref);
          if (hit === undefined) return this.read(sid, stub);
          cache.dropLoaded(stub.ref);
          return hit;
        },
      };
      this.loaders.set(sid, loader);
    }
    return loader;
  }

  private cacheOf(sid: number): NodeCache {
    let cache = this.nodes.get(sid);
    if (cache === undefined) {
      cache = new NodeCache(this.nodeCapacity);
      this.nodes.set(sid, cache);
    }
    return cache;
  }

  private read(sid: number, stub: StubNode): InnerNode {
    const version = refVersion(stub.ref);
    const pinned = this.pinned.size === 0 ? undefined : this.pinned.get(sid)?.get(version);
    if (pinned !== undefined) {
      const node = pinned[refSeq(stub.ref)];
      if (node !== undefined) return node;
    }
    const { page, slot } = pageOf(refSeq(stub.ref));
    const pageId = `${sid}/${version}/${page}`;
    let record = this.pages.get(pageId);
    if (record === undefined) {
      record = this.backend.getSync(nodeKey(sid, version, page));
      if (record === undefined) {
        throw new DataDirectoryCorruptError(
          this.backend.location,
          `commitment tree page ${version}/${page} of store #${sid} is missing`,
        );
      }
      this.pages.set(pageId, record);
    }
    try {
      return decodePageNode(record, slot, stub.ref, stub.hash);
    } catch (err) {
      throw new DataDirectoryCorruptError(
        this.backend.location,
        `commitment tree node ${version}/${refSeq(stub.ref)} of store #${sid} cannot be decoded`,
        { cause: err },
      );
    }
  }

  /**
   * Adds freshly committed nodes near the top of the tree: the next block walks through them
   * again, while the bottom levels of a large tree are mostly read once per block anyway.
   * The nodes this version replaced were dropped before (dropReplaced).
   */
  insert(sid: number, version: number, nodes: InnerNode[]): void {
    if (!this.enabled) return;
    if (nodes.length > 0) this.cacheOf(sid).addVersion(version, nodes);
  }

  /**
   * Drops the nodes a version replaces. The commit does this while its batch is being written (the main
   * thread waits for the disk then): a dropped node is only needed by reads of older versions (proofs),
   * which read it from its page again, so doing it before the write is known to have succeeded is safe.
   */
  dropReplaced(sid: number, replaced: number[]): void {
    if (!this.enabled) return;
    const cache = this.cacheOf(sid);
    // Indexed: run once per commit over ~10k refs, a for-of stays unoptimized and allocates a result per ref.
    for (let i = 0; i < replaced.length; i++) cache.delete(replaced[i]);
  }

  /**
   * Keeps a commit's nodes readable until their pages are durable (`unpin`). The array is the one the
   * cache holds (not a copy): the only change made to it, clearing the slots of nodes a later version
   * replaced, comes with the next commit, which starts after the pages are written.
   */
  pin(sid: number, version: number, nodes: InnerNode[]): void {
    let versions = this.pinned.get(sid);
    if (versions === undefined) {
      versions = new Map();
      this.pinned.set(sid, versions);
    }
    versions.set(version, nodes);
  }

  /** A version's pages are durable: its nodes are read from them again once the cache lets them go. */
  unpin(sid: number, version: number): void {
    const versions = this.pinned.get(sid);
    if (versions === undefined) return;
    versions.delete(version);
    if (versions.size === 0) this.pinned.delete(sid);
  }

  /** Forgets a store's cached nodes (after it was deleted). */
  forget(sid: number): void {
    this.nodes.delete(sid);
    this.loaders.delete(sid);
    this.pages.clear();
  }
}
