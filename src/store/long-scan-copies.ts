// A long scan's keys and values in slabs of its own. Every key and value LevelDB hands out is a Buffer with a
// backing store of its own: beside its bytes, ~200 bytes outside V8's heap (the allocation, the backing store's
// record) and a Buffer and an ArrayBuffer on the heap. A caller that keeps what a long scan reads keeps all that per
// entry: an upgrade handler that collects a million records before rewriting them (as an SDK migration must) held
// ~400 MiB more of RSS than the same records as views of shared slabs (docs/PERFORMANCE.md, "A long scan's entries
// in slabs"). Past its first LONG_SCAN_ENTRIES entries a scan copies each key and value into slabs it owns; the
// engine's buffers then die young.
//
// Short scans (queries, the blockers' ranges, what the range caches keep) are handed out as before: a view keeps
// its whole slab alive, and a cache keeping a few bytes of a short scan would keep a slab. A long scan's slabs hold
// only what that scan read, so whatever a caller keeps of it keeps at most the bytes the scan read.
import { ByteSlab } from "./byte-slab.ts";

/** Entries a scan hands out as the engine gave them before it copies into slabs: above any page of a query. */
let longScanEntries = 4096;

/** Each of a long scan's slabs. */
const SLAB_BYTES = 64 * 1024;

/** Sets the entries after which a scan copies (tests run both ways with it); returns the old value. */
export function setLongScanEntries(entries: number): number {
  const old = longScanEntries;
  longScanEntries = entries;
  return old;
}

/** One scan's entries: as given up to the threshold, then copies in the scan's own slabs. */
export class LongScanCopies {
  private seen = 0;
  private slab: ByteSlab | undefined;

  /** The entry to hand out for `key` and `value` (views of the engine's buffers). */
  entry(key: Uint8Array, value: Uint8Array): [Uint8Array, Uint8Array] {
    if (this.seen < longScanEntries) {
      this.seen++;
      return [key, value];
    }
    this.slab ??= new ByteSlab(SLAB_BYTES);
    return [this.slab.copy(key), this.slab.copy(value)];
  }
}
