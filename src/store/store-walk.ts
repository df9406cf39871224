// The walk over one store's writes at stage (multistore.ts, stage()): each write applied to the store's tree, its
// leaf handed to the leaf hasher, its rows put where they go (the version's batch; for a large version the history
// rows and updates' latest rows into the early parts, and, while the version only updates keys, its tree streamed
// out: src/store/README.md, "A large version's memory"). The multistore decides what is staged and when; this file
// does one store's walk.
import { compareBytes } from "../bytes/compare.ts";
import { bytesToBinaryString } from "../bytes/text.ts";
import { type NodeLoader, NotAnUpdateError, type PersistedTree, TreeWriter } from "./avl-tree.ts";
import { type CacheLayer, type PendingWrite, type SortedWrites, type WriteView, writeAt } from "./cache-layer.ts";
import { decodeLatestRow, importedFirstValue } from "./flat-state.ts";
import { EMPTY_HASH } from "./hash.ts";
import { storeKey, TABLE } from "./keys.ts";
import type { KVBackend, KVBatch } from "./kv-backend.ts";
import type { LatestValueCache } from "./latest-cache.ts";
import type { LeafHasher } from "./leaf-hasher.ts";
import type { NodeStore } from "./node-store.ts";
import type { PartWriter, RowSink } from "./part-writer.ts";
import { ChangelogWriter } from "./records.ts";
import { StagedChanges } from "./staged-changes.ts";
import type { InnerNode, LeafNode, TreeNode } from "./tree-node.ts";
import { TreeStream } from "./tree-stream.ts";

/** A store of the working set: its committed tree and its pending writes. */
export interface WorkingStore {
  name: string;
  sid: number;
  root: TreeNode | undefined;
  layer: CacheLayer;
}

/** One store's part of a staged version. */
export interface StagedStore {
  name: string;
  sid: number;
  root: TreeNode | undefined;
  rootHash: Uint8Array;
  /** Its writes' changes (their rows are in the staged batch; a retried commit puts them again). */
  changes: StagedChanges;
  /** The changelog of `changes` (pruning's record), filled at stage with the rows. */
  changelog: ChangelogWriter;
  orphans: number[];
  /** New inner nodes (hashNewNodes): the root's seq is this − 1. */
  newNodes: number;
  /** The new inner nodes children first, as hashNewNodes met them (persistInOrder numbers them in this order). */
  newNodeOrder: InnerNode[];
  /** The tree's persisted form, made by the first commit attempt (persistInOrder works in place), or by stage. */
  persisted?: PersistedTree;
  /**
   * Its history rows, updates' latest rows and tree pages are on disk already (written by stage, before the commit
   * point).
   */
  writtenEarly?: boolean;
  /** Its tree is being written out by the walk (Step C: the version only updates keys); gone once it is all out. */
  stream?: TreeStream;
  /** Pages a stream put before the walk met an insert or delete (the ordinary way's pages overwrite them all). */
  stalePages?: number;
}

/** What a walk reads and drives: the multistore's backend, hasher, caches and counters. */
export interface StoreWalkDeps {
  backend: KVBackend;
  leafHasher: LeafHasher;
  latestCache: LatestValueCache;
  nodes: NodeStore;
  /**
   * The version this store was imported at (0 if it never was): a key whose write 1 is at or before it has no history
   * row 1 until the commit that supersedes that write puts it (keepImportedFirstValue, putChangeRows' firstValue).
   */
  importedAt: number;
  /** Streams redone the ordinary way (the walk met an insert or a delete): diagnostics. */
  streamCounts: { redone: number };
}

/** Walks stores' writes at stage, the multistore's way. */
export class StoreWalker {
  private readonly deps: StoreWalkDeps;

  constructor(deps: StoreWalkDeps) {
    this.deps = deps;
  }

  /**
   * When write `i` supersedes `old`, an imported key's write 1 (whose history row an import leaves out), gives
   * `changes` that write's value for the row it now needs (commit-rows.ts, putChangeRows).
   */
  private keepImportedFirstValue(
    changes: StagedChanges,
    i: number,
    sid: number,
    w: PendingWrite | WriteView,
    old: LeafNode,
  ): void {
    if (old.writeNo !== 1 || old.version > this.deps.importedAt) return;
    const sk = w.sk ?? bytesToBinaryString(w.key);
    changes.setFirstValue(i, importedFirstValue(this.deps.backend, this.deps.latestCache, sid, w.key, sk, old.version));
  }

  /**
   * Applies `writes` (in key order) to `ws`'s tree at `version`, its leaves to the hasher, its rows to `batch` and its
   * history rows to `history` (the same batch but for a large version's early parts).
   */
  stageWrites(ws: WorkingStore, writes: SortedWrites, version: number, batch: KVBatch, history: RowSink): StagedStore {
    const stage = new StoreStage(ws, writes, version, this.deps.nodes.loader(ws.sid));
    this.applyWrites(stage, batch, history, batch, 0, undefined);
    return stage.staged();
  }

  /**
   * stageWrites for a large store: its history rows go into `parts`, and at each full part the walk awaits the older
   * part's write and starts this one's (at most two parts alive, one a part's bytes apart).
   */
  async stageWritesEarly(
    ws: WorkingStore,
    writes: SortedWrites,
    version: number,
    batch: KVBatch,
    parts: PartWriter,
  ): Promise<StagedStore> {
    const stage = new StoreStage(ws, writes, version, this.deps.nodes.loader(ws.sid));
    // Optimistic: streamed until a write turns out to insert or delete, then redone the ordinary way (Step A).
    let stream: TreeStream | undefined = new TreeStream(ws.sid, version, parts);
    let stalePages = 0;
    stage.tree.updatesOnly = true;
    const hasher = this.deps.leafHasher;
    for (let i = 0; i < writes.length; ) {
      try {
        i = this.applyWrites(stage, batch, parts, parts, i, parts, stream);
      } catch (err) {
        if (!(err instanceof NotAnUpdateError) || stream === undefined) throw err;
        stalePages = stream.pagesPut;
        stream = undefined;
        this.deps.streamCounts.redone++;
        i = indexOfKey(writes, err.key);
        this.replayUpdates(stage, i);
        continue;
      }
      if (stream !== undefined && i < writes.length && (parts.full || hasher.full)) {
        // Every leaf so far hashed (a new job for the rest), then what the walk is past written out.
        hasher.finish();
        hasher.begin(writes.length - i);
        stream.writeBefore(stage.tree.root, writeAt(writes, i).key);
      }
      if (parts.full) await parts.rotate();
    }
    const staged = stage.staged();
    staged.writtenEarly = true;
    staged.stream = stream;
    if (stalePages > 0) staged.stalePages = stalePages;
    return staged;
  }

  /**
   * A streamed store's walk met a write that is not an update (write `to`): its tree is rebuilt from the committed
   * one with the updates before it, whose rows and changelog entries are in already (they are the same either way).
   */
  private replayUpdates(stage: StoreStage, to: number): void {
    const tree = new TreeWriter(stage.base, stage.version, stage.loader);
    const { writes, changes, version } = stage;
    for (let j = 0; j < to; j++) {
      const writeNo = changes.setWriteNo(j);
      if (writeNo === 0) continue;
      const w = writeAt(writes, j);
      const leaf: LeafNode = { kind: 0, key: w.key, version, writeNo, hash: "" };
      this.deps.leafHasher.add(leaf, w.value as Uint8Array);
      tree.setLeaf(leaf);
    }
    stage.tree = tree;
  }

  /**
   * Applies writes from `from` on, until the end or until `parts` is full (or, with `stream`, the leaf hasher's job);
   * returns the next write's index. Rows go into `batch`, history rows into `history`, updates' latest rows into
   * `updates` (a large version's parts: Step B).
   */
  private applyWrites(
    stage: StoreStage,
    batch: KVBatch,
    history: RowSink,
    updates: RowSink,
    from: number,
    parts: PartWriter | undefined,
    stream?: TreeStream,
  ): number {
    const { tree, changes, changelog, writes, version } = stage;
    const hasher = this.deps.leafHasher;
    const sid = stage.sid;
    for (let i = from; i < writes.length; i++) {
      const w = writeAt(writes, i);
      if (w.value !== null) {
        const leaf: LeafNode = { kind: 0, key: w.key, version, writeNo: 0, hash: "" };
        hasher.add(leaf, w.value);
        const old = tree.setLeaf(leaf);
        let writeNo = 1;
        let prevVersion = 0;
        let clearsDeleted = false;
        if (old !== undefined) {
          writeNo = old.writeNo + 1;
          prevVersion = old.version;
        } else {
          const del = this.deps.backend.getSync(storeKey(TABLE.deleted, sid, w.key));
          if (del !== undefined) {
            const row = decodeLatestRow(del, false);
            clearsDeleted = true;
            writeNo = row.writeNo + 1;
            prevVersion = row.version;
          }
        }
        leaf.writeNo = writeNo;
        changes.set(i, writeNo, prevVersion, clearsDeleted);
        if (old !== undefined) this.keepImportedFirstValue(changes, i, sid, w, old);
        // Rows now, while the value is in the CPU's cache from packing its leaf (and the worker hashes).
        changes.putRows(i, batch, history, sid, version, changelog, updates);
      } else {
        const removed = tree.remove(w.key);
        if (removed === undefined) continue;
        changes.delete(i, removed.writeNo + 1, removed.version);
        this.keepImportedFirstValue(changes, i, sid, w, removed);
        changes.putRows(i, batch, history, sid, version, changelog, updates);
      }
      if (parts !== undefined && (parts.full || (stream !== undefined && hasher.full))) return i + 1;
    }
    return writes.length;
  }
}

/** One store's stage in progress: its tree writer, changes and changelog as the walk over its writes fills them. */
class StoreStage {
  readonly name: string;
  readonly sid: number;
  readonly writes: SortedWrites;
  readonly version: number;
  /** The committed tree the writes apply to, and its loader. */
  readonly base: TreeNode | undefined;
  readonly loader: NodeLoader;
  /** Replaced when a streamed walk is redone the ordinary way (replayUpdates). */
  tree: TreeWriter;
  readonly changes: StagedChanges;
  readonly changelog = new ChangelogWriter();

  constructor(ws: WorkingStore, writes: SortedWrites, version: number, loader: NodeLoader) {
    this.name = ws.name;
    this.sid = ws.sid;
    this.writes = writes;
    this.version = version;
    this.base = ws.root;
    this.loader = loader;
    this.tree = new TreeWriter(ws.root, version, loader);
    this.changes = new StagedChanges(writes);
  }

  /** The staged store once every write is applied (its hashes are set by stage()). */
  staged(): StagedStore {
    return {
      name: this.name,
      sid: this.sid,
      root: this.tree.root,
      rootHash: EMPTY_HASH, // set by stage() once every leaf is hashed
      changes: this.changes,
      changelog: this.changelog,
      orphans: this.tree.orphans,
      newNodes: 0, // set by stage() with the hashes
      newNodeOrder: [],
    };
  }
}

/** The index of `key` among `writes` (sorted by key; the key is one of them). */
function indexOfKey(writes: SortedWrites, key: Uint8Array): number {
  let lo = 0;
  let hi = writes.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareBytes(writeAt(writes, mid).key, key) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
