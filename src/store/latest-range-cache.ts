// Short ranges of the latest state, remembered whole. Every block's begin and end blockers scan the same few
// ranges of the committed state (staking's last validator powers, twice; gov's two proposal queues), and each
// scan opened a LevelDB iterator and waited for the thread pool at least once, although the ranges change
// only when a commit writes inside them. The latest-value cache (latest-cache.ts) owns this one: it keeps
// the same invariant and hears the same commit events. An entry is the complete, in-order content of one
// range as of `version`; a commit drops every entry whose range holds a key it wrote (or deleted), a failed
// commit drops them all, and nothing is added while a commit's batch is being written.

/** One remembered range: its bounds as binary strings (byte order = string order), direction and content. */
interface RangeEntry {
  readonly lo: string | undefined;
  readonly hi: string | undefined;
  readonly reverse: boolean;
  readonly entries: readonly (readonly [Uint8Array, Uint8Array])[];
  readonly bytes: number;
}

/** A range's content larger than this (entries or bytes) is not kept: the cache is for the blockers' small ranges. */
export const MAX_RANGE_ENTRIES = 64;
export const MAX_RANGE_BYTES = 16 * 1024;
/** All remembered ranges together; past it every range is forgotten (they are refilled by the next scans). */
const TOTAL_BYTES = 1024 * 1024;
/** What an entry costs beyond its bytes (arrays, views, the record): an estimate. */
const OVERHEAD = 96;

function contains(range: RangeEntry, sk: string): boolean {
  return (range.lo === undefined || sk >= range.lo) && (range.hi === undefined || sk < range.hi);
}

export class LatestRangeCache {
  private readonly stores = new Map<number, RangeEntry[]>();
  private bytes = 0;

  /** The remembered content of [lo, hi) of store `sid`, when exactly this range was read whole before. */
  lookup(
    sid: number,
    lo: string | undefined,
    hi: string | undefined,
    reverse: boolean,
  ): readonly (readonly [Uint8Array, Uint8Array])[] | undefined {
    const ranges = this.stores.get(sid);
    if (ranges === undefined) return undefined;
    for (const r of ranges) if (r.lo === lo && r.hi === hi && r.reverse === reverse) return r.entries;
    return undefined;
  }

  /** Keeps the whole content of a range just read (the caller checks that it is the committed version's). */
  add(
    sid: number,
    lo: string | undefined,
    hi: string | undefined,
    reverse: boolean,
    entries: readonly (readonly [Uint8Array, Uint8Array])[],
    contentBytes: number,
  ): void {
    if (entries.length > MAX_RANGE_ENTRIES || contentBytes > MAX_RANGE_BYTES) return;
    const bytes = contentBytes + OVERHEAD * (entries.length + 1) + (lo?.length ?? 0) + (hi?.length ?? 0);
    if (this.bytes + bytes > TOTAL_BYTES) this.clear();
    let ranges = this.stores.get(sid);
    if (ranges === undefined) {
      ranges = [];
      this.stores.set(sid, ranges);
    }
    if (ranges.some((r) => r.lo === lo && r.hi === hi && r.reverse === reverse)) return;
    ranges.push({ lo, hi, reverse, entries, bytes });
    this.bytes += bytes;
  }

  /** A commit wrote (or deleted) `keys` (binary strings) in store `sid`: the ranges holding any of them go. */
  written(sid: number, keys: Iterable<string>): void {
    let ranges = this.stores.get(sid);
    if (ranges === undefined) return;
    for (const sk of keys) {
      if (!ranges.some((r) => contains(r, sk))) continue;
      const kept: RangeEntry[] = [];
      for (const r of ranges) {
        if (contains(r, sk)) this.bytes -= r.bytes;
        else kept.push(r);
      }
      ranges = kept;
      if (ranges.length === 0) break;
    }
    if (ranges.length === 0) this.stores.delete(sid);
    else this.stores.set(sid, ranges);
  }

  /** Whether store `sid` has remembered ranges (a commit's keys need checking only then). */
  has(sid: number): boolean {
    return this.stores.has(sid);
  }

  /** Forgets a store's ranges (a store deleted by an upgrade). */
  dropStore(sid: number): void {
    const ranges = this.stores.get(sid);
    if (ranges === undefined) return;
    for (const r of ranges) this.bytes -= r.bytes;
    this.stores.delete(sid);
  }

  /** Forgets every range. */
  clear(): void {
    this.stores.clear();
    this.bytes = 0;
  }

  /** Ranges held: for tests. */
  get size(): number {
    let n = 0;
    for (const ranges of this.stores.values()) n += ranges.length;
    return n;
  }
}
