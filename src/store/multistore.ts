// The versioned multistore: named module stores over one KV backend, with per-version
// commitments, historical reads, proofs, pruning and store upgrades. README.md explains the design.

import { bytesToBinaryString, utf8 } from "../bytes/text.ts";
import { merklePath } from "../crypto/merkle.ts";
import { AheadBranch } from "./ahead-branch.ts";
import { committedRoot, hashNewNodes, loadPath, persistInOrder, rootHash } from "./avl-tree.ts";
import { BackgroundWork } from "./background.ts";
import { Branch, type BranchOwner } from "./branch.ts";
import { CacheLayer, keysOf, type SortedWrites } from "./cache-layer.ts";
import { type CommittedState, readCommittedState } from "./committed-state.ts";
import {
  DataDirectoryCorruptError,
  FutureVersionError,
  InvalidVersionError,
  PrunedVersionError,
  StoreError,
  StoreNotFoundError,
  StoreUsageError,
  VersionLimitError,
} from "./errors.ts";
import { LatestSource, readCached, VersionSource } from "./flat-state.ts";
import { EMPTY_HASH } from "./hash.ts";
import { changelogKey, commitKey, FORMAT_MARKER, META, metaKey } from "./keys.ts";
import { type KVBackend, type KVBatch, openLevelBackend, openMemoryBackend } from "./kv-backend.ts";
import type { KVSource } from "./kv-source.ts";
import { DEFAULT_LATEST_CACHE_BYTES, LatestValueCache } from "./latest-cache.ts";
import { LeafHasher } from "./leaf-hasher.ts";
import { encodePartialVersion, partialVersionKey, undoLatestRowsAfter } from "./lost-latest-rows.ts";
import { deletePagesAfter } from "./lost-pages.ts";
import { appHash, appHashItems } from "./merkle.ts";
import { DEFAULT_NODE_CACHE_SIZE, NodeStore } from "./node-store.ts";
import { PageBatch } from "./page-batch.ts";
import { repairLatestPages } from "./page-repair.ts";
import { DROPPED_ROWS, PartWriter } from "./part-writer.ts";
import { proveMultistore, storeRootOp } from "./proofs.ts";
import { earliestAfterCommit, type ResolvedPruning, resolvePruning } from "./pruning.ts";
import { ReadOnlyStore } from "./read-only-store.ts";
import {
  ChangelogWriter,
  type CommitRecord,
  decodeCommit,
  decodeVersion,
  encodeCommit,
  encodeRegistry,
  encodeSidList,
  encodeVersion,
  type StoreCommit,
  type StoreRegistry,
} from "./records.ts";
import { markWrites, type StagedAhead, sameWrites } from "./staged-ahead.ts";
import { type StagedStore, StoreWalker, type WorkingStore } from "./store-walk.ts";
import { type InnerNode, PAGE_NODES, sizeOf, type TreeNode } from "./tree-node.ts";
import type {
  BranchMultiStore,
  CommitInfo,
  CommitMultiStore,
  ProofOpLike,
  PruningOptions,
  ReadableKVStore,
  StoreProof,
  StoreUpgrades,
  VersionView,
} from "./types.ts";
import { planStores } from "./upgrades.ts";
import { MAX_VERSION } from "./version-limit.ts";

/**
 * Pages encoded between two looks at whether the commit's write is over (~25 µs each): the commit
 * resolves at most about a slice after its write does.
 */
const PAGES_PER_SLICE = 16;

/**
 * A version's tree pages past this many bytes are written in parts of about this size, each synced, through one
 * batch (KVBatch.writePart): LevelDB's memtable (8 MiB for the state store) then flushes as the parts come, and the
 * batch's buffer stays at one part, where one batch of a 1,000,000-key version's ~100 MB of pages held that much in
 * the batch and as much again in the memtable it went into (docs/PERFORMANCE.md, "The one handler's stage and
 * commit, measured"). Every block of an ordinary size writes its pages in one part, as before. 4 MiB, half the
 * memtable, since round 3 session 25: a 1M-record one handler's early parts (history rows, pages) peaked 35–65 MiB
 * lower than with 8 MiB parts, in the same block time; 2 MiB saved nothing more (docs/PERFORMANCE.md, "Early parts of
 * 4 MiB").
 */
export const PAGE_WRITE_PART_BYTES = 4 << 20;

/**
 * A store staging at least this many writes in one version writes its history rows and its tree pages before the
 * commit point, in parts of `pageWritePartBytes`, each synced (README "A large version's memory", Step A): the
 * version's batch then holds only its latest and deleted rows, changelog and commit info. Below it, a version is
 * written as before. A migration's handler rewriting 1,000,000 records takes this way; a block's writes, a
 * stepped migration's step (45,000) or the big state's blocks (50,000 accounts) do not.
 */
export const EARLY_WRITE_THRESHOLD = 100_000;

/** Options of openMultiStore. */
export interface OpenMultiStoreOptions {
  /** LevelDB directory (the default backend). Required unless `backend` is "memory". */
  path?: string;
  /** "leveldb" (default, on disk at `path`) or "memory" (nothing persisted; for tests). */
  backend?: "leveldb" | "memory";
  /** The module stores the app declares. */
  storeNames: string[];
  /** Pruning as in app.toml (default strategy "default"). */
  pruning?: PruningOptions;
  /**
   * Store upgrades applied atomically with the next commit. A function is called with the last
   * committed version once the store is read, so a store loader can apply upgrades only when the
   * next commit is the upgrade height (docs/CONTRACT.md §2.6); it returns undefined for none.
   */
  upgrades?: StoreUpgrades | ((lastCommitted: bigint) => StoreUpgrades | undefined);
  /** Create the directory when missing (default true); false turns a missing directory into an error. */
  createIfMissing?: boolean;
  /** Version of the first commit of a fresh store (genesis initial height; default 1). */
  initialVersion?: bigint;
  /** Flush each commit to stable storage before it resolves (default true). */
  sync?: boolean;
  /**
   * Inner nodes of each store's commitment tree kept in memory (default {@link DEFAULT_NODE_CACHE_SIZE}).
   */
  nodeCacheSize?: number;
  /**
   * Hash a large commit's leaves partly on a worker thread (default true; never on a one-core
   * machine). The hashes are the same either way.
   */
  leafHashWorker?: boolean;
  /** Rows deleted per pruning or reclamation batch (default 5,000). */
  backgroundBatchSize?: number;
  /**
   * Memory for the latest-value cache, in bytes over every store (default 32 MiB, ~100k keys of the
   * size the IAVL bench uses; 0 turns it off): the latest rows of keys read recently, so a read at the
   * latest version is a Map lookup (README "Reads").
   */
  latestCacheBytes?: number;
  /** The size of the parts a large version's tree pages are written in (default {@link PAGE_WRITE_PART_BYTES}; tests). */
  pageWritePartBytes?: number;
  /**
   * A store's writes in one version from which its history rows and pages are written before the commit point
   * (default {@link EARLY_WRITE_THRESHOLD}; tests set it small). Never for a store's first version.
   */
  earlyWriteThreshold?: number;
  /**
   * Called (synchronously) when a stage takes the early way, before its walk: the node asks V8 for a full, memory-
   * reducing collection there (src/runtime/build-app.ts). A stage that streams its tree keeps little of V8's heap, but
   * V8 grows the heap over the garbage a large block left (an upgrade handler's records) until its next collection,
   * and keeps those pages: collected first, the stage runs in pages the garbage held (README "A large version's
   * memory", Step C).
   */
  beforeEarlyStage?: () => void;
}

/** One store's part of a commit once its nodes are numbered. */
interface PersistedStore {
  sid: number;
  root: TreeNode | undefined;
  nodes: InnerNode[];
  orphans: number[];
  /** Its pages were written by stage (they are durable: nothing to write or pin after the commit). */
  pagesWritten: boolean;
}

/** A committed version whose tree pages are not durable yet. */
interface PendingPages {
  version: number;
  /** The stores with new nodes (pinned in the node store until written; their pages are encoded from them). */
  stores: PersistedStore[];
  error?: unknown;
}

interface Staged {
  version: number;
  appHash: Uint8Array;
  stores: StagedStore[];
  /**
   * The version's batch with every store's flat rows already in it (stage puts them as it goes, while
   * the worker hashes leaves); taken by the first commit attempt, rebuilt from `changes` by a retry.
   */
  batch: KVBatch | undefined;
}

/** The multistore, also exported for callers that want its extra members (idle, pruning state). */
export class MultiStore implements CommitMultiStore, BranchOwner {
  readonly backend: KVBackend;
  private readonly nodes: NodeStore;
  /** The latest rows of keys read recently (latest-cache.ts): valid at `latest`, kept so by every commit. */
  private readonly latestCache: LatestValueCache;
  private readonly pruning: ResolvedPruning;
  private readonly sync: boolean;
  private readonly pageWritePartBytes: number;
  private readonly earlyWriteThreshold: number;
  private readonly beforeEarlyStage: (() => void) | undefined;
  private firstVersion: number;
  private readonly background: BackgroundWork;

  private latest: number;
  private earliest: number;
  private lastRecord: CommitRecord;
  private registry: StoreRegistry;
  /** Registry to write with the next commit (fresh state or store upgrades). */
  private plannedRegistry: StoreRegistry | undefined;
  private plannedDeletes: number[] = [];
  private reclaim: number[];
  private readonly working = new Map<string, WorkingStore>();
  private sortedNames: string[] = [];
  private staged: Staged | undefined;
  /**
   * A stage is running: from its branch's writes into the working stores until it resolves (it awaits a running
   * pruning batch first, and an early stage its parts' writes).
   */
  private staging = false;
  /**
   * The staged version whose commit's batch write failed (undefined once a commit succeeds): the write may have
   * been applied all the same, and then that version can be committed again but not discarded (discardStaged).
   */
  private commitWriteFailed: number | undefined;
  /**
   * Tree pages of a version after the latest may be on disk (a discarded or failed stage wrote some): the next
   * commit or early stage deletes them first (lost-pages.ts), if the discard's own deletion has not.
   */
  private lostPages = false;
  /**
   * Latest rows of a version after the latest may be on disk (a discarded or failed large stage wrote its updates'
   * rows early): undone (lost-latest-rows.ts) before the lost pages go and before anything else is written; until
   * then the working set reads the latest version row by row with version checks.
   */
  private lostRows = false;
  private closed = false;
  private readonly commitCache = new Map<number, CommitRecord>();
  /** Each store's proof op up to the app hash, per commit record (a record never changes; it goes when the record does). */
  private readonly storeOps = new WeakMap<CommitRecord, Map<number, ProofOpLike>>();
  /** Hashes the leaves a commit writes, on a worker thread beside this one (started at the first large commit). */
  private readonly leafHasher: LeafHasher;
  /** One store's walk over its writes at stage (store-walk.ts). */
  private readonly walker: StoreWalker;
  /** Versions a reader (a snapshot export) holds: pruning never moves the earliest version past them. */
  private readonly holds = new Map<number, number>();
  /** Store ids whose latest tree pages opening had to rebuild (a crash between a commit's two writes). */
  pagesRebuiltAtOpen: readonly number[] = [];
  /** Tree pages of versions after the latest that opening deleted (a crash after a large version's early parts). */
  lostPagesDeletedAtOpen = 0;
  /** Latest rows of a version after the latest that opening put back (a crash after a large version's early parts). */
  latestRowsUndoneAtOpen = 0;
  /** The last commit's tree pages while their write is pending or failed. */
  private pendingPages: PendingPages | undefined;
  /** The last page write started (never rejects). */
  private pagesWrite: Promise<void> = Promise.resolve();
  /** One store's commit staged ahead of the next block ({@link stageAhead}), until the next stage takes or drops it. */
  private stagedAhead: StagedAhead<StagedStore> | undefined;
  /** Commits staged ahead that a stage took, and those it dropped (the block's writes were not the same). */
  readonly stagedAheadCounts = { taken: 0, dropped: 0 };
  /**
   * Large stores whose tree stage streamed (their version only updated keys: Step C), streams redone the ordinary way
   * (the walk met an insert or a delete), and the pages streams wrote while their walk went on (diagnostics, for tests).
   */
  readonly streamCounts = { streamed: 0, redone: 0, pagesDuringWalk: 0 };

  private constructor(backend: KVBackend, options: OpenMultiStoreOptions, state: Omit<CommittedState, "fresh">) {
    this.backend = backend;
    this.nodes = new NodeStore(backend, options.nodeCacheSize ?? DEFAULT_NODE_CACHE_SIZE);
    this.latestCache = new LatestValueCache(options.latestCacheBytes ?? DEFAULT_LATEST_CACHE_BYTES);
    this.pruning = resolvePruning(options.pruning);
    this.sync = options.sync ?? true;
    this.pageWritePartBytes = Math.max(1, options.pageWritePartBytes ?? PAGE_WRITE_PART_BYTES);
    this.earlyWriteThreshold = Math.max(1, options.earlyWriteThreshold ?? EARLY_WRITE_THRESHOLD);
    this.beforeEarlyStage = options.beforeEarlyStage;
    this.leafHasher = new LeafHasher(options.leafHashWorker ?? true);
    this.firstVersion = Math.max(1, Number(options.initialVersion ?? 1n));
    this.latest = state.latest;
    this.latestCache.version = state.latest;
    this.earliest = state.earliest;
    this.lastRecord = state.record;
    this.registry = state.registry;
    this.reclaim = state.reclaim;
    this.walker = new StoreWalker({
      backend,
      leafHasher: this.leafHasher,
      latestCache: this.latestCache,
      nodes: this.nodes,
      importedAt: state.importedAt,
      streamCounts: this.streamCounts,
    });
    this.background = new BackgroundWork(backend, options.backgroundBatchSize ?? 5000, {
      earliest: () => this.earliest,
      reclaimList: () => this.reclaim,
      setReclaimList: (sids) => {
        this.reclaim = sids;
      },
      pagesPending: () => this.pendingPages !== undefined,
      stagedWrites: (sid, key) => this.stagedWrites(sid, key),
    });
  }

  /** Opens the store (see openMultiStore). */
  static async open(options: OpenMultiStoreOptions): Promise<MultiStore> {
    if (options === null || typeof options !== "object") throw new TypeError("openMultiStore: options are required");
    if (!Array.isArray(options.storeNames)) throw new TypeError("openMultiStore: storeNames must be a list of names");
    // Reject bad pruning settings before touching the disk.
    resolvePruning(options.pruning);
    if (
      options.initialVersion !== undefined &&
      (typeof options.initialVersion !== "bigint" || options.initialVersion < 0n)
    ) {
      throw new TypeError(
        `openMultiStore: initialVersion must be a non-negative bigint, got ${String(options.initialVersion)}`,
      );
    }
    let backend: KVBackend;
    if (options.backend === "memory") {
      backend = await openMemoryBackend();
    } else {
      if (typeof options.path !== "string" || options.path.length === 0) {
        throw new TypeError('openMultiStore: path (the data directory) is required unless backend is "memory"');
      }
      backend = await openLevelBackend(options.path, { createIfMissing: options.createIfMissing ?? true });
    }
    try {
      const state = await readCommittedState(backend);
      const store = new MultiStore(backend, options, state);
      if (!state.fresh) {
        // A crash after a large version's early parts leaves its updates' latest rows (undone first: page repair
        // reads the latest version's rows) and pages of a version after the latest.
        store.latestRowsUndoneAtOpen = await undoLatestRowsAfter(backend, state.latest, store.sync);
        store.lostPagesDeletedAtOpen = await deletePagesAfter(backend, state.latest, store.sync);
        // A crash between a commit's two writes leaves the latest version without its tree pages.
        store.pagesRebuiltAtOpen = await repairLatestPages(backend, store.nodes, state.record, store.sync);
      }
      const upgrades =
        typeof options.upgrades === "function" ? options.upgrades(BigInt(state.latest)) : options.upgrades;
      store.mount(options.storeNames, upgrades, state.fresh);
      store.background.start(state.latest > 0);
      return store;
    } catch (err) {
      await backend.close();
      throw err;
    }
  }

  private mount(declared: string[], upgrades: StoreUpgrades | undefined, fresh: boolean): void {
    const nextVersion = this.latest === 0 ? this.firstVersion : this.latest + 1;
    const plan = planStores(this.registry, declared, upgrades, nextVersion, fresh);
    const roots = new Map(this.lastRecord.stores.map((s) => [s.sid, s.root]));
    for (const { name, sid } of plan.registry.mounted) {
      const layer = new CacheLayer(new LatestSource(this.backend, sid, this.latestCache, () => this.lostRows), () =>
        this.assertWritable(),
      );
      this.working.set(name, { name, sid, root: roots.get(sid), layer });
    }
    this.sortedNames = plan.registry.mounted.map((m) => m.name);
    if (plan.changed) {
      this.plannedRegistry = plan.registry;
      this.plannedDeletes = plan.deletedSids;
    }
  }

  // ---- BranchOwner ------------------------------------------------------------------------

  assertOpen(): void {
    if (this.closed) throw new StoreUsageError("the state store is closed");
  }

  assertWritable(): void {
    this.assertOpen();
    if (this.staging)
      throw new StoreUsageError("a version is being staged; wait for stage() before writing more changes");
    if (this.staged !== undefined) {
      throw new StoreUsageError(
        `version ${this.staged.version} is staged; call commit() or discardStaged() before writing more changes`,
      );
    }
  }

  workingLayer(name: string): CacheLayer {
    const ws = this.working.get(name);
    if (ws === undefined) throw new StoreNotFoundError(name, this.sortedNames);
    return ws.layer;
  }

  storeNames(): string[] {
    return [...this.sortedNames];
  }

  newLayer(parent: KVSource): CacheLayer {
    return new CacheLayer(parent);
  }

  // ---- CommitMultiStore ---------------------------------------------------------------------

  lastCommit(): CommitInfo {
    return { version: BigInt(this.latest), appHash: this.lastRecord.appHash };
  }

  /**
   * Upstream's SetInitialVersion: the first commit of a fresh store becomes `version` (a genesis
   * `initial_height` above 1, e.g. a chain restarted from an exported genesis). Refused once anything
   * is committed or staged, since versions already written cannot move.
   */
  setInitialVersion(version: bigint): void {
    if (typeof version !== "bigint" || version < 1n || version > MAX_VERSION) {
      throw new StoreUsageError(
        `setInitialVersion: expected a version from 1 to ${MAX_VERSION}, got ${String(version)}`,
      );
    }
    if (this.latest !== 0 || this.staged !== undefined) {
      throw new StoreUsageError(
        `setInitialVersion(${version}): the store already holds version ${this.latest === 0 ? this.staged?.version : this.latest}`,
      );
    }
    this.firstVersion = Number(version);
  }

  earliestVersion(): bigint {
    return BigInt(this.latest === 0 ? 0 : this.earliest);
  }

  branch(): BranchMultiStore {
    this.assertOpen();
    return new Branch(this, undefined);
  }

  /**
   * Loads into the node cache the committed tree nodes on the paths to `keys` in store `name`: work done ahead of a
   * block (the ahead branch's `warm`), so that staging those writes finds the nodes in memory instead of reading
   * their pages. Reads only; nothing when a version is staged (its tree is not the committed one).
   */
  warmTreePaths(name: string, keys: Iterable<Uint8Array>): void {
    this.assertOpen();
    const ws = this.working.get(name);
    if (ws === undefined || this.staged !== undefined || this.staging) return;
    const loader = this.nodes.loader(ws.sid);
    for (const key of keys) loadPath(loader, ws.root, key);
  }

  /**
   * Stages the commit of `writes` (store `name`'s writes, in key order) ahead of the block they belong to: work done
   * ahead of a block (the ahead branch's `warm`). The tree updates, the hashes and the flat rows are done now, and
   * the next stage takes them instead of doing them when that block's writes to the store are exactly these and
   * nothing else changed (staged-ahead.ts); else it drops them. Only the loads of the tree nodes, when it cannot
   * stage (a version staged, a background batch running) or staging fails (the block's stage reports that itself).
   */
  stageAhead(name: string, writes: SortedWrites): void {
    this.assertOpen();
    const ws = this.working.get(name);
    // A stage in progress owns the leaf hasher and the working trees.
    if (this.staging) return;
    this.dropStagedAhead();
    if (ws === undefined || this.staged !== undefined) return;
    const rowsMark = this.background.rowsMark();
    const version = this.latest + 1;
    if (this.latest === 0 || rowsMark === undefined || BigInt(this.latest) >= MAX_VERSION || writes.length === 0) {
      this.warmTreePaths(name, keysOf(writes));
      return;
    }
    const batch = this.backend.batch();
    let store: StagedStore;
    try {
      this.leafHasher.begin(writes.length);
      try {
        store = this.walker.stageWrites(ws, writes, version, batch, batch);
      } finally {
        this.leafHasher.finish();
      }
      store.newNodes = hashNewNodes(store.root, store.newNodeOrder);
      store.rootHash = rootHash(store.root, EMPTY_HASH);
    } catch {
      void batch.close();
      return;
    }
    const mark = markWrites(writes);
    this.stagedAhead = { name, sid: ws.sid, version, base: ws.root, rowsMark, mark, store, batch };
  }

  /** The commit staged ahead when it stands for `ws`'s writes at `version` (taken: used once), else undefined. */
  private takeStagedAhead(ws: WorkingStore, version: number): StagedStore | undefined {
    const ahead = this.stagedAhead;
    if (
      ahead === undefined ||
      ahead.name !== ws.name ||
      ahead.sid !== ws.sid ||
      ahead.version !== version ||
      ahead.base !== ws.root ||
      !this.background.rowsUnchangedSince(ahead.rowsMark) ||
      !sameWrites(ahead, ws.layer)
    ) {
      return undefined;
    }
    this.stagedAhead = undefined;
    this.stagedAheadCounts.taken++;
    return ahead.store;
  }

  private dropStagedAhead(): void {
    if (this.stagedAhead === undefined) return;
    this.stagedAheadCounts.dropped++;
    void this.stagedAhead.batch.close();
    this.stagedAhead = undefined;
  }

  aheadBranch(): AheadBranch {
    this.assertOpen();
    return new AheadBranch(this);
  }

  async stage(writes: BranchMultiStore): Promise<CommitInfo> {
    this.assertOpen();
    if (this.staging) throw new StoreUsageError("a version is being staged already");
    if (this.staged !== undefined) {
      throw new StoreUsageError(
        `version ${this.staged.version} is already staged; call commit() or discardStaged() first`,
      );
    }
    if (!(writes instanceof Branch) || writes.owner !== this) {
      throw new StoreUsageError("stage() takes a branch made by this store's branch()");
    }
    if (writes.parent !== undefined) {
      throw new StoreUsageError("stage() takes a top-level branch (from branch()), not a nested one");
    }
    // Past the limit `latest + 1` would round back onto `latest`: refuse before anything is written.
    if (BigInt(this.latest) >= MAX_VERSION) throw new VersionLimitError(BigInt(this.latest), MAX_VERSION);
    writes.write();
    // From here until the commit or a discard pruning keeps the deleted rows of the keys this version writes
    // (BackgroundHost.stagedWrites); a batch running now may be deleting rows the walk reads, so it ends first.
    this.staging = true;
    try {
      await this.background.batchEnded();
      return await this.stageWritten();
    } finally {
      this.staging = false;
    }
  }

  /** Whether the version being staged or staged writes `key` of store `sid` (for pruning: BackgroundHost). */
  private stagedWrites(sid: number, key: Uint8Array): boolean {
    if (!this.staging && this.staged === undefined) return false;
    for (const ws of this.working.values()) if (ws.sid === sid) return ws.layer.hasWrite(key);
    return false;
  }

  /** stage() once the branch's writes are in the working stores. */
  private async stageWritten(): Promise<CommitInfo> {
    const version = this.latest === 0 ? this.firstVersion : this.latest + 1;
    const working = this.sortedNames.map((name) => this.working.get(name) as WorkingStore);
    // A store staged ahead of this block, when it stands: its rows are in its batch, which becomes the version's.
    const aheadName = this.stagedAhead?.name;
    const aheadBatch = this.stagedAhead?.batch;
    const aheadWs = working.find((ws) => ws.name === aheadName);
    const ahead = aheadWs === undefined ? undefined : this.takeStagedAhead(aheadWs, version);
    if (ahead === undefined) this.dropStagedAhead();
    let expected = 0;
    for (const ws of working) if (ws !== aheadWs || ahead === undefined) expected += ws.layer.size;
    const batch = ahead !== undefined && aheadBatch !== undefined ? aheadBatch : this.backend.batch();
    // A large store's history rows and pages go before the commit point (never a store's first version: a directory
    // with rows but no commit is refused at open as not a state store).
    const early =
      this.latest === 0
        ? []
        : working.filter((ws) => (ws !== aheadWs || ahead === undefined) && ws.layer.size >= this.earlyWriteThreshold);
    if (early.length > 0) {
      this.beforeEarlyStage?.();
      return await this.stageEarly(
        version,
        working,
        early,
        expected,
        batch,
        ahead === undefined ? undefined : aheadWs,
        ahead,
      );
    }
    // Leaves are hashed beside the tree updates (LeafHasher); inner nodes once they are all done.
    this.leafHasher.begin(expected);
    let stores: StagedStore[];
    try {
      stores = working.map((ws) =>
        ahead !== undefined && ws === aheadWs
          ? ahead
          : this.walker.stageWrites(ws, ws.layer.sortedWrites(), version, batch, batch),
      );
    } catch (err) {
      void batch.close();
      throw err;
    } finally {
      this.leafHasher.finish();
    }
    try {
      for (const s of stores) {
        if (s === ahead) continue;
        s.newNodes = hashNewNodes(s.root, s.newNodeOrder);
        s.rootHash = rootHash(s.root, EMPTY_HASH);
      }
    } catch (err) {
      void batch.close();
      throw err;
    }
    const hash = appHash(stores.map((s) => ({ name: s.name, root: s.rootHash })));
    this.staged = { version, appHash: hash, stores, batch };
    return { version: BigInt(version), appHash: hash };
  }

  /**
   * stage() for a version with large stores (`early`): their history rows are written in parts while the walk goes on,
   * then, once every hash is known, their nodes are numbered and their pages written in parts too; the stage resolves
   * when all of it is durable. One exclusive step (background.ts): it follows the previous commit's page write and no
   * pruning batch runs meanwhile (one could delete the deleted rows the walk reads write numbers from).
   */
  private async stageEarly(
    version: number,
    working: WorkingStore[],
    early: WorkingStore[],
    expected: number,
    batch: KVBatch,
    aheadWs: WorkingStore | undefined,
    ahead: StagedStore | undefined,
  ): Promise<CommitInfo> {
    return await this.background.exclusive(async () => {
      const parts = new PartWriter(this.backend, this.pageWritePartBytes, this.sync);
      try {
        this.assertOpen();
        // Rows and pages a discarded stage left: this version numbers its pages from 0.
        await this.clearLostVersion();
        // Its updates' latest rows go early (Step B): the marker first, in the first part, so that an open after
        // a crash undoes them; from now until the commit (or the undo) no reader takes a latest row on trust.
        parts.put(partialVersionKey(), encodePartialVersion({ version, sids: early.map((ws) => ws.sid) }));
        this.latestCache.commitStarted();
        const stores: StagedStore[] = [];
        this.leafHasher.begin(expected);
        try {
          for (const ws of working) {
            if (ws === aheadWs && ahead !== undefined) stores.push(ahead);
            else if (early.includes(ws)) {
              stores.push(await this.walker.stageWritesEarly(ws, ws.layer.sortedWrites(), version, batch, parts));
            } else stores.push(this.walker.stageWrites(ws, ws.layer.sortedWrites(), version, batch, batch));
          }
        } finally {
          this.leafHasher.finish();
        }
        for (const s of stores) {
          if (s === ahead) continue;
          const stream = s.stream;
          if (stream !== undefined) {
            this.streamCounts.pagesDuringWalk += stream.pagesPut;
            // What the walk did not write out, its root last; the commit keeps the root as a stub, nothing else.
            s.root = stream.finish(s.root);
            s.newNodes = stream.count;
            s.persisted = { nodes: [], root: s.root };
            s.stream = undefined;
            this.streamCounts.streamed++;
            if (parts.full) await parts.rotate();
          } else s.newNodes = hashNewNodes(s.root, s.newNodeOrder);
          s.rootHash = rootHash(s.root, EMPTY_HASH);
        }
        // The other large stores' pages, in parts after the history rows: numbered now (the commit keeps the
        // numbering), written in page order, a store's root page last.
        const paged: PersistedStore[] = [];
        for (const s of stores) {
          if (s.writtenEarly !== true || s.persisted !== undefined) continue;
          s.persisted = persistInOrder(s.root, version, s.newNodeOrder);
          paged.push({
            sid: s.sid,
            root: s.persisted.root,
            nodes: s.persisted.nodes,
            orphans: [],
            pagesWritten: true,
          });
        }
        const pages = new PageBatch(parts, version, paged);
        // A page at a time: a part ends at the first page that fills it.
        while (!pages.done) {
          pages.encode(1);
          if (parts.full) await parts.rotate();
        }
        // A redone stream's pages are all overwritten by the ordinary way's, in later parts: every node it numbered
        // (in a subtree left of where the walk was) is a new node of the final tree too, as a later insert or delete
        // removes only nodes on its own path and copies more. Checked, since a page left over would never be pruned.
        for (const s of stores) {
          if ((s.stalePages ?? 0) > Math.ceil(s.newNodes / PAGE_NODES)) {
            throw new Error(`internal: store ${s.sid}'s redone stream wrote pages past its own`);
          }
          s.stalePages = undefined;
        }
        await parts.finish();
        const hash = appHash(stores.map((s) => ({ name: s.name, root: s.rootHash })));
        this.staged = { version, appHash: hash, stores, batch };
        return { version: BigInt(version), appHash: hash };
      } catch (err) {
        await parts.abandon();
        void batch.close();
        // Its updates' latest rows are undone and its pages deleted (README "A large version's memory").
        this.latestCache.commitFailed();
        this.lostRows = true;
        this.lostPages = true;
        await this.clearLostVersion().catch(() => {});
        throw err;
      }
    });
  }

  /**
   * Undoes latest rows and deletes tree pages of a version after the latest when a discarded or failed stage may have
   * left some.
   */
  private async clearLostVersion(): Promise<void> {
    if (this.lostRows) {
      await undoLatestRowsAfter(this.backend, this.latest, this.sync);
      this.lostRows = false;
    }
    if (!this.lostPages) return;
    await deletePagesAfter(this.backend, this.latest, this.sync);
    this.lostPages = false;
  }

  async commit(): Promise<CommitInfo> {
    this.assertOpen();
    const result = await this.background.exclusive((after) => this.writeStaged(after));
    this.background.kick();
    return result;
  }

  /**
   * Writes the staged version in two batches. The first (synced) holds everything a restart and a
   * read need but the version's tree pages: rows, changelog, commit info, metadata. While the disk
   * works this thread numbers the new nodes; the commit resolves once the first batch is durable.
   * The pages are encoded and written (synced) after that, in a later turn of the event loop: their
   * encoding was the longest part of a large commit, and nothing needs them before the next
   * exclusive step (commit, pruning, reclamation, close), which `after` makes wait for them. The
   * version's nodes stay pinned in memory until their pages are durable. A crash between the two
   * writes leaves the latest version without pages; opening rebuilds them (page-repair.ts).
   */
  private async writeStaged(after: (trailing: Promise<unknown>) => void): Promise<CommitInfo> {
    this.assertOpen();
    const staged = this.staged;
    if (staged === undefined) throw new StoreUsageError("nothing is staged; call stage() before commit()");
    const v = staged.version;
    // This version's tree refers to the previous one's pages: they must be on disk before it is.
    await this.retryPendingPages(`failed to write version ${v} to the state store`);
    // A discarded stage's rows and pages at this height: gone before this version's are written (or it is committed).
    try {
      await this.clearLostVersion();
    } catch (err) {
      throw new StoreError("STORE_COMMIT_FAILED", `failed to write version ${v} to the state store`, { cause: err });
    }
    // The batch stage filled, once: a failed write may have consumed it, so a retry starts afresh.
    let batch = staged.batch;
    staged.batch = undefined;
    const rebuild = batch === undefined;
    if (batch === undefined) batch = this.backend.batch();
    const storeCommits: StoreCommit[] = [];
    for (const s of staged.stores) {
      let changelog = s.changelog;
      if (rebuild) {
        changelog = new ChangelogWriter();
        // A large version's history rows are on disk since its stage.
        s.changes.putAllRows(batch, s.writtenEarly === true ? DROPPED_ROWS : batch, s.sid, v, changelog);
      }
      if (!changelog.isEmpty(s.orphans)) batch.put(changelogKey(v, s.sid), changelog.finish(s.orphans));
      const root = committedRoot(s.root, v, s.newNodes);
      storeCommits.push({ name: s.name, sid: s.sid, root, rootHash: s.rootHash });
    }
    // Its updates' latest rows are on disk since its stage: from now on they are the latest version's.
    if (staged.stores.some((s) => s.writtenEarly === true)) batch.del(partialVersionKey());
    const record: CommitRecord = { version: v, appHash: staged.appHash, stores: storeCommits };
    batch.put(commitKey(v), encodeCommit(record));
    batch.put(metaKey(META.latest), encodeVersion(v));
    let earliest = this.latest === 0 ? v : this.earliest;
    earliest = earliestAfterCommit(v, this.pruning, earliest) ?? earliest;
    for (const held of this.holds.keys()) if (held < earliest) earliest = Math.max(held, this.earliest);
    if (earliest !== this.earliest || this.latest === 0) {
      batch.put(metaKey(META.earliest), encodeVersion(earliest));
    }
    if (this.latest === 0) batch.put(metaKey(META.format), utf8(FORMAT_MARKER));
    const registry = this.plannedRegistry;
    let reclaim = this.reclaim;
    if (registry !== undefined) {
      batch.put(metaKey(META.stores), encodeRegistry(registry));
      if (this.plannedDeletes.length > 0) {
        reclaim = [...this.reclaim, ...this.plannedDeletes];
        batch.put(metaKey(META.reclaim), encodeSidList(reclaim));
      }
    }

    this.latestCache.commitStarted();
    let persisted: PersistedStore[] = [];
    let numberError: unknown;
    let pages: PageBatch | undefined;
    try {
      const written = batch.write(this.sync);
      let writeOver = false;
      const over = () => {
        writeOver = true;
      };
      written.then(over, over);
      // While the disk works: the new nodes are numbered, then the replaced nodes leave the cache (safe
      // before success, see dropReplaced). Nothing here may skip the wait below: the write is in flight.
      try {
        persisted = this.persistStores(staged);
        for (const p of persisted) this.nodes.dropReplaced(p.sid, p.orphans);
      } catch (err) {
        numberError = err;
      }
      // Then the pages, a slice a turn, for as long as the write lasts (the rest after the commit), at most
      // their first part.
      if (numberError === undefined) {
        pages = new PageBatch(
          this.backend.batch(),
          v,
          persisted.filter((p) => !p.pagesWritten),
        );
        const partLimit = this.pagePartLimit(pages.batch);
        while (!writeOver && !pages.done && pages.partBytes < partLimit) {
          try {
            pages.encode(PAGES_PER_SLICE, partLimit);
          } catch {
            // Left to the encoding after the commit, which keeps the pages pending if it fails too.
            void pages.batch.close();
            pages = undefined;
            break;
          }
          await new Promise<void>((resolve) => setImmediate(resolve));
        }
      }
      await written;
    } catch (err) {
      this.latestCache.commitFailed();
      this.commitWriteFailed = v;
      if (pages !== undefined) void pages.batch.close();
      throw new StoreError("STORE_COMMIT_FAILED", `failed to write version ${v} to the state store`, { cause: err });
    }
    if (numberError !== undefined) {
      this.commitWriteFailed = v;
      // The version is on disk without its pages (as after a crash between the two writes): a retry
      // writes it again whole, and a restart would rebuild the pages.
      this.latestCache.commitFailed();
      throw new StoreError("STORE_COMMIT_FAILED", `failed to number the tree nodes of version ${v}`, {
        cause: numberError,
      });
    }
    // From here on everything is synchronous: readers never see a half-switched state.
    for (const p of persisted) {
      this.nodes.insert(p.sid, v, p.nodes);
      if (p.nodes.length > 0 && !p.pagesWritten) this.nodes.pin(p.sid, v, p.nodes);
    }
    const rootsBySid = new Map(persisted.map((p) => [p.sid, p.root]));
    for (const ws of this.working.values()) ws.root = rootsBySid.get(ws.sid);
    // In memory the record holds the roots themselves (the disk's holds their refs).
    this.lastRecord = { ...record, stores: storeCommits.map((c) => ({ ...c, root: rootsBySid.get(c.sid) })) };
    this.latest = v;
    this.commitWriteFailed = undefined;
    this.latestCache.commitDone(v, writtenKeys(staged.stores));
    // After the cache's drop: the staged changes name their keys through the layers' write lists.
    for (const ws of this.working.values()) ws.layer.clear();
    // A hold taken while the write was in flight (a snapshot export) keeps its version: the earliest in memory stays
    // at it. The disk's may be above it, which matters only after a restart, where no hold survives.
    for (const held of this.holds.keys()) if (held < earliest) earliest = Math.max(held, this.earliest);
    if (earliest !== this.earliest) {
      this.earliest = earliest;
      this.background.pruneTargetRaised();
    }
    if (registry !== undefined) {
      for (const sid of this.plannedDeletes) this.latestCache.dropStore(sid);
      this.registry = registry;
      this.plannedRegistry = undefined;
      this.plannedDeletes = [];
      this.reclaim = reclaim;
    }
    this.staged = undefined;
    this.pendingPages = { version: v, stores: persisted.filter((p) => p.nodes.length > 0 && !p.pagesWritten) };
    this.pagesWrite = this.writePendingPages(true, pages);
    after(this.pagesWrite);
    return { version: BigInt(v), appHash: staged.appHash };
  }

  /** Numbers each store's new nodes (once: a retry of the commit keeps them). */
  private persistStores(staged: Staged): PersistedStore[] {
    const v = staged.version;
    const out: PersistedStore[] = [];
    for (const s of staged.stores) {
      s.persisted ??= persistInOrder(s.root, v, s.newNodeOrder);
      out.push({
        sid: s.sid,
        root: s.persisted.root,
        nodes: s.persisted.nodes,
        orphans: s.orphans,
        pagesWritten: s.writtenEarly === true,
      });
    }
    return out;
  }

  /**
   * Encodes the pending pages from the pinned nodes and writes them. Right after a commit
   * (`afterCommit`) it takes the pages the commit's wait encoded (`started`) and, when some are left,
   * first lets the event loop turn, so the commit's caller goes on before the rest is encoded; when
   * none are left the write starts at once. Never rejects: a failure leaves them pending for the next
   * commit to retry (from scratch: a batch is written once).
   */
  private async writePendingPages(afterCommit = false, started?: PageBatch): Promise<void> {
    if (afterCommit && !started?.done) await new Promise<void>((resolve) => setImmediate(resolve));
    const pending = this.pendingPages;
    if (started !== undefined && (pending?.version !== started.version || pending.stores.length === 0)) {
      void started.batch.close();
      started = undefined;
    }
    if (pending === undefined) return;
    if (pending.stores.length === 0) {
      this.pendingPages = undefined;
      return;
    }
    const pages = started ?? new PageBatch(this.backend.batch(), pending.version, pending.stores);
    const batch = pages.batch;
    const partLimit = this.pagePartLimit(batch);
    for (;;) {
      try {
        pages.encode(Number.POSITIVE_INFINITY, partLimit);
      } catch (err) {
        void batch.close();
        pending.error = err;
        return;
      }
      if (pages.done) break;
      // A part, synced like the rest, before the next is encoded. Parts go in page order and the root's page is the
      // last one, so after a crash in between opening finds the root's page missing and rebuilds them all (page-repair.ts;
      // a rebuilt page is the same bytes); a part that failed leaves them pending, rewritten whole by the retry.
      try {
        await (batch.writePart as (sync: boolean) => Promise<void>)(this.sync);
      } catch (err) {
        void batch.close();
        pending.error = err;
        return;
      }
      pages.partWritten();
    }
    try {
      // Synced like the commit: the next version's write starts only after these pages are durable, so
      // at any crash only the latest version's pages can be missing.
      await batch.write(this.sync);
    } catch (err) {
      pending.error = err;
      return;
    }
    for (const p of pending.stores) this.nodes.unpin(p.sid, pending.version);
    this.pendingPages = undefined;
    // Pruning held back while they were pending.
    this.background.kick();
  }

  /** How many bytes of pages a part of `batch` holds: all of them when the batch cannot be written in parts. */
  private pagePartLimit(batch: KVBatch): number {
    return batch.writePart === undefined ? Number.POSITIVE_INFINITY : this.pageWritePartBytes;
  }

  /** Writes the last commit's pages again if their write failed; throws (`what` failed) if it fails again. */
  private async retryPendingPages(what: string): Promise<void> {
    if (this.pendingPages === undefined) return;
    await this.writePendingPages();
    const pending = this.pendingPages;
    if (pending === undefined) return;
    throw new StoreError(
      "STORE_COMMIT_FAILED",
      `${what}: the tree pages of version ${pending.version} could not be written`,
      { cause: pending.error },
    );
  }

  workBehindCommit(): Promise<void> {
    return this.pagesWrite.then(
      () => {},
      () => {},
    );
  }

  /**
   * Resolves once the last commit's tree pages are on disk: for readers that read pages without this
   * store's node cache (a snapshot export). Retries a failed page write.
   */
  async pagesDurable(): Promise<void> {
    this.assertOpen();
    await this.pagesWrite;
    if (this.pendingPages === undefined) return;
    await this.background.exclusive(() => this.retryPendingPages("failed to read the latest tree"));
  }

  discardStaged(): void {
    this.assertOpen();
    if (this.staging) throw new StoreUsageError("a version is being staged; wait for stage() before discarding it");
    const staged = this.staged;
    if (staged !== undefined && this.commitWriteFailed === staged.version && this.latestOnDisk() >= staged.version) {
      throw new StoreError(
        "STORE_COMMIT_FAILED",
        `version ${staged.version} cannot be discarded: its commit's write reported a failure but reached the ` +
          "state store all the same; retry commit(), or restart: the store then opens at that version",
      );
    }
    void staged?.batch?.close();
    this.staged = undefined;
    for (const ws of this.working.values()) ws.layer.clear();
    if (staged?.stores.some((s) => s.writtenEarly === true)) {
      // Its updates' latest rows and its pages are on disk: undone and deleted now, behind whatever exclusive step
      // runs (and by the next commit or early stage if this fails); until then the working set checks each row's
      // version. Its history rows stay: never read (README "A large version's memory").
      this.latestCache.commitFailed();
      this.lostRows = true;
      this.lostPages = true;
      void this.background.exclusive(() => this.clearLostVersion()).catch(() => {});
    }
  }

  /**
   * The latest version LevelDB holds (0 before the first commit). A commit whose write reported a failure may have
   * been applied all the same: then this says its version. (When LevelDB did not apply it, a failed sync makes it
   * refuse every later write, and a failed append leaves at most a torn log record, which its recovery drops.)
   */
  private latestOnDisk(): number {
    const bytes = this.backend.getSync(metaKey(META.latest));
    return bytes === undefined ? 0 : decodeVersion(bytes);
  }

  /** The version number a caller asked for, checked against what is retained. */
  private resolveVersion(version: bigint | undefined): number {
    if (version !== undefined && typeof version !== "bigint") {
      throw new TypeError(`version must be a bigint, got ${typeof version}`);
    }
    if (version !== undefined && version < 0n) throw new InvalidVersionError(version);
    if (version === undefined || version === 0n) return this.latest;
    if (version > BigInt(this.latest)) throw new FutureVersionError(version, BigInt(this.latest));
    const v = Number(version);
    this.checkRetained(v);
    return v;
  }

  private checkRetained(v: number): void {
    this.assertOpen();
    if (v !== 0 && v < this.earliest) {
      throw new PrunedVersionError(BigInt(v), BigInt(this.earliest), BigInt(this.latest));
    }
  }

  private commitRecord(v: number): CommitRecord {
    if (v === this.latest) return this.lastRecord;
    const cached = this.commitCache.get(v);
    if (cached !== undefined) return cached;
    const bytes = this.backend.getSync(commitKey(v));
    if (bytes === undefined) {
      // Pruning deletes commit infos only below the earliest version; anything else is damage.
      this.checkRetained(v);
      throw new DataDirectoryCorruptError(this.backend.location, `the commit info of version ${v} is missing`);
    }
    const record = decodeCommit(bytes);
    if (this.commitCache.size >= 64) {
      const oldest = this.commitCache.keys().next().value;
      if (oldest !== undefined) this.commitCache.delete(oldest);
    }
    this.commitCache.set(v, record);
    return record;
  }

  /** The store entry of `name` at a committed version; renamed stores answer to their new name too. */
  private storeAt(record: CommitRecord, name: string): StoreCommit {
    let entry = record.stores.find((s) => s.name === name);
    if (entry === undefined) {
      const current = this.registry.mounted.find((m) => m.name === name) ?? this.plannedSid(name);
      if (current !== undefined) entry = record.stores.find((s) => s.sid === current.sid);
    }
    if (entry === undefined) {
      throw new StoreNotFoundError(
        name,
        record.stores.map((s) => s.name),
        `store "${name}" not found at version ${record.version}; the stores at that version are: ${record.stores.map((s) => s.name).join(", ") || "(none)"}`,
      );
    }
    this.assertStoreKept(record, name, entry.sid);
    return entry;
  }

  /** Refuses a store a store upgrade deleted: its history goes from that commit on (reclamation removes its rows). */
  private assertStoreKept(record: CommitRecord, name: string, sid: number): void {
    const deleted = this.registry.deleted;
    if (deleted.length === 0) return;
    const gone = deleted.find((d) => d.sid === sid);
    if (gone !== undefined) {
      throw new StoreNotFoundError(
        name,
        record.stores.map((s) => s.name),
        `store "${name}" was deleted by a store upgrade at version ${gone.version}; its history is no longer kept`,
      );
    }
  }

  private plannedSid(name: string): { sid: number } | undefined {
    return this.plannedRegistry?.mounted.find((m) => m.name === name);
  }

  async view(version?: bigint): Promise<VersionView> {
    this.assertOpen();
    const v = this.resolveVersion(version);
    if (v === 0) return this.emptyView();
    const record = this.commitRecord(v);
    const names = record.stores.map((s) => s.name);
    return {
      version: BigInt(v),
      appHash: record.appHash,
      storeNames: () => [...names],
      store: (name: string): ReadableKVStore => {
        const entry = this.storeAt(record, name);
        const source = new VersionSource(
          this.backend,
          entry.sid,
          v,
          // A failed commit may have left its rows in LevelDB: the latest rows are then not all `latest`'s.
          () => v === this.latest && this.latestCache.settled,
          // Each read: the version may be pruned, or the store deleted by an upgrade, since the view was taken.
          () => {
            this.checkRetained(v);
            this.assertStoreKept(record, name, entry.sid);
          },
          this.latestCache,
        );
        return new ReadOnlyStore(source);
      },
      // Every inner node carries its leaf count (it is hashed into the node, as IAVL's size is), so a store's key
      // count at a version is its root's: O(1), where iterating a million-key store takes seconds.
      keyCount: (name: string): number => {
        const root = this.storeAt(record, name).root;
        return root === undefined ? 0 : sizeOf(root);
      },
    };
  }

  private emptyView(): VersionView {
    const names = this.storeNames();
    const empty: ReadableKVStore = {
      get: async () => undefined,
      has: async () => false,
      iterate: async function* () {},
    };
    return {
      version: 0n,
      appHash: new Uint8Array(0),
      storeNames: () => [...names],
      store: (name: string) => {
        if (!names.includes(name)) throw new StoreNotFoundError(name, names);
        return empty;
      },
      keyCount: (name: string) => {
        if (!names.includes(name)) throw new StoreNotFoundError(name, names);
        return 0;
      },
    };
  }

  async prove(name: string, key: Uint8Array, version?: bigint): Promise<StoreProof> {
    this.assertOpen();
    if (!(key instanceof Uint8Array) || key.length === 0)
      throw new TypeError("prove: key must be a non-empty Uint8Array");
    const v = this.resolveVersion(version);
    if (v === 0) throw new StoreUsageError("nothing is committed yet; there is no state to prove");
    const record = this.commitRecord(v);
    const entry = this.storeAt(record, name);
    const exact = v === this.latest && this.latestCache.settled;
    const valueAt = (k: Uint8Array): Uint8Array => {
      const value = readCached(this.backend, this.latestCache, entry.sid, k, bytesToBinaryString(k), v, exact);
      if (value === undefined) {
        throw new DataDirectoryCorruptError(
          this.backend.location,
          `a key in the tree of "${name}" has no value at ${v}`,
        );
      }
      return value;
    };
    const value = readCached(this.backend, this.latestCache, entry.sid, key, bytesToBinaryString(key), v, exact);
    return proveMultistore({
      storeName: entry.name,
      key,
      value,
      version: BigInt(v),
      root: entry.root,
      rootHash: entry.rootHash,
      loader: this.nodes.loader(entry.sid),
      valueAt,
      storeOp: this.storeOp(record, entry),
    });
  }

  /**
   * The `ics23:simple` op of a store at `record`'s version (its root up to the app hash): the same for every
   * proof at that version, so it is built once per record and store (the items' leaf hashes, the path above
   * them and the op's encoding).
   */
  private storeOp(record: CommitRecord, entry: StoreCommit): ProofOpLike {
    let ops = this.storeOps.get(record);
    if (ops === undefined) {
      ops = new Map();
      this.storeOps.set(record, ops);
    }
    let op = ops.get(entry.sid);
    if (op === undefined) {
      const { items } = appHashItems(record.stores.map((s) => ({ name: s.name, root: s.rootHash })));
      const path = merklePath(
        items,
        record.stores.findIndex((s) => s.sid === entry.sid),
      );
      op = storeRootOp(entry.name, entry.rootHash, path);
      ops.set(entry.sid, op);
    }
    return op;
  }

  /** Resolves once background pruning and reclamation have nothing left to do. */
  async idle(): Promise<void> {
    // The last commit's page write first: background work waits for it (BackgroundWork.hasWork), so without this an
    // idle() right after a commit returned before the pruning or reclamation that commit started.
    await this.background.settled();
    await this.background.idle();
    await this.background.settled();
  }

  /** Compacts the backend (e.g. after pruning or deleting a large store); waits for pending batches first. */
  async compact(): Promise<void> {
    this.assertOpen();
    await this.background.idle();
    await this.background.exclusive(() => this.backend.compact());
  }

  /**
   * Keeps `version` readable until the returned release function is called: pruning will not raise
   * the earliest version past it (a snapshot export reading that version must never see it pruned).
   * Throws PrunedVersionError / FutureVersionError like view().
   */
  retainVersion(version: bigint): () => void {
    const v = this.resolveVersion(version);
    // Nothing committed yet (version 0 is the empty state): nothing to keep, and a hold of 0 would write 0 as the
    // earliest version at the first commit.
    if (v === 0) return () => {};
    this.holds.set(v, (this.holds.get(v) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const n = (this.holds.get(v) ?? 1) - 1;
      if (n <= 0) this.holds.delete(v);
      else this.holds.set(v, n);
    };
  }

  /** The pruning settings in force. */
  pruningSettings(): ResolvedPruning {
    return { ...this.pruning };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await this.background.stop();
    this.closed = true;
    this.staged = undefined;
    this.dropStagedAhead();
    await this.leafHasher.close();
    await this.backend.close();
  }
}

/** Each store's written keys as binary strings (what the latest-value cache drops at the commit). */
function* writtenKeys(stores: StagedStore[]): Iterable<[number, Iterable<string>]> {
  for (const s of stores) yield [s.sid, s.changes.changedKeys()];
}

/** Opens (or creates) a versioned multistore. */
export async function openMultiStore(options: OpenMultiStoreOptions): Promise<MultiStore> {
  return MultiStore.open(options);
}
