// Small byte arrays carved from shared slabs. A typed array over 64 bytes gets a backing store of its own
// (allocated outside V8's heap, registered, swept and freed one by one); a proof makes a few such arrays
// (~700 bytes at 100k keys) and that was ~6% of its cost. Views of one slab cost a typed array each and
// nothing more, as Node's Buffer pool does. The views share their slab's ArrayBuffer: readers must use
// byteOffset/byteLength (every encoder here does), and a live view keeps its whole slab alive.

const SLAB_BYTES = 16 * 1024;
/** Larger arrays get their own buffer: a slab would hold little else. */
const MAX_CARVED = 2 * 1024;

let slab = new ArrayBuffer(SLAB_BYTES);
let used = 0;

/** A zero-filled array of `length` bytes, carved from the current slab when small. */
export function slabBytes(length: number): Uint8Array {
  if (length > MAX_CARVED) return new Uint8Array(length);
  if (used + length > SLAB_BYTES) {
    // A fresh slab is zero-filled; the views of the old one keep it alive until they go.
    slab = new ArrayBuffer(SLAB_BYTES);
    used = 0;
  }
  const view = new Uint8Array(slab, used, length);
  used += length;
  return view;
}

/** A copy of `bytes` in a slab (or its own buffer when large). */
export function slabCopy(bytes: Uint8Array): Uint8Array {
  const out = slabBytes(bytes.length);
  out.set(bytes);
  return out;
}
