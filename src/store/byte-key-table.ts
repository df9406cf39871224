// A hash table keyed by byte strings, probed with the caller's key bytes as they are: no JS string is built for
// a lookup (a `Map` needs one, and building and hashing it was about half of a cached read at the latest version).
// The latest-value cache keeps its rows in these (latest-cache.ts).
//
// Open addressing with linear probing. Each slot is one 64-byte line of an Int32Array: the key's length (+1; 0 an
// empty slot, -1 a deleted one), its hash, and its first 56 bytes packed four to a word, so a hit reads the slot's
// line and the value and nothing else; a longer key keeps its bytes from the 57th on beside the slot. Keys come
// either as bytes (reads) or as binary strings, one char a byte (commits name the keys they wrote that way); both
// pack to the same words and hash alike. The hash is seeded per process (keys are chosen by users: a fixed hash
// would let them pile keys onto one probe run).

/** Ints in a slot: [0] key length + 1 (0 empty, -1 deleted), [1] hash, [2..15] the key's first 56 bytes. */
const SLOT_INTS = 16;
const SLOT_SHIFT = 4;
const INLINE_WORDS = SLOT_INTS - 2;
const INLINE_BYTES = INLINE_WORDS * 4;
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

/** `count` empty value slots, in fast (packed) elements: `new Array(count)` of a large count makes a dictionary. */
function emptyValues<V>(count: number): (V | undefined)[] {
  const values: (V | undefined)[] = [];
  for (let i = 0; i < count; i++) values.push(undefined);
  return values;
}

function binaryStringBytes(key: string): Uint8Array {
  const out = new Uint8Array(key.length);
  for (let i = 0; i < key.length; i++) out[i] = key.charCodeAt(i);
  return out;
}

/** A map from byte strings to values, looked up by bytes or by binary string. */
export class ByteKeyTable<V> {
  private slots = new Int32Array(MIN_CAPACITY * SLOT_INTS);
  private values: (V | undefined)[] = emptyValues(MIN_CAPACITY);
  /** Bytes 57 on of keys longer than 56 bytes, by slot. */
  private tails: (Uint8Array | undefined)[] | undefined;
  private mask = MIN_CAPACITY - 1;
  private live = 0;
  /** Slots used or deleted: a probe run ends only at an empty one. */
  private taken = 0;

  /** Entries held. */
  get size(): number {
    return this.live;
  }

  /** The value of key `key`, if held. */
  get(key: Uint8Array): V | undefined {
    const h = loadBytes(key);
    const s = this.find(h, key.length, key);
    return s < 0 ? undefined : this.values[s];
  }

  /** get by the key's binary string. */
  getString(key: string): V | undefined {
    if (key.length > INLINE_BYTES) return this.get(binaryStringBytes(key));
    const s = this.find(loadString(key), key.length, undefined);
    return s < 0 ? undefined : this.values[s];
  }

  /** Sets key `key`'s value (the key's bytes are copied: the caller may reuse its array). */
  set(key: Uint8Array, value: V): void {
    const h = loadBytes(key);
    const s = this.find(h, key.length, key);
    if (s >= 0) {
      this.values[s] = value;
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
    const s = this.find(h, key.length, undefined);
    if (s >= 0) {
      this.values[s] = value;
      return;
    }
    this.insert(h, key.length, undefined, value);
  }

  /** Removes the key given as a binary string (commits name their written keys that way). */
  deleteString(key: string): boolean {
    if (this.live === 0) return false;
    let s: number;
    if (key.length > INLINE_BYTES) {
      const bytes = binaryStringBytes(key);
      s = this.find(loadBytes(bytes), bytes.length, bytes);
    } else {
      s = this.find(loadString(key), key.length, undefined);
    }
    if (s < 0) return false;
    this.slots[s << SLOT_SHIFT] = DELETED;
    this.values[s] = undefined;
    if (this.tails !== undefined) this.tails[s] = undefined;
    this.live--;
    return true;
  }

  /**
   * The slot holding the key whose words are in `words` (hash `h`, length `n`; `key` its bytes, needed only when
   * it is longer than the inline part), or -1.
   */
  private find(h: number, n: number, key: Uint8Array | undefined): number {
    const slots = this.slots;
    const mask = this.mask;
    const tag = n + 1;
    const count = n < INLINE_BYTES ? (n + 3) >> 2 : INLINE_WORDS;
    let s = h & mask;
    for (;;) {
      const b = s << SLOT_SHIFT;
      const t = slots[b];
      if (t === EMPTY) return -1;
      if (t === tag && slots[b + 1] === h) {
        let j = 0;
        while (j < count && slots[b + 2 + j] === words[j]) j++;
        if (j === count && (n <= INLINE_BYTES || this.sameTail(s, key as Uint8Array))) return s;
      }
      s = (s + 1) & mask;
    }
  }

  private sameTail(s: number, key: Uint8Array): boolean {
    const tail = this.tails?.[s];
    if (tail === undefined || tail.length !== key.length - INLINE_BYTES) return false;
    for (let i = 0; i < tail.length; i++) if (tail[i] !== key[INLINE_BYTES + i]) return false;
    return true;
  }

  /** Adds a key not held (its words in `words`). */
  private insert(h: number, n: number, key: Uint8Array | undefined, value: V): void {
    if ((this.taken + 1) * 2 > this.mask + 1) {
      // Rehashing overwrites nothing in `words`: it copies slots as they are.
      this.rehash(this.live * 4 > this.mask + 1 ? (this.mask + 1) * 2 : this.mask + 1);
    }
    const slots = this.slots;
    const mask = this.mask;
    let s = h & mask;
    while (slots[s << SLOT_SHIFT] > EMPTY) s = (s + 1) & mask;
    const b = s << SLOT_SHIFT;
    if (slots[b] === EMPTY) this.taken++;
    slots[b] = n + 1;
    slots[b + 1] = h;
    const count = n < INLINE_BYTES ? (n + 3) >> 2 : INLINE_WORDS;
    for (let j = 0; j < INLINE_WORDS; j++) slots[b + 2 + j] = j < count ? words[j] : 0;
    if (n > INLINE_BYTES) {
      // Filled to the capacity, as the values are: a sparse array of a large index becomes a dictionary.
      this.tails ??= emptyValues(this.mask + 1);
      this.tails[s] = (key as Uint8Array).slice(INLINE_BYTES);
    }
    this.values[s] = value;
    this.live++;
  }

  /** Moves every entry into a table of `capacity` slots (dropping deleted ones). */
  private rehash(capacity: number): void {
    const oldSlots = this.slots;
    const oldValues = this.values;
    const oldTails = this.tails;
    const slots = new Int32Array(capacity * SLOT_INTS);
    const values = emptyValues<V>(capacity);
    const tails = oldTails === undefined ? undefined : emptyValues<Uint8Array>(capacity);
    const mask = capacity - 1;
    for (let from = 0; from < oldValues.length; from++) {
      const b = from << SLOT_SHIFT;
      if (oldSlots[b] <= EMPTY) continue;
      let s = oldSlots[b + 1] & mask;
      while (slots[s << SLOT_SHIFT] !== EMPTY) s = (s + 1) & mask;
      slots.set(oldSlots.subarray(b, b + SLOT_INTS), s << SLOT_SHIFT);
      values[s] = oldValues[from];
      if (tails !== undefined && oldTails !== undefined) tails[s] = oldTails[from];
    }
    this.slots = slots;
    this.values = values;
    this.tails = tails;
    this.mask = mask;
    this.taken = this.live;
  }
}
