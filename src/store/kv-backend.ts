// The raw ordered key-value engine under the multistore: LevelDB (classic-level) on disk, or
// memory-level for tests. The multistore needs only synchronous point reads (the hot read path),
// atomic batches, ordered range iteration and range clearing.
import { existsSync, mkdirSync, statSync } from "node:fs";
import type { AbstractLevel } from "abstract-level";
import { ClassicLevel } from "classic-level";
import { MemoryLevel } from "memory-level";
import { copyBytes } from "./byte-records.ts";
import { LevelEntries } from "./entry-iterators.ts";
import {
  DataDirectoryCorruptError,
  DataDirectoryLockedError,
  DataDirectoryMissingError,
  DataDirectoryUnavailableError,
  isFileSystemRefusal,
  StoreUsageError,
} from "./errors.ts";
import { levelDirectoryState } from "./level-directory.ts";

/** One operation of an atomic batch. `value` undefined = delete. */
export interface BatchOp {
  key: Uint8Array;
  value: Uint8Array | undefined;
}

/**
 * An atomic batch filled operation by operation. `put` and `del` copy the bytes they are given
 * (LevelDB copies them into its native batch at once), so callers may reuse a buffer for the
 * next row: a commit's rows then never live long enough to burden the garbage collector.
 */
export interface KVBatch {
  put(key: Uint8Array, value: Uint8Array): void;
  del(key: Uint8Array): void;
  /** Applies every operation atomically. `sync` flushes to stable storage before resolving. */
  write(sync: boolean): Promise<void>;
  /** Drops a batch that will not be written (a discarded staged version), releasing it now. */
  close(): Promise<void>;
  /**
   * Writes what was put so far and empties the batch for what comes next, keeping its memory: a large write in parts
   * through one buffer (a commit's tree pages, multistore.ts). A new batch per part would not do: classic-level frees
   * a batch's native buffer only when V8 collects its small wrapper, so every part's buffer could stay resident until
   * the next full collection. Only classic-level's batches have it; `write` ends the batch as before.
   */
  writePart?(sync: boolean): Promise<void>;
}

/** A key range for iteration and clearing; `lt` exclusive. */
export interface KeyRange {
  gte?: Uint8Array;
  lt?: Uint8Array;
  reverse?: boolean;
  limit?: number;
}

/** Reads of one moment of the database (KVBackend.snapshot). */
export interface KVSnapshot {
  /** As KVBackend.iterate, at the snapshot's moment. */
  iterate(range: KeyRange): AsyncIterable<[Uint8Array, Uint8Array]>;
  /** Releases the snapshot (LevelDB keeps what it sees until then). */
  close(): Promise<void>;
}

/** The engine contract the multistore is written against. */
export interface KVBackend {
  /** Where the data lives ("memory" for the in-memory backend). */
  readonly location: string;
  /** Synchronous point read; undefined when absent. The returned bytes must not be modified. */
  getSync(key: Uint8Array): Uint8Array | undefined;
  /** Applies every operation atomically. `sync` flushes to stable storage before resolving. */
  write(ops: BatchOp[], sync: boolean): Promise<void>;
  /** A new empty batch (see KVBatch). */
  batch(): KVBatch;
  /** Entries in key order within the range; `map`, when given, turns each raw entry into the one handed out. */
  iterate(
    range: KeyRange,
    map?: (entry: [Uint8Array, Uint8Array]) => [Uint8Array, Uint8Array],
  ): AsyncIterable<[Uint8Array, Uint8Array]>;
  /**
   * At most `range.limit` entries of the range in one engine read (fewer: the range has no more),
   * each turned by `map` when given. For small reads: the whole result is held at once.
   */
  readRange(
    range: KeyRange & { limit: number },
    map?: (entry: [Uint8Array, Uint8Array]) => [Uint8Array, Uint8Array],
  ): Promise<[Uint8Array, Uint8Array][]>;
  /**
   * A snapshot of the database as it is now, for scans that must agree with each other (two tables read side by
   * side): every iterate() of it sees the same state, whatever is written meanwhile. Close it when done.
   */
  snapshot(): KVSnapshot;
  /** Deletes up to `limit` keys in the range (not atomic with anything else). */
  clear(range: { gte: Uint8Array; lt: Uint8Array; limit: number }): Promise<void>;
  /** Compacts the whole keyspace (reclaims space after large deletions; no-op in memory). */
  compact(): Promise<void>;
  close(): Promise<void>;
}

type Level = AbstractLevel<Uint8Array, Uint8Array, Uint8Array>;

/** What classic-level's chained batch implements under abstract-level's public put/del. */
interface NativeBatch {
  _put?: (key: Uint8Array, value: Uint8Array) => void;
  _del?: (key: Uint8Array) => void;
  /** Writes the native batch as it is (abstract-level's write() ends in it, then closes the batch). */
  _write?: (options: { sync: boolean }) => Promise<void>;
  /** Empties the native batch; LevelDB's WriteBatch keeps its buffer's capacity. */
  _clear?: () => void;
}

/** Whether the batch has them (a classic-level release without them falls back to the public put/del). */
function hasNativeOps(batch: NativeBatch): batch is NativeBatch & Required<Pick<NativeBatch, "_put" | "_del">> {
  return typeof batch._put === "function" && typeof batch._del === "function";
}

/** Whether the batch can be written in parts (classic-level's _write and _clear). */
function hasNativeParts(batch: NativeBatch): batch is Required<NativeBatch> {
  return hasNativeOps(batch) && typeof batch._write === "function" && typeof batch._clear === "function";
}

/** Wraps an opened abstract-level database (classic-level or memory-level). */
class LevelBackend implements KVBackend {
  readonly location: string;
  private readonly db: Level;
  /** memory-level keeps the arrays a batch is given, so its batches copy them first. */
  private readonly keepsBatchBytes: boolean;
  private closed = false;

  constructor(db: Level, location: string, keepsBatchBytes = false) {
    this.db = db;
    this.location = location;
    this.keepsBatchBytes = keepsBatchBytes;
  }

  getSync(key: Uint8Array): Uint8Array | undefined {
    return this.db.getSync(key);
  }

  async write(ops: BatchOp[], sync: boolean): Promise<void> {
    if (this.closed) throw new StoreUsageError("the state store is closed");
    if (ops.length === 0) return;
    const batch = this.db.batch();
    for (const op of ops) {
      if (op.value === undefined) batch.del(op.key);
      else batch.put(op.key, op.value);
    }
    await batch.write({ sync } as Parameters<typeof batch.write>[0]);
  }

  batch(): KVBatch {
    if (this.closed) throw new StoreUsageError("the state store is closed");
    const batch = this.db.batch();
    const copy = this.keepsBatchBytes;
    const native = batch as unknown as NativeBatch;
    if (!copy && hasNativeOps(native)) {
      // classic-level: after one operation through the public API (which counts it, so write()
      // does not skip the batch as empty), the rest go straight to the native batch through the
      // implementation's own _put/_del (abstract-level's private API, which its put/del end in).
      // Our keys and values are always Uint8Arrays on the root database ("view" encodings, no
      // prefix, no hooks), so the public path's checks, encodings and its op object per call do
      // nothing for us: a commit puts ~20k rows, and they were ~0.2 µs of each put plus garbage.
      let counted = false;
      return {
        put: (key, value) => {
          if (counted) native._put(key, value);
          else {
            batch.put(key, value);
            counted = true;
          }
        },
        del: (key) => {
          if (counted) native._del(key);
          else {
            batch.del(key);
            counted = true;
          }
        },
        write: (sync) => this.writeBatch(batch, sync),
        close: () => batch.close(),
        writePart: hasNativeParts(native) ? (sync) => this.writeBatchPart(native, sync) : undefined,
      };
    }
    return {
      put: (key, value) => {
        // copyBytes, not slice(): a Buffer's slice() is a view of the caller's (often reused) bytes.
        if (copy) batch.put(copyBytes(key), copyBytes(value));
        else batch.put(key, value);
      },
      del: (key) => {
        batch.del(copy ? copyBytes(key) : key);
      },
      write: (sync) => this.writeBatch(batch, sync),
      close: () => batch.close(),
    };
  }

  // Through the implementation's own _write and _clear (abstract-level's write() would close the batch): the one
  // public operation put counted keeps the batch's final write() from being skipped as empty.
  private async writeBatchPart(native: Required<NativeBatch>, sync: boolean): Promise<void> {
    if (this.closed) throw new StoreUsageError("the state store is closed");
    await native._write({ sync });
    native._clear();
  }

  // A batch outliving the store is closed, not written.
  private async writeBatch(batch: ReturnType<Level["batch"]>, sync: boolean): Promise<void> {
    if (this.closed) {
      await batch.close();
      throw new StoreUsageError("the state store is closed");
    }
    await batch.write({ sync } as Parameters<typeof batch.write>[0]);
  }

  iterate(
    range: KeyRange,
    map?: (entry: [Uint8Array, Uint8Array]) => [Uint8Array, Uint8Array],
  ): AsyncIterable<[Uint8Array, Uint8Array]> {
    const options = levelRange(range);
    // Opened at the first next(), closed at the end, on return() or on an error.
    return new LevelEntries(() => this.db.iterator(options), map);
  }

  snapshot(): KVSnapshot {
    const snapshot = this.db.snapshot();
    return {
      iterate: (range) => new LevelEntries(() => this.db.iterator({ ...levelRange(range), snapshot })),
      close: () => snapshot.close(),
    };
  }

  async readRange(
    range: KeyRange & { limit: number },
    map?: (entry: [Uint8Array, Uint8Array]) => [Uint8Array, Uint8Array],
  ): Promise<[Uint8Array, Uint8Array][]> {
    // In batches as `iterate` reads (16 entries first, then growing): one `iterator({ limit }).all()` (or
    // `nextv(limit)`) per query looked cheaper, but under the bench's mixed load it left the node ~100 MiB
    // larger in native memory, during and after the load. The iterator is driven here directly, not through
    // LevelEntries and for-await: a paginated query (balances) reads one short range per request, and the
    // async-iterator protocol cost two more async steps and a return() on top of the engine's own calls.
    const entries: [Uint8Array, Uint8Array][] = [];
    if (range.limit <= 0) return entries;
    const iterator = this.db.iterator(levelRange(range));
    try {
      let size = 16;
      while (entries.length < range.limit) {
        const batch = (await iterator.nextv(Math.min(size, range.limit - entries.length))) as [
          Uint8Array,
          Uint8Array,
        ][];
        if (batch.length === 0) break;
        for (let i = 0; i < batch.length; i++) entries.push(map === undefined ? batch[i] : map(batch[i]));
        size = Math.min(size * 4, 1000);
      }
    } finally {
      await iterator.close();
    }
    return entries;
  }

  async clear(range: { gte: Uint8Array; lt: Uint8Array; limit: number }): Promise<void> {
    await this.db.clear({ gte: range.gte, lt: range.lt, limit: range.limit });
  }

  async compact(): Promise<void> {
    const db = this.db as unknown as { compactRange?: (a: Uint8Array, b: Uint8Array) => Promise<void> };
    if (typeof db.compactRange === "function") {
      await db.compactRange(new Uint8Array([0]), new Uint8Array([0xff, 0xff]));
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.db.close();
  }
}

/** abstract-level's iterator options for `range` (only the bounds it has). */
function levelRange(range: KeyRange): { gte?: Uint8Array; lt?: Uint8Array; reverse?: boolean; limit?: number } {
  const options: { gte?: Uint8Array; lt?: Uint8Array; reverse?: boolean; limit?: number } = {};
  if (range.gte !== undefined) options.gte = range.gte;
  if (range.lt !== undefined) options.lt = range.lt;
  if (range.reverse) options.reverse = true;
  if (range.limit !== undefined) options.limit = range.limit;
  return options;
}

/** Options of the LevelDB backend. */
export interface LevelBackendOptions {
  /** Create the directory when it does not exist (default true). */
  createIfMissing?: boolean;
  /** LevelDB block cache in bytes (default 32 MiB). */
  cacheSize?: number;
  /** LevelDB memtable size in bytes (default 8 MiB). */
  writeBufferSize?: number;
  /** Files LevelDB keeps open, table files among them (default {@link DEFAULT_MAX_OPEN_FILES}). */
  maxOpenFiles?: number;
}

/**
 * LevelDB's open-file limit for the state store. LevelDB keeps up to this many minus ten table files open, and on a
 * 64-bit machine maps each open table into memory for reading: every page a read touches then counts in the
 * process's RSS for as long as the table stays open. With LevelDB's own default (1,000) a node that walks a large
 * state (a migration over 1M records: ~110 table files) kept ~120 MiB of table pages resident; with 64, at most 54
 * tables stay mapped and a read of one of the others reopens it (its index and filter read again: measured ~1.0–1.5×
 * the CPU of an uncached random read, and most reads are answered by the store's caches before LevelDB).
 */
export const DEFAULT_MAX_OPEN_FILES = 64;

/** The LevelDB settings the store uses; benchmarks give the raw baseline the same ones. */
export function levelOptions(options: LevelBackendOptions = {}): {
  keyEncoding: "view";
  valueEncoding: "view";
  cacheSize: number;
  writeBufferSize: number;
  maxOpenFiles: number;
} {
  return {
    keyEncoding: "view",
    valueEncoding: "view",
    cacheSize: options.cacheSize ?? 32 * 1024 * 1024,
    writeBufferSize: options.writeBufferSize ?? 8 * 1024 * 1024,
    maxOpenFiles: options.maxOpenFiles ?? DEFAULT_MAX_OPEN_FILES,
  };
}

/**
 * Opens (or creates) a LevelDB directory. Maps LevelDB's open failures to the store's clear
 * errors: missing directory, lock held by another process, unreadable or corrupt files.
 */
export async function openLevelBackend(path: string, options: LevelBackendOptions = {}): Promise<KVBackend> {
  const createIfMissing = options.createIfMissing ?? true;
  const exists = existsSync(path);
  if (exists && !statSync(path).isDirectory()) {
    throw new DataDirectoryCorruptError(path, "the path is a file, expected a directory");
  }
  // Throws NotALevelStoreError for files without CURRENT: LevelDB would create over them (level-directory.ts).
  const state = exists ? levelDirectoryState(path) : "missing";
  if (state === "missing") {
    if (!createIfMissing) throw new DataDirectoryMissingError(path);
    try {
      mkdirSync(path, { recursive: true });
    } catch (err) {
      // Typically a parent (the home's data/) is a file: say which store could not be made, and why.
      throw new DataDirectoryCorruptError(path, `cannot create the directory: ${(err as Error).message}`, {
        cause: err,
      });
    }
  } else if (state === "empty" && !createIfMissing) {
    throw new DataDirectoryMissingError(path);
  }
  const db = new ClassicLevel<Uint8Array, Uint8Array>(path, levelOptions(options));
  try {
    // An existing store is opened without create-if-missing, so a CURRENT lost after the check above is an
    // error from LevelDB rather than a new empty database over the old files.
    await db.open({ createIfMissing: state !== "store" });
  } catch (err) {
    throw levelOpenError(path, err);
  }
  return new LevelBackend(db as unknown as Level, path);
}

/**
 * The store error for LevelDB's failure to open `path`: the lock held elsewhere, the file system refusing an
 * operation (a full disk, no permission: the store is not known to be damaged), or else damage.
 */
export function levelOpenError(path: string, err: unknown): Error {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  if (cause?.code === "LEVEL_LOCKED") return new DataDirectoryLockedError(path, { cause: err });
  const reason = cause?.message ?? (err as Error).message;
  if (isFileSystemRefusal(reason)) return new DataDirectoryUnavailableError(path, reason, { cause: err });
  return new DataDirectoryCorruptError(path, reason, { cause: err });
}

/** A fresh in-memory backend (memory-level): same semantics, nothing persisted. */
export async function openMemoryBackend(): Promise<KVBackend> {
  const db = new MemoryLevel<Uint8Array, Uint8Array>({
    keyEncoding: "view",
    valueEncoding: "view",
    storeEncoding: "view",
  });
  await db.open();
  return new LevelBackend(db as unknown as Level, "memory", true);
}
