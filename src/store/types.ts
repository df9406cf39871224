// The contract between the state store and everything above it (the app framework, the
// modules, the query servers). The store helper implements it; callers depend only on this file.

/** Options for ordered iteration. Bounds are raw keys; `end` is exclusive. */
export interface IterateOptions {
  /** Only keys starting with this prefix (combined with start/end when given). */
  prefix?: Uint8Array;
  /** Inclusive lower bound. */
  start?: Uint8Array;
  /** Exclusive upper bound. */
  end?: Uint8Array;
  /** Descending order when true. */
  reverse?: boolean;
  /** Stop after this many entries. */
  limit?: number;
}

/** A readable key-value store (one module's store at one version, or a branch of it). */
export interface ReadableKVStore {
  get(key: Uint8Array): Promise<Uint8Array | undefined>;
  /**
   * `get` answered synchronously, for stores that never wait on I/O for it (a branch's layers: pending writes,
   * remembered reads, LevelDB's in-memory `getSync`). Optional; wrappers use it to skip a promise per read.
   */
  getNow?(key: Uint8Array): Uint8Array | undefined;
  has(key: Uint8Array): Promise<boolean>;
  /** Entries in key order (bytewise), ascending unless `reverse`. */
  iterate(options?: IterateOptions): AsyncIterable<[key: Uint8Array, value: Uint8Array]>;
}

/** A writable key-value store. Writes are buffered in the branch they are made on. */
export interface KVStore extends ReadableKVStore {
  set(key: Uint8Array, value: Uint8Array): void;
  delete(key: Uint8Array): void;
}

/**
 * A cache-wrapped branch over a multistore: reads see the branch's own pending writes first
 * (iteration included, in order), then the parent. `write()` flushes the branch into its parent
 * as a whole; dropping the branch discards it.
 */
export interface BranchMultiStore {
  /** The named module store inside this branch. Throws StoreNotFoundError for an unknown name. */
  store(name: string): KVStore;
  /** A nested branch (e.g. one transaction's writes inside a block's branch). */
  branch(): BranchMultiStore;
  /** Writes every pending change into the parent branch (or the root's working set). */
  write(): void;
  /** The names of the stores visible in this branch, sorted. */
  storeNames(): string[];
}

/**
 * A branch for work done ahead of a block (src/store/ahead-branch.ts): it records what it reads, is never written
 * into the state itself, and its writes join a block's top-level branch that wrote nothing it read.
 */
export interface AheadBranchMultiStore extends BranchMultiStore {
  /** Whether `block` has written nothing this branch read (then joining gives what running the work on it gives). */
  fitsInto(block: BranchMultiStore): boolean;
  /** Moves this branch's writes into `block` (throws StoreUsageError when it does not fit). */
  joinInto(block: BranchMultiStore): void;
  /** Sorts the writes and loads the tree nodes their commit will copy (reads only: the state does not change). */
  warm(): void;
}

/** A read-only view of every store at one committed version (historical or latest). */
export interface VersionView {
  readonly version: bigint;
  /** The app hash of this version (added by the store helper; proofs at this version verify against it). */
  readonly appHash?: Uint8Array;
  store(name: string): ReadableKVStore;
  storeNames(): string[];
  /**
   * How many keys store `name` holds at this version, without iterating them (the store helper reads it from the
   * root of the store's tree, whose nodes carry their leaf counts). Optional: callers fall back to iterating.
   * Errors: StoreNotFoundError like `store`.
   */
  keyCount?(name: string): number;
}

/** Result of hashing or committing a version. */
export interface CommitInfo {
  version: bigint;
  /** Merkle root over (store name, store root), sorted by name: RFC 6962 style. */
  appHash: Uint8Array;
}

/** Renames, additions and deletions of whole stores applied with the next commit. */
export interface StoreUpgrades {
  added: string[];
  renamed: { oldKey: string; newKey: string }[];
  deleted: string[];
}

/** Pruning settings as in app.toml. */
export interface PruningOptions {
  strategy: "default" | "nothing" | "everything" | "custom";
  /** Versions to keep besides the latest (custom only; default = 362880, everything = 2). */
  keepRecent: bigint;
  /** Prune every this many commits (custom only; default = 10, everything = 10). */
  interval: bigint;
}

/** One proof operation in upstream's ProofOp form (type, key, data) so clients can verify. */
export interface ProofOpLike {
  type: string;
  key: Uint8Array;
  data: Uint8Array;
}

/** A proof of a key's presence (with its value) or absence in one store at one version, up to the app hash. */
export interface StoreProof {
  storeName: string;
  key: Uint8Array;
  /** The value when the key exists at that version, undefined for a non-existence proof. */
  value: Uint8Array | undefined;
  version: bigint;
  /** [store-level op, multistore-level op], as upstream's `/store/<name>/key` prove=true answers. */
  ops: ProofOpLike[];
}

/**
 * The root of the state: named stores, versions, commitments, pruning and store upgrades.
 * Lifecycle of one block: `branch()` → writes → `branch.write()` → `stage()` (app hash, nothing
 * persisted) → `commit()` (atomic persist of the staged version), or `discardStaged()`.
 */
export interface CommitMultiStore {
  /** The last committed version (0n for a fresh store) and its app hash. */
  lastCommit(): CommitInfo;
  /** A branch over the latest committed state plus anything already staged. */
  branch(): BranchMultiStore;
  /**
   * Applies the branch's writes to the working state and computes the next version's app hash
   * without persisting anything. Cost proportional to the keys changed (times log n).
   */
  stage(writes: BranchMultiStore): Promise<CommitInfo>;
  /** Atomically persists the staged version (and any pending store upgrades). */
  commit(): Promise<CommitInfo>;
  /**
   * Forgets the staged version (e.g. a block that must not be committed). Refused (STORE_COMMIT_FAILED) for a version
   * whose commit reported a failure but reached the store all the same: retry commit(), or restart.
   */
  discardStaged(): void;
  /**
   * A branch of the latest committed state for work done ahead of the next block (src/store/ahead-branch.ts):
   * it records its reads and joins the block's branch only if the block has not written what it read.
   * Optional: a store without it gets no work done ahead.
   */
  aheadBranch?(): AheadBranchMultiStore;
  /**
   * Resolves once the work the store does after a commit, beside the next block's wait, is over (the tree pages'
   * write), whether it succeeded or not: a failure is reported where it always was. Optional.
   */
  workBehindCommit?(): Promise<void>;
  /** A read-only view at `version`; 0n or undefined = latest. Errors: PrunedVersionError, FutureVersionError. */
  view(version?: bigint): Promise<VersionView>;
  /** The earliest version still readable (after pruning). */
  earliestVersion(): bigint;
  /** On a fresh store: the version its first commit gets (genesis initial_height). Errors: StoreUsageError. */
  setInitialVersion(version: bigint): void;
  /** Existence or non-existence proof of `key` in store `name` at `version`. */
  prove(name: string, key: Uint8Array, version?: bigint): Promise<StoreProof>;
  /** Closes the backend. */
  close(): Promise<void>;
}
