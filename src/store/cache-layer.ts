// One cache-wrapped layer of a store: pending sets and deletes over a parent layer. Reads see the
// pending writes first; iteration merges the pending writes (kept sorted incrementally) with the
// parent's scan, in order, hiding deleted keys. `flushInto` hands the writes to the parent as a whole.
// A layer holds its writes in a Map of write objects while they are few (a transaction's, a block's) and moves
// them to the compact form of compact-writes.ts once it holds more than `compactAfter` (a migration's million).

import { compareBytes } from "../bytes/compare.ts";
import { bytesToBinaryString } from "../bytes/text.ts";
import { CompactSortedWrites, CompactWrites, type PendingRun, type WriteView } from "./compact-writes.ts";
import { sortByBinaryKey } from "./key-sort.ts";
import {
  assertKey,
  assertValue,
  isEmptyRange,
  type KVSource,
  limited,
  type ScanRange,
  toScanRange,
} from "./kv-source.ts";
import type { IterateOptions, KVStore } from "./types.ts";

/** A pending write; `value` null marks a delete. */
export interface PendingWrite {
  readonly sk: string;
  readonly key: Uint8Array;
  value: Uint8Array | null;
}

export type { WriteView } from "./compact-writes.ts";

/**
 * A layer's pending writes in key order, for a walk: the small form's array of write objects, or the compact form's
 * `CompactSortedWrites`, which makes each write's object (copies of its bytes) as the walk reaches it.
 */
export type SortedWrites = readonly PendingWrite[] | CompactSortedWrites;

/**
 * Pending writes above which a layer moves them to the compact form. A transaction's layer holds a handful and a
 * block's up to a few ten thousand: they keep the Map, whose writes and reads cost less (no copy of a value read
 * back), at ~700 bytes a write (≤ ~23 MiB here); a migration's layer holds ~40 bytes a write beside its bytes from
 * here on. Measured (sets and a sorted walk, both forms alternating in one process, 32-byte keys, 100-byte values):
 * with the switch at 4,096 the compact form took 10.4–16.6 ms for 10k writes against the Map's 8.1–12.1 (the bench's
 * commit of 10k), 51.7 against 49.4 at 32k, 82.5 against 80.0 at 50k and 142 against 219 at 100k: past ~32k it
 * costs no time, so the switch waits until then.
 */
let compactAfter = 32_768;

/** Sets the number of writes above which layers go compact (tests run both forms with it); returns the old one. */
export function setCompactAfter(writes: number): number {
  const old = compactAfter;
  compactAfter = writes;
  return old;
}

/**
 * Write `i` of a layer's sorted writes: the small form's object, or the compact form's view made for it (a copy of the
 * key, the value as a view: CompactSortedWrites.at). For the stage, which numbers its changes by the writes' order.
 */
export function writeAt(writes: SortedWrites, i: number): PendingWrite | WriteView {
  return writes instanceof CompactSortedWrites ? writes.at(i) : writes[i];
}

/** Something that can absorb a layer's writes. */
export interface WriteTarget {
  applyWrite(sk: string, key: Uint8Array, value: Uint8Array | null): void;
}

/** The keys of a run of writes, in their order (what the tree's path warming walks). */
export function* keysOf(writes: SortedWrites): Iterable<Uint8Array> {
  if (writes instanceof CompactSortedWrites) {
    yield* writes.keys();
    return;
  }
  for (const w of writes) yield w.key;
}

function lowerBound(entries: PendingWrite[], sk: string): number {
  let lo = 0;
  let hi = entries.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (entries[mid].sk < sk) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// Keys whose parent value one layer remembers at most (a block touching more keys reads the rest from
// its parent each time, as before).
const MAX_CACHED_READS = 8192;

/** A store layer holding pending writes over a parent source. */
export class CacheLayer implements KVStore, KVSource, WriteTarget {
  private readonly parent: KVSource;
  private pending = new Map<string, PendingWrite>();
  /** Entries in key order (every pending key except those in `unsorted`). */
  private sorted: PendingWrite[] = [];
  /** Keys added since the last sort; merged into `sorted` on the next scan. */
  private unsorted: PendingWrite[] = [];
  /** The writes in the compact form, once there were more than `compactAfter` (then `pending` is empty). */
  private compact: CompactWrites | undefined;
  /** Called before any write; lets the owner refuse writes (e.g. while a version is staged). */
  private readonly guard: (() => void) | undefined;
  /**
   * Values read from the parent (null: absent), for layers whose parent only changes under their own
   * hands (see enableReadCache). A written key leaves it: the pending write answers from then on.
   */
  private reads: Map<string, Uint8Array | null> | undefined;

  constructor(parent: KVSource, guard?: () => void) {
    this.parent = parent;
    this.guard = guard;
  }

  /** Number of pending writes (sets and deletes). */
  get size(): number {
    return this.compact === undefined ? this.pending.size : this.compact.size;
  }

  /**
   * Remembers what this layer reads from its parent (up to MAX_CACHED_READS keys), as upstream's cachekv
   * does: a block or a CheckTx reads the same params, module accounts and denoms for every tx, and each
   * read of the committed state is a LevelDB lookup. Only for a layer whose parent does not change
   * while it lives except through this layer's own flush — a top-level branch over the working set
   * (its parent changes when another branch is staged into it; a branch that lives across that, the
   * check state, then keeps answering from the state it started from, as upstream's check state does).
   */
  enableReadCache(): void {
    this.reads ??= new Map();
  }

  readSync(key: Uint8Array, sk?: string): Uint8Array | undefined {
    const compact = this.compact;
    let s: string;
    if (compact === undefined) {
      s = sk ?? bytesToBinaryString(key);
      const entry = this.pending.get(s);
      if (entry !== undefined) return entry.value ?? undefined;
    } else {
      const e = compact.find(key);
      if (e >= 0) return compact.valueOf(e) ?? undefined;
      if (this.reads === undefined) return this.parent.readSync(key, sk);
      s = sk ?? bytesToBinaryString(key);
    }
    const reads = this.reads;
    if (reads === undefined) return this.parent.readSync(key, s);
    const cached = reads.get(s);
    if (cached !== undefined) return cached ?? undefined;
    const value = this.parent.readSync(key, s);
    if (reads.size < MAX_CACHED_READS) reads.set(s, value ?? null);
    return value;
  }

  async get(key: Uint8Array): Promise<Uint8Array | undefined> {
    return this.getNow(key);
  }

  getNow(key: Uint8Array): Uint8Array | undefined {
    assertKey(key, "get");
    return this.readSync(key);
  }

  async has(key: Uint8Array): Promise<boolean> {
    assertKey(key, "has");
    return this.readSync(key) !== undefined;
  }

  set(key: Uint8Array, value: Uint8Array): void {
    assertKey(key, "set");
    assertValue(value, "set");
    if (this.compact !== undefined) this.writeCompact(this.compact, undefined, key, value);
    else this.applyWrite(bytesToBinaryString(key), key, value);
  }

  delete(key: Uint8Array): void {
    assertKey(key, "delete");
    if (this.compact !== undefined) this.writeCompact(this.compact, undefined, key, null);
    else this.applyWrite(bytesToBinaryString(key), key, null);
  }

  /** A write in the compact form: the key's string only when the read cache has something to forget. */
  private writeCompact(compact: CompactWrites, sk: string | undefined, key: Uint8Array, value: Uint8Array | null) {
    this.guard?.();
    const reads = this.reads;
    if (reads !== undefined && reads.size !== 0) reads.delete(sk ?? bytesToBinaryString(key));
    compact.put(key, value);
  }

  applyWrite(sk: string, key: Uint8Array, value: Uint8Array | null): void {
    if (this.compact !== undefined) {
      this.writeCompact(this.compact, sk, key, value);
      return;
    }
    this.guard?.();
    // A lookup less per write when nothing was read (a block that only writes).
    const reads = this.reads;
    if (reads !== undefined && reads.size !== 0) reads.delete(sk);
    const entry = this.pending.get(sk);
    if (entry !== undefined) {
      entry.value = value;
      return;
    }
    const created: PendingWrite = { sk, key, value };
    this.pending.set(sk, created);
    this.unsorted.push(created);
    if (this.pending.size > compactAfter) this.toCompact();
  }

  /** Moves the writes to the compact form (in key order: the compact set then has nothing to sort). */
  private toCompact(): void {
    const compact = new CompactWrites();
    for (const w of this.sortedSmall()) compact.put(w.key, w.value);
    this.compact = compact;
    this.pending = new Map();
    this.sorted = [];
    this.unsorted = [];
  }

  /** Whether `key` has a pending write (a set or a delete). */
  hasWrite(key: Uint8Array): boolean {
    return this.compact === undefined ? this.pending.has(bytesToBinaryString(key)) : this.compact.find(key) >= 0;
  }

  /** The keys of the pending writes (binary strings), in no order. */
  pendingKeys(): IterableIterator<string> {
    return this.compact === undefined ? this.pending.keys() : this.compact.keyStrings();
  }

  /** Pending writes in key order (see SortedWrites). */
  sortedWrites(): SortedWrites {
    return this.compact === undefined ? this.sortedSmall() : this.compact.sorted();
  }

  /** The small form's writes in key order. */
  private sortedSmall(): PendingWrite[] {
    if (this.unsorted.length > 0) {
      const fresh = sortByBinaryKey(this.unsorted);
      this.unsorted = [];
      if (this.sorted.length === 0) {
        this.sorted = fresh;
      } else {
        const merged: PendingWrite[] = new Array(this.sorted.length + fresh.length);
        let i = 0;
        let j = 0;
        let k = 0;
        while (i < this.sorted.length && j < fresh.length) {
          merged[k++] = this.sorted[i].sk < fresh[j].sk ? this.sorted[i++] : fresh[j++];
        }
        while (i < this.sorted.length) merged[k++] = this.sorted[i++];
        while (j < fresh.length) merged[k++] = fresh[j++];
        this.sorted = merged;
      }
    }
    return this.sorted;
  }

  /** Hands every pending write to `target` and empties this layer. */
  flushInto(target: WriteTarget): void {
    if (target instanceof CacheLayer && target.size === 0 && this.size > 0) {
      // An empty parent (a block's first flush into the working set) takes the writes as they
      // are, sorted part included: no copy per write.
      target.guard?.();
      const reads = target.reads;
      if (reads !== undefined && reads.size !== 0) for (const sk of this.pendingKeys()) reads.delete(sk);
      target.pending = this.pending;
      target.sorted = this.sorted;
      target.unsorted = this.unsorted;
      target.compact = this.compact;
      this.pending = new Map();
      this.sorted = [];
      this.unsorted = [];
      this.compact = undefined;
      return;
    }
    if (this.compact !== undefined) {
      for (const [sk, key, value] of this.compact.inWriteOrder()) target.applyWrite(sk, key, value);
    } else {
      for (const entry of this.pending.values()) target.applyWrite(entry.sk, entry.key, entry.value);
    }
    this.clear();
  }

  /** Drops every pending write (a compact layer goes back to the small form). */
  clear(): void {
    this.pending.clear();
    this.sorted = [];
    this.unsorted = [];
    this.compact = undefined;
  }

  iterate(options?: IterateOptions): AsyncIterable<[Uint8Array, Uint8Array]> {
    const { range, limit } = toScanRange(options);
    return limited(this.scan(range), limit);
  }

  scan(range: ScanRange): AsyncIterable<[Uint8Array, Uint8Array]> {
    if (isEmptyRange(range)) return emptyScan();
    // Snapshot the pending part now, so writes made while iterating do not disturb the iteration.
    if (this.compact !== undefined) {
      const run = this.compact.snapshot(range.lo, range.hi, range.reverse);
      if (run.length === 0) return this.parent.scan(range);
      return mergeRunScan(this.parent.scan(range), run, range.reverse);
    }
    const writes = this.sortedSmall();
    const from = range.lo === undefined ? 0 : lowerBound(writes, bytesToBinaryString(range.lo));
    const to = range.hi === undefined ? writes.length : lowerBound(writes, bytesToBinaryString(range.hi));
    const snapshot: [Uint8Array, Uint8Array | null][] = [];
    if (range.reverse) {
      for (let i = to - 1; i >= from; i--) snapshot.push([writes[i].key, writes[i].value]);
    } else {
      for (let i = from; i < to; i++) snapshot.push([writes[i].key, writes[i].value]);
    }
    if (snapshot.length === 0) return this.parent.scan(range);
    return mergeScan(this.parent.scan(range), snapshot, range.reverse);
  }
}

async function* emptyScan(): AsyncIterable<[Uint8Array, Uint8Array]> {}

/**
 * Merges a parent scan with pending writes (both in scan order). A pending write shadows the
 * parent entry with the same key; pending deletes hide keys.
 */
export async function* mergeScan(
  parent: AsyncIterable<[Uint8Array, Uint8Array]>,
  pending: [Uint8Array, Uint8Array | null][],
  reverse: boolean,
): AsyncIterable<[Uint8Array, Uint8Array]> {
  const dir = reverse ? -1 : 1;
  let p = 0;
  for await (const entry of parent) {
    while (p < pending.length) {
      const c = compareBytes(pending[p][0], entry[0]) * dir;
      if (c > 0) break;
      const [key, value] = pending[p++];
      if (c === 0) {
        if (value !== null) yield [key, value];
        // The parent entry is shadowed.
        continue;
      }
      if (value !== null) yield [key, value];
    }
    // Emit the parent entry unless a pending write with the same key was just consumed.
    if (p > 0 && compareBytes(pending[p - 1][0], entry[0]) === 0) continue;
    yield entry;
  }
  for (; p < pending.length; p++) {
    const [key, value] = pending[p];
    if (value !== null) yield [key, value];
  }
}

/**
 * mergeScan over a compact layer's snapshot, whose keys and values are copies made when asked for: each pending
 * key is fetched once. (The small form keeps mergeScan over its pairs: a tx's scans are on the per-tx path.)
 */
async function* mergeRunScan(
  parent: AsyncIterable<[Uint8Array, Uint8Array]>,
  pending: PendingRun,
  reverse: boolean,
): AsyncIterable<[Uint8Array, Uint8Array]> {
  const dir = reverse ? -1 : 1;
  const n = pending.length;
  let p = 0;
  let key = n > 0 ? pending.key(0) : undefined;
  for await (const entry of parent) {
    let shadowed = false;
    while (key !== undefined) {
      const c = compareBytes(key, entry[0]) * dir;
      if (c > 0) break;
      const value = pending.value(p);
      const current = key;
      p++;
      key = p < n ? pending.key(p) : undefined;
      if (value !== null) yield [current, value];
      if (c === 0) {
        // The parent entry is shadowed (keys are distinct: the next pending key is past it).
        shadowed = true;
        break;
      }
    }
    if (!shadowed) yield entry;
  }
  while (key !== undefined) {
    const value = pending.value(p);
    const current = key;
    p++;
    key = p < n ? pending.key(p) : undefined;
    if (value !== null) yield [current, value];
  }
}
