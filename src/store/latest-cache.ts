// The latest-value cache: the decoded latest row of keys read recently, in memory, so a read at the
// latest version (and an older read the key's last write already answers) costs one probe of a table keyed
// by the key's bytes (byte-key-table.ts) instead of a LevelDB point read. IAVL's fast-node cache plays this part upstream.
//
// Correctness rests on one invariant: every entry is the key's latest row *as of `version`*, the
// last committed version. A commit keeps it by dropping the keys it wrote, in the same synchronous
// step that makes its version the latest; entries are only added (`fill`) while the LevelDB rows
// match `version` — never while a commit's batch is being written (its rows may already be visible),
// and never after a commit failed (its rows may be on disk without being the latest version) until
// a commit succeeds. Nothing is persisted: a restart starts empty. Short ranges read whole are kept
// beside the rows under the same rule (latest-range-cache.ts).
import { ByteKeyTable } from "./byte-key-table.ts";
import { LatestRangeCache } from "./latest-range-cache.ts";

/** A key's latest row: its value (undefined: no latest row), the version of that write, its write number and the version before it. */
export interface CachedRow {
  readonly value: Uint8Array | undefined;
  readonly version: number;
  readonly writeNo: number;
  readonly prevVersion: number;
}

/**
 * The default memory bound: ~85k entries of 32-byte keys and 100-byte values at ENTRY_OVERHEAD below (IAVL's
 * fast-node cache holds 100k; ~115k fitted while the rows were in a `Map`).
 */
export const DEFAULT_LATEST_CACHE_BYTES = 32 * 1024 * 1024;

/**
 * What an entry costs beyond its key and value bytes (its table entry and index pairs, the row object, the value's
 * view, a kept promise and its slot): an estimate. Set when each row took a 64-byte slot of a table kept at most half
 * full (~90 bytes more than the `Map` entry and key string it replaced, measured); the table's share is smaller since
 * round 3 session 15 (a dense 64-byte entry and 16 bytes of index, byte-key-table.ts), and the figure was kept.
 */
const ENTRY_OVERHEAD = 256;

/** The row of a key that has no latest row at `version` (absent or deleted). */
export const ABSENT_ROW: CachedRow = Object.freeze({ value: undefined, version: 0, writeNo: 0, prevVersion: 0 });

/** A history row (h‖sid‖key‖writeNo) as searches read it: immutable once its version is committed. */
export interface CachedHistoryRow {
  readonly version: number;
  readonly prevVersion: number;
  /** undefined: the write was a delete. */
  readonly value: Uint8Array | undefined;
}

interface StoreGenerations {
  /** Latest rows by key: probed with the key's bytes on a read (byte-key-table.ts), by binary string elsewhere. */
  young: ByteKeyTable<CachedRow>;
  old: ByteKeyTable<CachedRow>;
  /** History rows by key, then write number (a number key: no string built per probe). */
  youngHistory: Map<string, Map<number, CachedHistoryRow>>;
  oldHistory: Map<string, Map<number, CachedHistoryRow>>;
  /**
   * The values of cached rows as resolved promises, for async reads at `version` (`VersionSource.readPromise`):
   * a hit is one probe, and the promise is handed out as is — none made and resolved per read, no `then`
   * lookup on the value. Only rows held in `young` or `old` get one; it leaves with them (a commit that
   * writes the key, a rotation, a failed commit).
   */
  promises: Map<string, Promise<Uint8Array | undefined>>;
}

function newGenerations(): StoreGenerations {
  return {
    young: new ByteKeyTable(),
    old: new ByteKeyTable(),
    youngHistory: new Map(),
    oldHistory: new Map(),
    promises: new Map(),
  };
}

/**
 * Bounded by bytes over every store: two generations per store, the young one filled by reads (and
 * by hits found in the old one); when the young generations together pass half the bound, every store's
 * young generation becomes its old one and the previous old ones are dropped. So at most `maxBytes`
 * (estimated) are held, and a key read again within a generation stays.
 */
export class LatestValueCache {
  /** The committed version every entry describes. */
  version = 0;
  private readonly halfBytes: number;
  private readonly stores = new Map<number, StoreGenerations>();
  private youngBytes = 0;
  /** False while a commit is being written and after a failed one: the rows on disk may not be `version`'s. */
  private filling = true;
  /** Stores a store upgrade deleted (ids are never reused): nothing of theirs is kept again, whatever still reads. */
  private readonly dropped = new Set<number>();
  /** Short ranges of `version` read whole (lookups go straight to it; fills through fillRange). */
  readonly ranges = new LatestRangeCache();

  constructor(maxBytes: number = DEFAULT_LATEST_CACHE_BYTES) {
    if (!Number.isSafeInteger(maxBytes) || maxBytes < 0) {
      throw new TypeError(`latestCacheBytes must be a non-negative integer (0 turns the cache off), got ${maxBytes}`);
    }
    this.halfBytes = Math.floor(maxBytes / 2);
  }

  /** The cached latest row of key `sk` (binary string) in store `sid`, if any. */
  lookup(sid: number, sk: string): CachedRow | undefined {
    const gens = this.stores.get(sid);
    if (gens === undefined) return undefined;
    const young = gens.young.getString(sk);
    if (young !== undefined) return young;
    const old = gens.old.getString(sk);
    if (old !== undefined && this.filling && this.reserve(sk.length + (old.value?.length ?? 0))) {
      gens.young.setString(sk, old);
    }
    return old;
  }

  /** lookup by the key's bytes (the read path: no string built). */
  lookupKey(sid: number, key: Uint8Array): CachedRow | undefined {
    const gens = this.stores.get(sid);
    if (gens === undefined) return undefined;
    const young = gens.young.get(key);
    if (young !== undefined) return young;
    const old = gens.old.get(key);
    if (old !== undefined && this.filling && this.reserve(key.length + (old.value?.length ?? 0))) {
      // reserve() may have rotated: the young table is looked up after it.
      gens.young.set(key, old);
    }
    return old;
  }

  /** The promise of key `sk`'s value at `version`, if an async read kept one (see StoreGenerations.promises). */
  promiseOf(sid: number, sk: string): Promise<Uint8Array | undefined> | undefined {
    return this.stores.get(sid)?.promises.get(sk);
  }

  /**
   * Keeps `promise` (resolved to `row.value`) for later async reads of `sk` at `version`, when `row` is the
   * key's cached row: nothing is kept for a row the cache did not take.
   */
  keepPromise(sid: number, sk: string, row: CachedRow, promise: Promise<Uint8Array | undefined>): void {
    if (!this.filling) return;
    const gens = this.stores.get(sid);
    if (gens === undefined || gens.young.getString(sk) !== row) return;
    gens.promises.set(sk, promise);
  }

  /** Whether LevelDB's latest rows are `version`'s: no commit's batch is being written, and none failed since the last success. */
  get settled(): boolean {
    return this.filling;
  }

  /** Whether a row read from LevelDB now may be added (settled, and the cache is on). */
  get accepting(): boolean {
    return this.filling && this.halfBytes > 0;
  }

  /** Adds the latest row just read from LevelDB (ignored when not `accepting` or when it is newer than `version`). */
  fill(sid: number, sk: string, row: CachedRow): void {
    if (!this.accepting || row.version > this.version || this.dropped.has(sid)) return;
    const gens = this.generations(sid);
    if (this.reserve(sk.length + (row.value?.length ?? 0))) gens.young.setString(sk, row);
  }

  /** fill by the key's bytes. */
  fillKey(sid: number, key: Uint8Array, row: CachedRow): void {
    if (!this.accepting || row.version > this.version || this.dropped.has(sid)) return;
    const gens = this.generations(sid);
    if (this.reserve(key.length + (row.value?.length ?? 0))) gens.young.set(key, row);
  }

  /**
   * History row `writeNo` of key `sk`, if cached. History rows are kept by writes' numbers, which a later
   * commit reuses for another write only once pruning removed the key's whole past (it starts again at write 1),
   * and every commit that writes the key drops its rows (commitDone); pruning deletes rows no retained version's
   * search can end on (a cached one only repeats what the row said), and a failed commit clears everything.
   */
  lookupHistory(sid: number, sk: string, writeNo: number): CachedHistoryRow | undefined {
    const gens = this.stores.get(sid);
    if (gens === undefined) return undefined;
    const young = gens.youngHistory.get(sk)?.get(writeNo);
    if (young !== undefined) return young;
    const old = gens.oldHistory.get(sk)?.get(writeNo);
    if (old !== undefined && this.filling) this.addHistory(gens, sk, writeNo, old);
    return old;
  }

  /** Adds a history row just read from LevelDB (when `accepting`). */
  fillHistory(sid: number, sk: string, writeNo: number, row: CachedHistoryRow): void {
    if (!this.accepting || row.version > this.version || this.dropped.has(sid)) return;
    this.addHistory(this.generations(sid), sk, writeNo, row);
  }

  /**
   * Keeps the whole content of range [lo, hi) of store `sid` (bounds as binary strings), read from LevelDB by a
   * scan that began while the cache was `accepting` at `version`: ignored when a commit started since.
   */
  fillRange(
    sid: number,
    bounds: { lo: string | undefined; hi: string | undefined; reverse: boolean },
    entries: readonly (readonly [Uint8Array, Uint8Array])[],
    contentBytes: number,
    version: number,
  ): void {
    if (!this.accepting || version !== this.version || this.dropped.has(sid)) return;
    this.ranges.add(sid, bounds.lo, bounds.hi, bounds.reverse, entries, contentBytes);
  }

  private generations(sid: number): StoreGenerations {
    let gens = this.stores.get(sid);
    if (gens === undefined) {
      gens = newGenerations();
      this.stores.set(sid, gens);
    }
    return gens;
  }

  private addHistory(gens: StoreGenerations, sk: string, writeNo: number, row: CachedHistoryRow): void {
    // The key's bytes are counted with every row (an over-estimate when a key has several).
    if (!this.reserve(sk.length + (row.value?.length ?? 0))) return;
    // reserve() may have rotated: look the young map up after it.
    let rows = gens.youngHistory.get(sk);
    if (rows === undefined) {
      rows = new Map();
      gens.youngHistory.set(sk, rows);
    }
    rows.set(writeNo, row);
  }

  /** Counts an entry into the young generations (rotating first when they are full); false if it is too large. */
  private reserve(size: number): boolean {
    const bytes = size + ENTRY_OVERHEAD;
    if (bytes > this.halfBytes) return false;
    if (this.youngBytes + bytes > this.halfBytes) this.rotate();
    this.youngBytes += bytes;
    return true;
  }

  private rotate(): void {
    for (const gens of this.stores.values()) {
      gens.old = gens.young;
      gens.young = new ByteKeyTable();
      gens.oldHistory = gens.youngHistory;
      gens.youngHistory = new Map();
      // Kept promises follow their rows into the old generation no further: reads make them again.
      gens.promises = new Map();
    }
    this.youngBytes = 0;
  }

  /** A commit's batch is about to be written: no fills until it is done (or failed). */
  commitStarted(): void {
    this.filling = false;
  }

  /**
   * The commit of `version` is the latest now: its written keys (per store, as binary strings) leave
   * the cache, and fills resume. Called in the same synchronous step that switches the latest version.
   * A written key's history rows leave too: a key whose deleted row and history pruning removed starts again at
   * write 1, so a history row kept under its old life's write number would answer for the new one.
   */
  commitDone(version: number, written: Iterable<[number, Iterable<string>]>): void {
    for (const [sid, keys] of written) {
      const gens = this.stores.get(sid);
      const hasRows =
        gens !== undefined &&
        (gens.young.size > 0 || gens.old.size > 0 || gens.youngHistory.size > 0 || gens.oldHistory.size > 0);
      const hasRanges = this.ranges.has(sid);
      if (!hasRows && !hasRanges) continue;
      // The keys come once (a generator): listed when both need them.
      const list = hasRows && hasRanges ? [...keys] : keys;
      if (hasRows) {
        const promises = gens.promises;
        for (const sk of list) {
          gens.young.deleteString(sk);
          gens.old.deleteString(sk);
          gens.youngHistory.delete(sk);
          gens.oldHistory.delete(sk);
          promises.delete(sk);
        }
      }
      if (hasRanges) this.ranges.written(sid, list);
    }
    this.version = version;
    this.filling = true;
  }

  /** A commit's write failed: its rows may be in LevelDB without being the latest version. Forget all, fill nothing. */
  commitFailed(): void {
    this.clear();
    this.filling = false;
  }

  /** Forgets a store's entries (a store deleted by an upgrade). */
  dropStore(sid: number): void {
    this.dropped.add(sid);
    this.ranges.dropStore(sid);
    const gens = this.stores.get(sid);
    if (gens === undefined) return;
    this.stores.delete(sid);
    // The young bytes are not recounted: the next rotation resets them.
  }

  /** Forgets everything. */
  clear(): void {
    this.stores.clear();
    this.ranges.clear();
    this.youngBytes = 0;
  }

  /** Entries held (latest and history rows, both generations, a row in both counted twice): for tests. */
  get size(): number {
    let n = 0;
    for (const gens of this.stores.values()) {
      n += gens.young.size + gens.old.size;
      for (const rows of gens.youngHistory.values()) n += rows.size;
      for (const rows of gens.oldHistory.values()) n += rows.size;
    }
    return n;
  }
}
