// The flat state: what reads use (the tree is only for commitments and proofs).
//
//   l‖sid‖key → writeNo, version, prevVersion, value    the latest value (one point read)
//   d‖sid‖key → writeNo, version, prevVersion           a key whose latest write was a delete
//   h‖sid‖key‖writeNo → version, prevVersion, kind, value  every write, numbered 1, 2, 3, ...
//
// A key's history rows below its latest write are all there (within retention) — the only ones a
// search below reads. The key's latest write has its row too, but nothing reads it while it is the
// latest, so an imported state (state-import.ts) writes none: the commit that supersedes an imported
// write 1 writes its row (importedFirstValue, commit-rows.ts), in the batch of the write 2.
//
// `prevVersion` is the version of the key's previous write (0 for the first). A read at an older
// version v reads the latest row; if its version ≤ v that is the answer, and if its previous
// write is ≤ v the answer is that one history row. Otherwise it searches the key's numbered
// history for the last write at or before v: versions grow with the write number, so an
// interpolation search (bisection when it stalls) finds it with point reads only — never a scan,
// never a tree walk. Each probed row also tells its predecessor's version, which often ends the
// search one step early.

import { compareBytes, equalBytes } from "../bytes/compare.ts";
import { bytesToBinaryString } from "../bytes/text.ts";
import { uvarintLength } from "../bytes/varint.ts";
import { type Arena, ByteReader } from "./byte-records.ts";
import { collectEntries, LazyEntries } from "./entry-iterators.ts";
import { StoreError } from "./errors.ts";
import { historyKey, storeKey, storePrefix, TABLE } from "./keys.ts";
import type { KeyRange, KVBackend } from "./kv-backend.ts";
import type { KVSource, ScanRange } from "./kv-source.ts";
import { ABSENT_ROW, type CachedRow, type LatestValueCache } from "./latest-cache.ts";
import { MAX_RANGE_BYTES, MAX_RANGE_ENTRIES } from "./latest-range-cache.ts";
import { LongScanCopies } from "./long-scan-copies.ts";

/** A parsed latest or deleted row. */
export interface LatestRow {
  writeNo: number;
  version: number;
  /** Version of the key's previous write (0 when this is the first). */
  prevVersion: number;
  /** The value (latest rows) or undefined (deleted rows). */
  value: Uint8Array | undefined;
}

function putUvarint(out: Uint8Array, offset: number, value: number): number {
  while (value >= 0x80) {
    out[offset++] = (value % 128) | 0x80;
    value = Math.floor(value / 128);
  }
  out[offset++] = value;
  return offset;
}

function allocate(size: number, arena: Arena | undefined): Uint8Array {
  return arena === undefined ? new Uint8Array(size) : arena.alloc(size);
}

/** Encodes a latest row (into `arena` when given). */
export function encodeLatestRow(
  writeNo: number,
  version: number,
  prevVersion: number,
  value: Uint8Array,
  arena?: Arena,
): Uint8Array {
  const out = allocate(
    uvarintLength(writeNo) + uvarintLength(version) + uvarintLength(prevVersion) + value.length,
    arena,
  );
  out.set(value, putUvarint(out, putUvarint(out, putUvarint(out, 0, writeNo), version), prevVersion));
  return out;
}

/** Encodes a deleted-key row. */
export function encodeDeletedRow(writeNo: number, version: number, prevVersion: number): Uint8Array {
  const out = new Uint8Array(uvarintLength(writeNo) + uvarintLength(version) + uvarintLength(prevVersion));
  putUvarint(out, putUvarint(out, putUvarint(out, 0, writeNo), version), prevVersion);
  return out;
}

/** Encodes a history row (into `arena` when given); a null value records a delete. */
export function encodeHistoryRow(
  version: number,
  prevVersion: number,
  value: Uint8Array | null,
  arena?: Arena,
): Uint8Array {
  const out = allocate(uvarintLength(version) + uvarintLength(prevVersion) + 1 + (value?.length ?? 0), arena);
  const o = putUvarint(out, putUvarint(out, 0, version), prevVersion);
  out[o] = value === null ? 0 : 1;
  if (value !== null) out.set(value, o + 1);
  return out;
}

/** Parses a latest (or deleted) row. */
export function decodeLatestRow(row: Uint8Array, hasValue: boolean): LatestRow {
  const r = new ByteReader(row);
  const writeNo = r.uvarint();
  const version = r.uvarint();
  const prevVersion = r.uvarint();
  return { writeNo, version, prevVersion, value: hasValue ? tail(row, r.offset) : undefined };
}

/**
 * The bytes of `row` from `start` on, as a plain Uint8Array view (LevelDB hands out Buffers;
 * callers get ordinary byte arrays that compare equal to any other).
 */
function tail(row: Uint8Array, start: number): Uint8Array {
  return new Uint8Array(row.buffer, row.byteOffset + start, row.length - start);
}

/** Offset just past the varint starting at `i`. */
function skipVarint(row: Uint8Array, i: number): number {
  while (row[i] & 0x80) i++;
  return i + 1;
}

function latestValue(row: Uint8Array): Uint8Array {
  // Skip three varints without allocating a reader (the hottest read path).
  return tail(row, skipVarint(row, skipVarint(row, skipVarint(row, 0))));
}

class HistoryMissingError extends StoreError {
  constructor(sid: number, writeNo: number) {
    super(
      "STORE_HISTORY_MISSING",
      `history row ${writeNo} of a key in store #${sid} is missing though its version is retained`,
    );
  }
}

/** The value of `key` at `version`, reading the latest row first and the history only when needed. */
export function readAt(
  backend: KVBackend,
  sid: number,
  key: Uint8Array,
  version: number,
  latestIsExact: boolean,
): Uint8Array | undefined {
  let row = backend.getSync(storeKey(TABLE.latest, sid, key));
  // At the latest version a missing latest row means absent; older versions may have had it.
  if (row === undefined && !latestIsExact) {
    const del = backend.getSync(storeKey(TABLE.deleted, sid, key));
    if (del !== undefined) {
      const gone = decodeLatestRow(del, false);
      return gone.version <= version ? undefined : searchHistory(backend, sid, key, version, gone);
    }
    row = latestAfterMiss(backend, sid, key);
  }
  if (row === undefined) return undefined;
  // Fast path without allocating a reader: skip the write number, read the version.
  let i = skipVarint(row, 0);
  let rowVersion = 0;
  let scale = 1;
  for (;;) {
    const byte = row[i++];
    rowVersion += (byte & 0x7f) * scale;
    if (byte < 0x80) break;
    scale *= 128;
  }
  if (rowVersion <= version) return tail(row, skipVarint(row, i));
  return searchHistory(backend, sid, key, version, decodeLatestRow(row, true));
}

/**
 * The latest row of a key that had neither a latest nor a deleted row when read one after the other: absent, unless
 * a commit set the key again over its deleted row between the two reads (LevelDB applies a batch on another thread,
 * and that commit removes the deleted row and adds the latest one at once); then its latest row is there now.
 */
function latestAfterMiss(backend: KVBackend, sid: number, key: Uint8Array): Uint8Array | undefined {
  return backend.getSync(storeKey(TABLE.latest, sid, key));
}

/**
 * The latest row of `key`: from the cache (probed with the key's bytes: no string built), else one LevelDB read
 * (kept by the cache when it accepts rows now).
 */
function latestRow(backend: KVBackend, cache: LatestValueCache, sid: number, key: Uint8Array): CachedRow {
  const hit = cache.lookupKey(sid, key);
  if (hit !== undefined) return hit;
  const bytes = backend.getSync(storeKey(TABLE.latest, sid, key));
  const row = bytes === undefined ? ABSENT_ROW : decodeLatestRow(bytes, true);
  cache.fillKey(sid, key, row);
  return row;
}

/**
 * readAt through the latest-value cache: a key whose cached latest write is at or before `version`
 * answers from memory; an older version searches the history from the cached row (one LevelDB read
 * less). A cached absence answers only at the cache's own version. `sk`, the key's binary string, is
 * what the cache keeps history rows by: built here only when a search needs it.
 */
export function readCached(
  backend: KVBackend,
  cache: LatestValueCache,
  sid: number,
  key: Uint8Array,
  sk: string | undefined,
  version: number,
  latestIsExact: boolean,
): Uint8Array | undefined {
  const top = latestRow(backend, cache, sid, key);
  if (top.value !== undefined) {
    if (top.version <= version) return top.value;
    return searchHistory(backend, sid, key, version, top, { cache, sk: sk ?? bytesToBinaryString(key) });
  }
  if (latestIsExact || (version === cache.version && cache.lookupKey(sid, key) === top)) return undefined;
  const del = backend.getSync(storeKey(TABLE.deleted, sid, key));
  if (del === undefined) {
    const again = latestAfterMiss(backend, sid, key);
    if (again === undefined) return undefined;
    const now = decodeLatestRow(again, true);
    if (now.version <= version) return now.value;
    return searchHistory(backend, sid, key, version, now, { cache, sk: sk ?? bytesToBinaryString(key) });
  }
  const gone = decodeLatestRow(del, false);
  if (gone.version <= version) return undefined;
  return searchHistory(backend, sid, key, version, gone, { cache, sk: sk ?? bytesToBinaryString(key) });
}

/**
 * The value of `key`'s write 1, made at `version`, for the commit that supersedes it when it is an imported write
 * (META.importedAt), which has no history row: the key's latest row is that write while nothing superseded it (the
 * latest-value cache's copy, else LevelDB's). Undefined when the latest row is not that write but history row 1 is on
 * disk (a commit whose write reported failure may still have applied and written it): nothing to add then.
 */
export function importedFirstValue(
  backend: KVBackend,
  cache: LatestValueCache,
  sid: number,
  key: Uint8Array,
  sk: string,
  version: number,
): Uint8Array | undefined {
  const cached = cache.lookup(sid, sk);
  let row: LatestRow | undefined = cached?.value === undefined ? undefined : cached;
  if (row === undefined) {
    const bytes = backend.getSync(storeKey(TABLE.latest, sid, key));
    if (bytes !== undefined) row = decodeLatestRow(bytes, true);
  }
  if (row !== undefined && row.writeNo === 1 && row.version === version) return row.value;
  if (backend.getSync(historyKey(sid, key, 1)) !== undefined) return undefined;
  throw new HistoryMissingError(sid, 1);
}

/** A history row: the write's version, the key's previous write's version, its value (undefined: a delete). */
export interface HistoryRow {
  version: number;
  prevVersion: number;
  value: Uint8Array | undefined;
}

/** Decodes a history row (h‖sid‖key‖writeNo's value). */
export function parseHistory(row: Uint8Array): HistoryRow {
  const r = new ByteReader(row);
  const version = r.uvarint();
  const prevVersion = r.uvarint();
  const kind = r.byte();
  return { version, prevVersion, value: kind === 1 ? tail(row, r.offset) : undefined };
}

/** Where a search may find history rows in memory: the latest-value cache, with the key's binary string. */
interface HistoryCache {
  cache: LatestValueCache;
  sk: string;
}

/** History row `writeNo` of `key`: from the cache when given (and kept there once read), else LevelDB. */
function historyRow(
  backend: KVBackend,
  sid: number,
  key: Uint8Array,
  writeNo: number,
  via: HistoryCache | undefined,
): HistoryRow | undefined {
  if (via === undefined) {
    const row = backend.getSync(historyKey(sid, key, writeNo));
    return row === undefined ? undefined : parseHistory(row);
  }
  const cached = via.cache.lookupHistory(sid, via.sk, writeNo);
  if (cached !== undefined) return cached;
  const row = backend.getSync(historyKey(sid, key, writeNo));
  if (row === undefined) return undefined;
  const parsed = parseHistory(row);
  via.cache.fillHistory(sid, via.sk, writeNo, parsed);
  return parsed;
}

function historyValue(
  backend: KVBackend,
  sid: number,
  key: Uint8Array,
  writeNo: number,
  via: HistoryCache | undefined,
): Uint8Array | undefined {
  const row = historyRow(backend, sid, key, writeNo, via);
  if (row === undefined) throw new HistoryMissingError(sid, writeNo);
  return row.value;
}

/**
 * The value of the last write of `key` at or before `version`, given a newer write `top`. Rows
 * below the retained range are gone (pruned); a missing row counts as "older than `version`".
 */
function searchHistory(
  backend: KVBackend,
  sid: number,
  key: Uint8Array,
  version: number,
  top: Pick<LatestRow, "writeNo" | "prevVersion">,
  via?: HistoryCache,
): Uint8Array | undefined {
  if (top.writeNo <= 1) return undefined;
  // The previous write is the answer: one read.
  if (top.prevVersion <= version) return historyValue(backend, sid, key, top.writeNo - 1, via);
  // Invariant: the answer is write number `lo` (0 = none); writes ≥ hi are newer than `version`.
  let lo = 0;
  let loVersion = 0;
  let loFound: HistoryRow | undefined;
  let hi = top.writeNo - 1;
  let hiVersion = top.prevVersion;
  let interpolate = true;
  while (hi - lo > 1) {
    let probe: number;
    if (interpolate) {
      const fraction = (version - loVersion) / Math.max(1, hiVersion - loVersion);
      probe = lo + Math.round(fraction * (hi - lo));
      // Writes have distinct versions, so the answer is at most `version - loVersion` writes above lo
      // and at least `hiVersion - version` writes below hi.
      probe = Math.min(probe, lo + (version - loVersion), hi - 1);
      probe = Math.max(probe, hi - (hiVersion - version), lo + 1);
    } else {
      probe = lo + Math.floor((hi - lo) / 2);
    }
    const before = hi - lo;
    const parsed = historyRow(backend, sid, key, probe, via);
    if (parsed === undefined) {
      lo = probe;
      loFound = undefined;
    } else {
      if (parsed.version <= version) {
        lo = probe;
        loVersion = parsed.version;
        loFound = parsed;
        if (parsed.version === version) break;
      } else if (parsed.prevVersion <= version) {
        // The write just before this one is the answer.
        return probe - 1 === 0 ? undefined : historyValue(backend, sid, key, probe - 1, via);
      } else {
        hi = probe - 1;
        hiVersion = parsed.prevVersion;
      }
    }
    // Interpolation is fast on steady write rates; bisect when it stops halving the interval.
    interpolate = hi - lo <= before / 2;
  }
  if (lo === 0) return undefined;
  return loFound === undefined ? historyValue(backend, sid, key, lo, via) : loFound.value;
}

function scanBounds(table: number, sid: number, range: ScanRange): KeyRange {
  const gte = range.lo === undefined ? storePrefix(table, sid) : storeKey(table, sid, range.lo);
  const lt = range.hi === undefined ? storePrefix(table, sid + 1) : storeKey(table, sid, range.hi);
  return { gte, lt, reverse: range.reverse };
}

/** scanBounds of the latest table with a limit, as one object (readRange). */
function latestBounds(sid: number, range: ScanRange, limit: number): KeyRange & { limit: number } {
  const gte = range.lo === undefined ? storePrefix(TABLE.latest, sid) : storeKey(TABLE.latest, sid, range.lo);
  const lt = range.hi === undefined ? storePrefix(TABLE.latest, sid + 1) : storeKey(TABLE.latest, sid, range.hi);
  return { gte, lt, reverse: range.reverse, limit };
}

/** The committed latest state of one store (no history lookups). */
export class LatestSource implements KVSource {
  private readonly backend: KVBackend;
  private readonly sid: number;
  private readonly cache: LatestValueCache;
  /**
   * True while latest rows of a version that will not be committed may be on disk (a discarded or failed large stage
   * whose undo has not run yet: lost-latest-rows.ts): reads then check each row's version, as at an older version.
   */
  private readonly rowsAfterLatest: () => boolean;

  constructor(backend: KVBackend, sid: number, cache: LatestValueCache, rowsAfterLatest: () => boolean = () => false) {
    this.backend = backend;
    this.sid = sid;
    this.cache = cache;
    this.rowsAfterLatest = rowsAfterLatest;
  }

  /** The latest version read row by row with version checks (while rows after it may be on disk). */
  private checked(): VersionSource {
    return new VersionSource(
      this.backend,
      this.sid,
      this.cache.version,
      () => false,
      () => {},
      this.cache,
    );
  }

  readSync(key: Uint8Array): Uint8Array | undefined {
    if (this.rowsAfterLatest()) return this.checked().readSync(key);
    return latestRow(this.backend, this.cache, this.sid, key).value;
  }

  /**
   * The range's entries. A short range read whole is remembered for the version (latest-range-cache.ts): the
   * blockers scan the same few ranges every block, and the commits in between seldom write inside them.
   */
  async *scan(range: ScanRange): AsyncIterable<[Uint8Array, Uint8Array]> {
    if (this.rowsAfterLatest()) {
      yield* this.checked().scan(range);
      return;
    }
    const cache = this.cache;
    const bounds = {
      lo: range.lo === undefined ? undefined : bytesToBinaryString(range.lo),
      hi: range.hi === undefined ? undefined : bytesToBinaryString(range.hi),
      reverse: range.reverse,
    };
    const known = cache.ranges.lookup(this.sid, bounds.lo, bounds.hi, bounds.reverse);
    if (known !== undefined) {
      for (const [k, v] of known) yield [k, v];
      return;
    }
    // Checked in the same synchronous step that opens the LevelDB iterator (its first next()), so the rows read
    // are `version`'s; fillRange checks again at the end that no commit started meanwhile.
    const version = cache.accepting ? cache.version : -1;
    let read: [Uint8Array, Uint8Array][] | undefined = version < 0 ? undefined : [];
    let bytes = 0;
    const copies = new LongScanCopies();
    for await (const [k, row] of this.backend.iterate(scanBounds(TABLE.latest, this.sid, range))) {
      const entry = copies.entry(tail(k, 5), latestValue(row));
      if (read !== undefined) {
        read.push(entry);
        bytes += entry[0].length + entry[1].length;
        if (read.length > MAX_RANGE_ENTRIES || bytes > MAX_RANGE_BYTES) read = undefined;
      }
      // A tuple of its own for the reader: the kept one must stay as read.
      yield read === undefined ? entry : [entry[0], entry[1]];
    }
    if (read !== undefined) cache.fillRange(this.sid, bounds, read, bytes, version);
  }

  /** At most `limit` entries of the range in one engine read (see KVBackend.readRange). */
  readRange(range: ScanRange, limit: number): Promise<[Uint8Array, Uint8Array][]> {
    if (this.rowsAfterLatest()) return this.checked().readRange(range, limit);
    return this.backend.readRange(latestBounds(this.sid, range, limit), latestEntry);
  }
}

function latestEntry(entry: [Uint8Array, Uint8Array]): [Uint8Array, Uint8Array] {
  return [tail(entry[0], 5), latestValue(entry[1])];
}

/** The most bytes of ranges a VersionSource remembers, and the largest range it keeps. */
const REMEMBERED_BYTES = 256 * 1024;
const REMEMBERED_RANGE_BYTES = 8 * 1024;

/** A remembered range: its bounds (copied), direction, limit and entries. */
interface RememberedRange {
  lo: Uint8Array | undefined;
  hi: Uint8Array | undefined;
  reverse: boolean;
  limit: number;
  entries: [Uint8Array, Uint8Array][];
}

// FNV-1a over the range's parts: a number to find candidates by, with no string built per read (the
// candidates' bounds are then compared byte for byte).
function rangeHash(range: ScanRange, limit: number): number {
  let hash = Math.imul(2166136261 ^ limit, 16777619) ^ (range.reverse ? 1 : 2);
  hash = hashBound(hash, range.lo);
  return hashBound(hash, range.hi);
}

function hashBound(hash: number, bound: Uint8Array | undefined): number {
  if (bound === undefined) return Math.imul(hash ^ 0x100, 16777619);
  let h = Math.imul(hash ^ (bound.length + 0x200), 16777619);
  for (let i = 0; i < bound.length; i++) h = Math.imul(h ^ bound[i], 16777619);
  return h;
}

function sameBound(a: Uint8Array | undefined, b: Uint8Array | undefined): boolean {
  return a === undefined || b === undefined ? a === b : equalBytes(a, b);
}

function sameRange(known: RememberedRange, range: ScanRange, limit: number): boolean {
  return (
    known.limit === limit &&
    known.reverse === range.reverse &&
    sameBound(known.lo, range.lo) &&
    sameBound(known.hi, range.hi)
  );
}

/** One store at one committed version. `check` runs before every read (it rejects pruned versions). */
export class VersionSource implements KVSource {
  private readonly backend: KVBackend;
  private readonly sid: number;
  private readonly version: number;
  /** True while `version` is the latest committed version and no commit is being written. */
  private readonly isExactLatest: () => boolean;
  private readonly check: () => void;
  private readonly cache: LatestValueCache;
  /** Short ranges read before, by rangeHash (see remember). */
  private ranges: Map<number, RememberedRange[]> | undefined;
  private rememberedBytes = 0;

  constructor(
    backend: KVBackend,
    sid: number,
    version: number,
    isExactLatest: () => boolean,
    check: () => void,
    cache: LatestValueCache,
  ) {
    this.backend = backend;
    this.sid = sid;
    this.version = version;
    this.isExactLatest = isExactLatest;
    this.check = check;
    this.cache = cache;
  }

  readSync(key: Uint8Array, sk?: string): Uint8Array | undefined {
    this.check();
    return readCached(this.backend, this.cache, this.sid, key, sk, this.version, this.isExactLatest());
  }

  /**
   * `readSync` as a promise. At the latest version a cached key's promise is kept by the cache (made on its
   * first read here), so a repeated read is one probe and allocates nothing.
   */
  readPromise(key: Uint8Array): Promise<Uint8Array | undefined> {
    this.check();
    const sk = bytesToBinaryString(key);
    if (!this.isExactLatest()) {
      return Promise.resolve(readCached(this.backend, this.cache, this.sid, key, sk, this.version, false));
    }
    const kept = this.cache.promiseOf(this.sid, sk);
    if (kept !== undefined) return kept;
    const row = latestRow(this.backend, this.cache, this.sid, key);
    const promise = Promise.resolve(row.value);
    this.cache.keepPromise(this.sid, sk, row, promise);
    return promise;
  }

  scan(range: ScanRange): AsyncIterable<[Uint8Array, Uint8Array]> {
    // At the latest version (what most queries read) rows map one to one to entries, mapped by the
    // engine iteration itself (no generator layer). The check and the choice happen at the first
    // next(), in the same step that opens the engine iterator.
    return new LazyEntries(() => {
      this.check();
      if (!this.isExactLatest()) return this.scanHistory(range);
      const copies = new LongScanCopies();
      return this.backend.iterate(scanBounds(TABLE.latest, this.sid, range), (entry) =>
        copies.entry(tail(entry[0], 5), latestValue(entry[1])),
      );
    });
  }

  /**
   * At most `limit` entries of the range: at the latest version one engine read (the engine
   * iterator is opened in the same step as the check, as scan's is); below it, the history scan.
   */
  readRange(range: ScanRange, limit: number): Promise<[Uint8Array, Uint8Array][]> {
    try {
      this.check();
    } catch (err) {
      return Promise.reject(err);
    }
    const hash = rangeHash(range, limit);
    const candidates = this.ranges?.get(hash);
    if (candidates !== undefined) {
      for (const known of candidates) if (sameRange(known, range, limit)) return Promise.resolve(known.entries.slice());
    }
    const read = this.isExactLatest()
      ? this.backend.readRange(latestBounds(this.sid, range, limit), latestEntry)
      : collectEntries(this.scanHistory(range), limit);
    return read.then((entries) => {
      this.remember(hash, range, limit, entries);
      return entries;
    });
  }

  /**
   * Keeps a short range's entries: the state at a committed version never changes, and the latest
   * version's sources live for a block, shared by every query at it (App.createQueryContext), which
   * then reads a range it has read before without opening an engine iterator. Bounded: ranges of at
   * most REMEMBERED_RANGE_BYTES, REMEMBERED_BYTES in all (keys, values and bounds counted).
   */
  private remember(hash: number, range: ScanRange, limit: number, entries: [Uint8Array, Uint8Array][]): void {
    if (this.rememberedBytes >= REMEMBERED_BYTES) return;
    let bytes = (range.lo?.length ?? 0) + (range.hi?.length ?? 0);
    for (const [k, v] of entries) bytes += k.length + v.length;
    if (bytes > REMEMBERED_RANGE_BYTES) return;
    this.rememberedBytes += bytes;
    this.ranges ??= new Map();
    const known: RememberedRange = {
      lo: range.lo?.slice(),
      hi: range.hi?.slice(),
      reverse: range.reverse,
      limit,
      entries: entries.slice(),
    };
    const candidates = this.ranges.get(hash);
    if (candidates === undefined) this.ranges.set(hash, [known]);
    else candidates.push(known);
  }

  private async *scanHistory(range: ScanRange): AsyncIterable<[Uint8Array, Uint8Array]> {
    // Keys that existed at this version are live now (latest rows) or deleted since (deleted rows). Both tables are
    // read from one snapshot: a commit landing between two iterators' openings would move a key from one table to
    // the other (a delete: listed twice; a set over a deleted row: missed). History rows are read as they are now:
    // a retained version's never change, and a pruned version is refused by the check.
    const snapshot = this.backend.snapshot();
    try {
      const live = snapshot.iterate(scanBounds(TABLE.latest, this.sid, range));
      const gone = snapshot.iterate(scanBounds(TABLE.deleted, this.sid, range));
      for await (const [key, row, isLive] of mergeByKey(live, gone, range.reverse)) {
        this.check();
        const top = decodeLatestRow(row, isLive);
        let value: Uint8Array | undefined;
        if (top.version <= this.version) value = top.value;
        else value = searchHistory(this.backend, this.sid, key, this.version, top);
        if (value !== undefined) yield [key, value];
      }
    } finally {
      await snapshot.close();
    }
  }
}

/**
 * Merges two key-ordered scans of per-store tables (over disjoint key sets), stripping the
 * table and store prefix, tagging entries from the first.
 */
async function* mergeByKey(
  a: AsyncIterable<[Uint8Array, Uint8Array]>,
  b: AsyncIterable<[Uint8Array, Uint8Array]>,
  reverse: boolean,
): AsyncIterable<[Uint8Array, Uint8Array, boolean]> {
  const ia = a[Symbol.asyncIterator]();
  const ib = b[Symbol.asyncIterator]();
  let na = await ia.next();
  let nb = await ib.next();
  try {
    while (!na.done || !nb.done) {
      let takeA: boolean;
      if (na.done) takeA = false;
      else if (nb.done) takeA = true;
      else takeA = compareBytes(na.value[0].subarray(5), nb.value[0].subarray(5)) * (reverse ? -1 : 1) <= 0;
      if (takeA && !na.done) {
        yield [tail(na.value[0], 5), na.value[1], true];
        na = await ia.next();
      } else if (!nb.done) {
        yield [tail(nb.value[0], 5), nb.value[1], false];
        nb = await ib.next();
      }
    }
  } finally {
    if (!na.done) await ia.return?.();
    if (!nb.done) await ib.return?.();
  }
}
