// A layer's pending writes held compactly: what a cache layer switches to once it holds many writes (a migration
// that rewrites a million records in one upgrade handler). In the small form (cache-layer.ts) a write costs a Map
// entry, the key's binary string, a write object and the caller's two arrays — ~500 bytes of V8 heap, plus ~180 of
// native memory when the key came from a LevelDB iterator (a buffer of its own, kept alive by the layer). Here the
// key's and value's bytes are copied into large chunks and a write costs ~20 bytes of entry, ~16–32 of index and 4
// of sorted order beside its bytes, and no caller's array stays referenced.
//
// - bytes: 256 KiB chunks, filled one after another (a position is chunk << 18 | offset); an item over 16 KiB gets
//   an array of its own (position −1 − its number).
// - entries (numbered in order of first write, never removed until the whole set is dropped): the key's position
//   and length, the value's position and length (−1 a delete), and the scan epoch the value was written in.
// - the index: open addressing with linear probing over pairs [hash of the key's bytes, entry + 1], at most half
//   full, probed with the caller's key bytes (no string built).
// - sorted order: an Int32Array of entry numbers in key order up to `sortedUpTo`; the entries after it were added
//   since and are sorted (a radix pass on the first differing byte, or nothing when they came in key order, as a
//   migration's writes do) and merged into a fresh array on the next walk. An order array is never changed once
//   made, so a walk that holds one keeps its order.
//
// Keys and values leave as fresh exact copies (never views of a chunk: a view kept by the tree or a cache would
// keep its whole chunk alive), but for the values of the stage's walk (`walkedWrite`). A scan takes a snapshot of
// its range (the order array and each write's value position then); a value written again is stored over the old
// bytes only when no scan began since it was written and it fits, else appended, so a scan's snapshot never changes
// under it.
import { binaryStringAt } from "../bytes/text.ts";

const CHUNK_SHIFT = 18;
const CHUNK_BYTES = 1 << CHUNK_SHIFT;
const OFFSET_MASK = CHUNK_BYTES - 1;
/** Chunk numbers must keep positions below 2^31. */
const MAX_CHUNKS = 1 << (31 - CHUNK_SHIFT);
/** Items longer than this get an array of their own. */
const OWN_ABOVE = 16 * 1024;

/** Ints in an entry. */
const STRIDE = 5;
const KEY_POS = 0;
const KEY_LEN = 1;
const VAL_POS = 2;
/** −1: a delete. */
const VAL_LEN = 3;
const EPOCH = 4;

const MIN_ENTRIES = 1024;
const SEED = (Math.random() * 0x100000000) | 0;

function mix(h: number, w: number): number {
  h = Math.imul(h ^ w, 0x5bd1e995);
  return h ^ (h >>> 15);
}

/** The hash of a key's bytes (seeded per process: keys are chosen by users). */
function hashBytes(key: Uint8Array): number {
  const n = key.length;
  let h = SEED ^ n;
  let i = 0;
  for (; i + 4 <= n; i += 4) h = mix(h, key[i] | (key[i + 1] << 8) | (key[i + 2] << 16) | (key[i + 3] << 24));
  for (; i < n; i++) h = mix(h, key[i]);
  h = Math.imul(h ^ (h >>> 13), 0x85ebca6b);
  return h ^ (h >>> 16);
}

/** One write as a walk in key order hands it out; `sk` (the key's binary string) when the layer holds it. */
export interface WriteView {
  readonly key: Uint8Array;
  /** null: a delete. */
  readonly value: Uint8Array | null;
  readonly sk?: string;
}

/** Pending writes a scan merges with its parent's entries: a snapshot, in scan order. */
export interface PendingRun {
  readonly length: number;
  key(i: number): Uint8Array;
  /** null: a delete. */
  value(i: number): Uint8Array | null;
}

/** A set of pending writes in the compact form (see the file comment). Never emptied: a layer drops it whole. */
export class CompactWrites {
  private chunks: Uint8Array[] = [];
  private own: Uint8Array[] = [];
  /** Bytes used of the last chunk (a full chunk when there is none). */
  private used = CHUNK_BYTES;
  private entries = new Int32Array(MIN_ENTRIES * STRIDE);
  private count = 0;
  private index = new Int32Array(MIN_ENTRIES * 4);
  private mask = MIN_ENTRIES * 2 - 1;
  /** Entry numbers in key order: [0, sortedUpTo) of them are sorted; entries from sortedUpTo on are not in it. */
  private order: Int32Array = new Int32Array(0);
  private sortedUpTo = 0;
  /** Whether the entries from sortedUpTo on came in key order. */
  private freshInOrder = true;
  /** Scans begun (a value written in an earlier epoch may be in a scan's snapshot: not written over). */
  private epoch = 0;
  /** Changes made (any write): a staged-ahead commit stands only for the writes at one stamp. */
  stamp = 0;

  /** Pending writes (sets and deletes). */
  get size(): number {
    return this.count;
  }

  // ---- bytes ----

  private store(bytes: Uint8Array): number {
    const n = bytes.length;
    if (n === 0) return 0;
    if (n > OWN_ABOVE || (this.used + n > CHUNK_BYTES && this.chunks.length >= MAX_CHUNKS)) {
      this.own.push(bytes.slice());
      return -this.own.length;
    }
    if (this.used + n > CHUNK_BYTES) {
      this.chunks.push(new Uint8Array(CHUNK_BYTES));
      this.used = 0;
    }
    const c = this.chunks.length - 1;
    const off = this.used;
    this.chunks[c].set(bytes, off);
    this.used = off + n;
    return (c << CHUNK_SHIFT) | off;
  }

  private arrayOf(pos: number): Uint8Array {
    return pos < 0 ? this.own[-pos - 1] : this.chunks[pos >>> CHUNK_SHIFT];
  }

  private copyOut(pos: number, len: number): Uint8Array {
    if (len === 0) return new Uint8Array(0);
    if (pos < 0) return this.own[-pos - 1].slice(0, len);
    const off = pos & OFFSET_MASK;
    return this.chunks[pos >>> CHUNK_SHIFT].slice(off, off + len);
  }

  // ---- keys ----

  private sameKey(e: number, key: Uint8Array): boolean {
    const b = e * STRIDE;
    const n = key.length;
    if (this.entries[b + KEY_LEN] !== n) return false;
    const pos = this.entries[b + KEY_POS];
    const bytes = this.arrayOf(pos);
    const off = pos < 0 ? 0 : pos & OFFSET_MASK;
    for (let i = 0; i < n; i++) if (bytes[off + i] !== key[i]) return false;
    return true;
  }

  /** Entry a's key against entry b's (byte order). */
  compareEntries(a: number, b: number): number {
    const entries = this.entries;
    const pa = entries[a * STRIDE + KEY_POS];
    const pb = entries[b * STRIDE + KEY_POS];
    const na = entries[a * STRIDE + KEY_LEN];
    const nb = entries[b * STRIDE + KEY_LEN];
    const ba = this.arrayOf(pa);
    const bb = this.arrayOf(pb);
    const oa = pa < 0 ? 0 : pa & OFFSET_MASK;
    const ob = pb < 0 ? 0 : pb & OFFSET_MASK;
    const n = Math.min(na, nb);
    for (let i = 0; i < n; i++) {
      const d = ba[oa + i] - bb[ob + i];
      if (d !== 0) return d;
    }
    return na - nb;
  }

  /** Entry e's key against `key` (byte order). */
  private compareWith(e: number, key: Uint8Array): number {
    const pos = this.entries[e * STRIDE + KEY_POS];
    const len = this.entries[e * STRIDE + KEY_LEN];
    const bytes = this.arrayOf(pos);
    const off = pos < 0 ? 0 : pos & OFFSET_MASK;
    const n = Math.min(len, key.length);
    for (let i = 0; i < n; i++) {
      const d = bytes[off + i] - key[i];
      if (d !== 0) return d;
    }
    return len - key.length;
  }

  /** Byte `depth` of entry e's key + 1, or 0 when the key ends before it (for the radix pass). */
  keyByte(e: number, depth: number): number {
    const b = e * STRIDE;
    if (depth >= this.entries[b + KEY_LEN]) return 0;
    const pos = this.entries[b + KEY_POS];
    return (pos < 0 ? this.own[-pos - 1][depth] : this.chunks[pos >>> CHUNK_SHIFT][(pos & OFFSET_MASK) + depth]) + 1;
  }

  /** A copy of entry e's key. */
  keyOf(e: number): Uint8Array {
    return this.copyOut(this.entries[e * STRIDE + KEY_POS], this.entries[e * STRIDE + KEY_LEN]);
  }

  /** Entry e's key as a binary string (one char a byte). */
  keyStringOf(e: number): string {
    const pos = this.entries[e * STRIDE + KEY_POS];
    const off = pos < 0 ? 0 : pos & OFFSET_MASK;
    return binaryStringAt(this.arrayOf(pos), off, off + this.entries[e * STRIDE + KEY_LEN]);
  }

  /**
   * Entry e as a walk in key order hands it out: a copy of its key (the tree keeps it in a leaf) and a view of its
   * value (the stage only hashes it and writes it into the batch, and drops it with the staged version; a view costs
   * no backing store of its own, which a copy of more than 64 bytes does). `sorted()` began a new epoch, so the
   * value's bytes are never written over while the view may live.
   */
  walkedWrite(e: number): WriteView {
    const b = e * STRIDE;
    const len = this.entries[b + VAL_LEN];
    let value: Uint8Array | null = null;
    if (len >= 0) {
      const pos = this.entries[b + VAL_POS];
      const off = pos < 0 ? 0 : pos & OFFSET_MASK;
      value = len === 0 ? new Uint8Array(0) : this.arrayOf(pos).subarray(off, off + len);
    }
    return { key: this.keyOf(e), value };
  }

  /** A copy of entry e's value, null for a delete. */
  valueOf(e: number): Uint8Array | null {
    const len = this.entries[e * STRIDE + VAL_LEN];
    return len < 0 ? null : this.copyOut(this.entries[e * STRIDE + VAL_POS], len);
  }

  // ---- the index ----

  /** The entry holding `key`, or −1. */
  find(key: Uint8Array): number {
    const h = hashBytes(key);
    const index = this.index;
    const mask = this.mask;
    for (let i = h & mask; ; i = (i + 1) & mask) {
      const ref = index[(i << 1) + 1];
      if (ref === 0) return -1;
      if (index[i << 1] === h && this.sameKey(ref - 1, key)) return ref - 1;
    }
  }

  /** Sets `key` to `value` (null: deletes it). Both are copied. */
  put(key: Uint8Array, value: Uint8Array | null): void {
    this.stamp++;
    const h = hashBytes(key);
    const index = this.index;
    const mask = this.mask;
    let i = h & mask;
    for (; ; i = (i + 1) & mask) {
      const ref = index[(i << 1) + 1];
      if (ref === 0) break;
      if (index[i << 1] === h && this.sameKey(ref - 1, key)) {
        this.setValue(ref - 1, value);
        return;
      }
    }
    const e = this.count;
    if ((e + 1) * STRIDE > this.entries.length) {
      const grown = new Int32Array(this.entries.length * 2);
      grown.set(this.entries);
      this.entries = grown;
    }
    this.count = e + 1;
    const b = e * STRIDE;
    this.entries[b + KEY_POS] = this.store(key);
    this.entries[b + KEY_LEN] = key.length;
    this.entries[b + VAL_LEN] = -1;
    this.setValue(e, value);
    index[i << 1] = h;
    index[(i << 1) + 1] = e + 1;
    if (this.freshInOrder && e > this.sortedUpTo && this.compareEntries(e - 1, e) > 0) this.freshInOrder = false;
    if ((e + 1) * 2 > mask + 1) this.rehash((mask + 1) * 2);
  }

  private setValue(e: number, value: Uint8Array | null): void {
    const entries = this.entries;
    const b = e * STRIDE;
    if (value === null) {
      entries[b + VAL_LEN] = -1;
      return;
    }
    const old = entries[b + VAL_LEN];
    if (old >= value.length && entries[b + EPOCH] === this.epoch) {
      // No scan began since the old value was written: no snapshot holds it.
      const pos = entries[b + VAL_POS];
      if (value.length > 0) this.arrayOf(pos).set(value, pos < 0 ? 0 : pos & OFFSET_MASK);
    } else {
      entries[b + VAL_POS] = this.store(value);
      entries[b + EPOCH] = this.epoch;
    }
    entries[b + VAL_LEN] = value.length;
  }

  private rehash(capacity: number): void {
    const old = this.index;
    const index = new Int32Array(capacity * 2);
    const mask = capacity - 1;
    for (let p = 0; p < old.length; p += 2) {
      if (old[p + 1] === 0) continue;
      let i = old[p] & mask;
      while (index[(i << 1) + 1] !== 0) i = (i + 1) & mask;
      index[i << 1] = old[p];
      index[(i << 1) + 1] = old[p + 1];
    }
    this.index = index;
    this.mask = mask;
  }

  // ---- key order ----

  /** Every entry number in key order (an array never changed afterwards). */
  sortedOrder(): Int32Array {
    const n = this.count;
    if (this.sortedUpTo === n) return this.order;
    const fresh = new Int32Array(n - this.sortedUpTo);
    for (let i = 0; i < fresh.length; i++) fresh[i] = this.sortedUpTo + i;
    if (!this.freshInOrder) sortEntries(this, fresh);
    const old = this.order;
    let merged: Int32Array;
    if (old.length === 0) {
      merged = fresh;
    } else {
      merged = new Int32Array(n);
      let i = 0;
      let j = 0;
      let k = 0;
      while (i < old.length && j < fresh.length) {
        merged[k++] = this.compareEntries(old[i], fresh[j]) < 0 ? old[i++] : fresh[j++];
      }
      while (i < old.length) merged[k++] = old[i++];
      while (j < fresh.length) merged[k++] = fresh[j++];
    }
    this.order = merged;
    this.sortedUpTo = n;
    this.freshInOrder = true;
    return merged;
  }

  /** The first place in `order` whose key is ≥ `key`. */
  private lowerBound(order: Int32Array, key: Uint8Array): number {
    let lo = 0;
    let hi = order.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.compareWith(order[mid], key) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The writes with keys in [lo, hi) as they are now, in scan order (later writes do not change it). */
  snapshot(lo: Uint8Array | undefined, hi: Uint8Array | undefined, reverse: boolean): PendingRun {
    const order = this.sortedOrder();
    const from = lo === undefined ? 0 : this.lowerBound(order, lo);
    const to = hi === undefined ? order.length : this.lowerBound(order, hi);
    const n = Math.max(0, to - from);
    const values = new Int32Array(n * 2);
    const entries = this.entries;
    for (let i = 0; i < n; i++) {
      const e = order[reverse ? to - 1 - i : from + i];
      values[2 * i] = entries[e * STRIDE + VAL_POS];
      values[2 * i + 1] = entries[e * STRIDE + VAL_LEN];
    }
    if (n > 0) this.epoch++;
    return new SnapshotRun(this, order, from, to, reverse, values);
  }

  /** A copy of the bytes at `pos` (a snapshot's value). */
  bytesAt(pos: number, len: number): Uint8Array {
    return this.copyOut(pos, len);
  }

  /** The writes in key order, for a walk (each write's object and copies made as the walk reaches it). */
  sorted(): CompactSortedWrites {
    this.epoch++;
    return new CompactSortedWrites(this, this.sortedOrder(), this.stamp);
  }

  /** Every write in order of first write, as WriteTarget.applyWrite takes them. */
  *inWriteOrder(): IterableIterator<[string, Uint8Array, Uint8Array | null]> {
    for (let e = 0; e < this.count; e++) yield [this.keyStringOf(e), this.keyOf(e), this.valueOf(e)];
  }

  /** The keys' binary strings, in no order. */
  *keyStrings(): IterableIterator<string> {
    for (let e = 0; e < this.count; e++) yield this.keyStringOf(e);
  }
}

class SnapshotRun implements PendingRun {
  readonly length: number;
  private readonly writes: CompactWrites;
  private readonly order: Int32Array;
  private readonly from: number;
  private readonly to: number;
  private readonly reverse: boolean;
  /** Each write's value position and length at the snapshot, in scan order. */
  private readonly values: Int32Array;

  constructor(
    writes: CompactWrites,
    order: Int32Array,
    from: number,
    to: number,
    reverse: boolean,
    values: Int32Array,
  ) {
    this.writes = writes;
    this.order = order;
    this.from = from;
    this.to = to;
    this.reverse = reverse;
    this.values = values;
    this.length = values.length >> 1;
  }

  key(i: number): Uint8Array {
    return this.writes.keyOf(this.order[this.reverse ? this.to - 1 - i : this.from + i]);
  }

  value(i: number): Uint8Array | null {
    const len = this.values[2 * i + 1];
    return len < 0 ? null : this.writes.bytesAt(this.values[2 * i], len);
  }
}

/**
 * A compact set's writes in key order (what `CacheLayer.sortedWrites` gives in the compact form): iterable like the
 * small form's array, one `WriteView` at a time (`walkedWrite`), so a walk over a million writes never holds a
 * million objects it did not keep. `writes` and `stamp` say which writes it stood for (staged-ahead.ts).
 */
export class CompactSortedWrites implements Iterable<WriteView> {
  readonly length: number;
  readonly writes: CompactWrites;
  readonly stamp: number;
  private readonly order: Int32Array;

  constructor(writes: CompactWrites, order: Int32Array, stamp: number) {
    this.writes = writes;
    this.order = order;
    this.stamp = stamp;
    this.length = order.length;
  }

  [Symbol.iterator](): Iterator<WriteView> {
    const { writes, order } = this;
    let i = 0;
    return {
      next: (): IteratorResult<WriteView> =>
        i < order.length ? { done: false, value: writes.walkedWrite(order[i++]) } : { done: true, value: undefined },
    };
  }

  /** Write `i` in key order, made as the walk makes it (a copy of its key, its value as a view). */
  at(i: number): WriteView {
    return this.writes.walkedWrite(this.order[i]);
  }

  /** The keys alone, in order (copies). */
  *keys(): IterableIterator<Uint8Array> {
    for (let i = 0; i < this.order.length; i++) yield this.writes.keyOf(this.order[i]);
  }
}

// ---- sorting entry numbers by key: the radix pass of key-sort.ts over bytes read from the chunks ----

const SMALL = 48;
const MAX_DEPTH = 64;
const BUCKETS = 257;

function sortEntries(writes: CompactWrites, ids: Int32Array): void {
  if (ids.length < 2) return;
  const scratch = new Int32Array(ids.length);
  const counts = new Int32Array(BUCKETS + 1);
  sortRange(writes, ids, scratch, counts, 0, ids.length, 0);
}

function sortRange(
  writes: CompactWrites,
  ids: Int32Array,
  scratch: Int32Array,
  counts: Int32Array,
  from: number,
  to: number,
  depth: number,
): void {
  if (to - from <= SMALL || depth >= MAX_DEPTH) {
    sortSlice(writes, ids, from, to);
    return;
  }
  counts.fill(0);
  for (let i = from; i < to; i++) counts[writes.keyByte(ids[i], depth) + 1]++;
  // Every key in one bucket (a shared byte): look at the next byte, no scatter needed.
  for (let b = 1; b <= BUCKETS; b++) {
    if (counts[b] === to - from) {
      if (b === 1) return; // every key ends here: all equal (cannot happen for distinct keys)
      sortRange(writes, ids, scratch, counts, from, to, depth + 1);
      return;
    }
    if (counts[b] !== 0) break;
  }
  counts[0] = from;
  for (let b = 1; b <= BUCKETS; b++) counts[b] += counts[b - 1];
  for (let i = from; i < to; i++) {
    const e = ids[i];
    scratch[counts[writes.keyByte(e, depth)]++] = e;
  }
  ids.set(scratch.subarray(from, to), from);
  // counts[b] is now the end of bucket b; bucket 0 (keys ending here) holds at most one key.
  const ends = counts.slice(0, BUCKETS);
  let start = ends[0];
  for (let b = 1; b < BUCKETS; b++) {
    const end = ends[b];
    if (end - start > 1) sortRange(writes, ids, scratch, counts, start, end, depth + 1);
    start = end;
  }
}

/** Sorts ids [from, to) by comparisons (insertion sort when short, else the built-in sort). */
function sortSlice(writes: CompactWrites, ids: Int32Array, from: number, to: number): void {
  if (to - from < 2) return;
  if (to - from <= SMALL) {
    for (let i = from + 1; i < to; i++) {
      const e = ids[i];
      let j = i - 1;
      while (j >= from && writes.compareEntries(ids[j], e) > 0) {
        ids[j + 1] = ids[j];
        j--;
      }
      ids[j + 1] = e;
    }
    return;
  }
  ids.subarray(from, to).sort((a, b) => writes.compareEntries(a, b));
}
