// Small byte arrays carved from shared slabs. A typed array over 64 bytes gets a backing store of its own
// (allocated outside V8's heap, registered, swept and freed one by one); a proof makes a few such arrays
// (~700 bytes at 100k keys) and that was ~6% of its cost. Views of one slab cost a typed array each and
// nothing more, as Node's Buffer pool does. The views share their slab's ArrayBuffer: readers must use
// byteOffset/byteLength (every encoder here does), and a live view keeps its whole slab alive.

/** Larger arrays get their own buffer: a slab would hold little else. */
const MAX_CARVED = 2 * 1024;

/** One sequence of slabs: arrays carved one after another, a fresh slab when the current one is full. */
export class ByteSlab {
  private readonly slabBytes: number;
  private slab: ArrayBuffer;
  private used = 0;

  constructor(slabBytes: number) {
    this.slabBytes = slabBytes;
    this.slab = new ArrayBuffer(slabBytes);
  }

  /** A zero-filled array of `length` bytes, carved from the current slab when small. */
  bytes(length: number): Uint8Array {
    if (length > MAX_CARVED || length > this.slabBytes) return new Uint8Array(length);
    if (this.used + length > this.slabBytes) {
      // A fresh slab is zero-filled; the views of the old one keep it alive until they go.
      this.slab = new ArrayBuffer(this.slabBytes);
      this.used = 0;
    }
    const view = new Uint8Array(this.slab, this.used, length);
    this.used += length;
    return view;
  }

  /** A copy of `bytes` in a slab (or its own buffer when large). */
  copy(bytes: Uint8Array): Uint8Array {
    const out = this.bytes(bytes.length);
    out.set(bytes);
    return out;
  }
}

/** The slabs of short-lived arrays (a proof's output, a migration step's keys). */
const shared = new ByteSlab(16 * 1024);

/** A zero-filled array of `length` bytes, carved from the current slab when small. */
export function slabBytes(length: number): Uint8Array {
  return shared.bytes(length);
}

/** A copy of `bytes` in a slab (or its own buffer when large). */
export function slabCopy(bytes: Uint8Array): Uint8Array {
  return shared.copy(bytes);
}
