// A hash table keyed by byte strings, probed with the caller's key bytes as they are: no JS string is built for
// a lookup (a `Map` needs one, and building and hashing it was about half of a cached read at the latest version).
// The latest-value cache keeps its rows in these (latest-cache.ts).
//
// Two arrays, so that what a hit touches stays small enough for the CPU's caches (a read of a 100k-key store
// misses them anyway on the caller's key; every further line it loads from memory is a dependent wait):
// - the index: open addressing with linear probing over pairs of ints (the key's hash, its entry's number + 1;
//   0 an empty pair, -1 a deleted one), at most half full: 8 bytes a pair, 8 pairs a cache line;
// - the entries, dense (numbered in order of insertion, freed numbers reused): one 64-byte line of an Int32Array
//   each, the key's length + 1 and its first 60 bytes packed four to a word (a longer key keeps its bytes from the
//   61st on beside the entry), with the value in a JS array by entry number.
// A hit loads one index line, one entry line and the value's array slot. Until round 3 session 15 the slots were
// the index (64 bytes a slot, half empty): 4 MiB of table for the bench's 18k keys, against 0.5 MiB of index and
// 1.2 MiB of entries now. Keys come either as bytes (reads) or as binary strings, one char a byte (commits name the
// keys they wrote that way); both pack to the same words and hash alike. The hash is seeded per process (keys are
// chosen by users: a fixed hash would let them pile keys onto one probe run).

/** Ints in an entry: [0] key length + 1 (0 a free entry), [1..15] the key's first 60 bytes. */
const ENTRY_INTS = 16;
const ENTRY_SHIFT = 4;
const INLINE_WORDS = ENTRY_INTS - 1;
const INLINE_BYTES = INLINE_WORDS * 4;
/** Index pair [1]: no entry yet (ends a probe run), or an entry deleted (probe runs go past it). */
const EMPTY = 0;
const DELETED = -1;
const MIN_CAPACITY = 16;

const SEED = (Math.random() * 0x100000000) | 0;

/** The words of the key being probed (one table is used at a time: no call re-enters another). */
const words = new Int32Array(INLINE_WORDS);

function mix(h: number, w: number): number {
  h = Math.imul(h ^ w, 0x5bd1e995);
  return h ^ (h >>> 15);
}

function finish(h: number): number {
  h = Math.imul(h ^ (h >>> 13), 0x85ebca6b);
  return h ^ (h >>> 16);
}

/** Packs `key`'s first bytes into `words` (zero-padded) and returns the hash of all its bytes. */
function loadBytes(key: Uint8Array): number {
  const n = key.length;
  const inline = Math.min(n, INLINE_BYTES);
  let h = SEED ^ n;
  let j = 0;
  let i = 0;
  for (; i + 4 <= inline; i += 4) {
    const w = key[i] | (key[i + 1] << 8) | (key[i + 2] << 16) | (key[i + 3] << 24);
    words[j++] = w;
    h = mix(h, w);
  }
  if (i < inline) {
    let w = 0;
    for (let shift = 0; i < inline; i++, shift += 8) w |= key[i] << shift;
    words[j++] = w;
    h = mix(h, w);
  }
  for (i = INLINE_BYTES; i < n; i++) h = mix(h, key[i]);
  return finish(h);
}

/** loadBytes of a binary string (one char a byte). */
function loadString(key: string): number {
  const n = key.length;
  const inline = Math.min(n, INLINE_BYTES);
  let h = SEED ^ n;
  let j = 0;
  let i = 0;
  for (; i + 4 <= inline; i += 4) {
    const w =
      key.charCodeAt(i) | (key.charCodeAt(i + 1) << 8) | (key.charCodeAt(i + 2) << 16) | (key.charCodeAt(i + 3) << 24);
    words[j++] = w;
    h = mix(h, w);
  }
  if (i < inline) {
    let w = 0;
    for (let shift = 0; i < inline; i++, shift += 8) w |= key.charCodeAt(i) << shift;
    words[j++] = w;
    h = mix(h, w);
  }
  for (i = INLINE_BYTES; i < n; i++) h = mix(h, key.charCodeAt(i));
  return finish(h);
}

function binaryStringBytes(key: string): Uint8Array {
  const out = new Uint8Array(key.length);
  for (let i = 0; i < key.length; i++) out[i] = key.charCodeAt(i);
  return out;
}

/** A map from byte strings to values, looked up by bytes or by binary string. */
export class ByteKeyTable<V> {
  /** Pairs [hash, entry number + 1 | EMPTY | DELETED]. */
  private index = new Int32Array(MIN_CAPACITY * 2);
  private mask = MIN_CAPACITY - 1;
  /** Index pairs used or deleted: a probe run ends only at an empty one. */
  private taken = 0;
  private entries = new Int32Array(MIN_CAPACITY * ENTRY_INTS);
  /** By entry number (packed arrays, filled by push: a sparse array of a large index becomes a dictionary). */
  private readonly values: (V | undefined)[] = [];
  /** Bytes 61 on of keys longer than 60 bytes, by entry number. */
  private tails: (Uint8Array | undefined)[] | undefined;
  /** Entry numbers freed by deletes, reused before new ones. */
  private free: number[] = [];
  /** Entry numbers handed out so far (freed ones included). */
  private used = 0;
  private live = 0;

  /** Entries held. */
  get size(): number {
    return this.live;
  }

  /** The value of key `key`, if held. */
  get(key: Uint8Array): V | undefined {
    const e = this.find(loadBytes(key), key.length, key);
    return e < 0 ? undefined : this.values[e];
  }

  /** get by the key's binary string. */
  getString(key: string): V | undefined {
    if (key.length > INLINE_BYTES) return this.get(binaryStringBytes(key));
    const e = this.find(loadString(key), key.length, undefined);
    return e < 0 ? undefined : this.values[e];
  }

  /** Sets key `key`'s value (the key's bytes are copied: the caller may reuse its array). */
  set(key: Uint8Array, value: V): void {
    const h = loadBytes(key);
    const e = this.find(h, key.length, key);
    if (e >= 0) {
      this.values[e] = value;
      return;
    }
    this.insert(h, key.length, key, value);
  }

  /** set by the key's binary string. */
  setString(key: string, value: V): void {
    if (key.length > INLINE_BYTES) {
      this.set(binaryStringBytes(key), value);
      return;
    }
    const h = loadString(key);
    const e = this.find(h, key.length, undefined);
    if (e >= 0) {
      this.values[e] = value;
      return;
    }
    this.insert(h, key.length, undefined, value);
  }

  /** Removes the key given as a binary string (commits name their written keys that way). */
  deleteString(key: string): boolean {
    if (this.live === 0) return false;
    let h: number;
    let bytes: Uint8Array | undefined;
    if (key.length > INLINE_BYTES) {
      bytes = binaryStringBytes(key);
      h = loadBytes(bytes);
    } else {
      h = loadString(key);
    }
    const index = this.index;
    const mask = this.mask;
    for (let i = h & mask; ; i = (i + 1) & mask) {
      const p = i << 1;
      const ref = index[p + 1];
      if (ref === EMPTY) return false;
      if (ref > 0 && index[p] === h && this.matches(ref - 1, key.length, bytes)) {
        index[p + 1] = DELETED;
        this.release(ref - 1);
        return true;
      }
    }
  }

  /**
   * The entry holding the key whose words are in `words` (hash `h`, length `n`; `key` its bytes, needed only when
   * it is longer than the inline part), or -1.
   */
  private find(h: number, n: number, key: Uint8Array | undefined): number {
    const index = this.index;
    const mask = this.mask;
    for (let i = h & mask; ; i = (i + 1) & mask) {
      const p = i << 1;
      const ref = index[p + 1];
      if (ref === EMPTY) return -1;
      if (ref > 0 && index[p] === h && this.matches(ref - 1, n, key)) return ref - 1;
    }
  }

  /** Whether entry `e` holds the key of length `n` whose words are in `words` (and bytes in `key` if long). */
  private matches(e: number, n: number, key: Uint8Array | undefined): boolean {
    const entries = this.entries;
    const b = e << ENTRY_SHIFT;
    if (entries[b] !== n + 1) return false;
    const count = n < INLINE_BYTES ? (n + 3) >> 2 : INLINE_WORDS;
    for (let j = 0; j < count; j++) if (entries[b + 1 + j] !== words[j]) return false;
    return n <= INLINE_BYTES || this.sameTail(e, key as Uint8Array);
  }

  private sameTail(e: number, key: Uint8Array): boolean {
    const tail = this.tails?.[e];
    if (tail === undefined || tail.length !== key.length - INLINE_BYTES) return false;
    for (let i = 0; i < tail.length; i++) if (tail[i] !== key[INLINE_BYTES + i]) return false;
    return true;
  }

  /** Adds a key not held (its words in `words`). */
  private insert(h: number, n: number, key: Uint8Array | undefined, value: V): void {
    // Neither growing the index nor the entries overwrites `words`: both copy ints as they are.
    if ((this.taken + 1) * 2 > this.mask + 1) {
      this.rehash(this.live * 4 > this.mask + 1 ? (this.mask + 1) * 2 : this.mask + 1);
    }
    const e = this.allocate();
    const entries = this.entries;
    const b = e << ENTRY_SHIFT;
    entries[b] = n + 1;
    const count = n < INLINE_BYTES ? (n + 3) >> 2 : INLINE_WORDS;
    for (let j = 0; j < INLINE_WORDS; j++) entries[b + 1 + j] = j < count ? words[j] : 0;
    if (n > INLINE_BYTES) {
      this.tails ??= this.values.map(() => undefined);
      this.tails[e] = (key as Uint8Array).slice(INLINE_BYTES);
    }
    this.values[e] = value;
    const index = this.index;
    const mask = this.mask;
    let i = h & mask;
    while (index[(i << 1) + 1] > EMPTY) i = (i + 1) & mask;
    const p = i << 1;
    if (index[p + 1] === EMPTY) this.taken++;
    index[p] = h;
    index[p + 1] = e + 1;
    this.live++;
  }

  /** A free entry number (its value slots exist). */
  private allocate(): number {
    const reused = this.free.pop();
    if (reused !== undefined) return reused;
    const e = this.used++;
    if (e << ENTRY_SHIFT >= this.entries.length) {
      const grown = new Int32Array(this.entries.length * 2);
      grown.set(this.entries);
      this.entries = grown;
    }
    this.values.push(undefined);
    this.tails?.push(undefined);
    return e;
  }

  /** Frees entry `e` (its index pair is already marked deleted). */
  private release(e: number): void {
    this.entries[e << ENTRY_SHIFT] = 0;
    this.values[e] = undefined;
    if (this.tails !== undefined) this.tails[e] = undefined;
    this.free.push(e);
    this.live--;
  }

  /** Rebuilds the index with `capacity` pairs (dropping deleted ones); entries keep their numbers. */
  private rehash(capacity: number): void {
    const old = this.index;
    const index = new Int32Array(capacity * 2);
    const mask = capacity - 1;
    for (let p = 0; p < old.length; p += 2) {
      if (old[p + 1] <= EMPTY) continue;
      let i = old[p] & mask;
      while (index[(i << 1) + 1] !== EMPTY) i = (i + 1) & mask;
      index[i << 1] = old[p];
      index[(i << 1) + 1] = old[p + 1];
    }
    this.index = index;
    this.mask = mask;
    this.taken = this.live;
  }
}
