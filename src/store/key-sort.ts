// Sorting a block's pending writes by key. A block's writes are sorted once at stage (10k of them in a
// large block); a comparison sort calls its comparator ~13 times per write there, each a JS call and a
// string compare. Bucketing by the first byte that differs first (a most-significant-byte radix pass)
// leaves buckets of a few dozen writes for random keys (~5 comparisons each), and costs one pass per
// shared prefix byte when the keys start alike (module prefixes), before it splits them.

/** Something with a binary-string key (one char per byte, so `<` is byte order). */
export interface BinaryKeyed {
  readonly sk: string;
}

/**
 * Below this many items a range is sorted by comparisons, by insertion sort: more comparisons than a merge sort,
 * but inline string compares with no comparator call and no slice (a 10k-key sort ~1.2 → ~0.8 ms with buckets of
 * ~40 sorted this way).
 */
const SMALL = 48;
/** Prefix bytes examined at most before falling back to comparisons (long shared prefixes). */
const MAX_DEPTH = 64;
/** Buckets: 0 for keys that end at the examined byte (they sort first), then 1 + the byte. */
const BUCKETS = 257;

function compareKeyed(a: BinaryKeyed, b: BinaryKeyed): number {
  return a.sk < b.sk ? -1 : a.sk > b.sk ? 1 : 0;
}

/** Sorts `items` in place by `sk` (byte order of the keys); returns `items`. */
export function sortByBinaryKey<T extends BinaryKeyed>(items: T[]): T[] {
  if (items.length < SMALL) return items.sort(compareKeyed);
  const scratch = new Array<T>(items.length);
  const counts = new Int32Array(BUCKETS + 1);
  sortRange(items, scratch, counts, 0, items.length, 0);
  return items;
}

function sortRange<T extends BinaryKeyed>(
  items: T[],
  scratch: T[],
  counts: Int32Array,
  from: number,
  to: number,
  depth: number,
): void {
  if (to - from < SMALL || depth >= MAX_DEPTH) {
    sortSlice(items, from, to);
    return;
  }
  counts.fill(0);
  for (let i = from; i < to; i++) {
    const sk = items[i].sk;
    counts[depth < sk.length ? sk.charCodeAt(depth) + 2 : 1]++;
  }
  // Every key in one bucket (a shared byte): look at the next byte, no scatter needed.
  for (let b = 1; b <= BUCKETS; b++) {
    if (counts[b] === to - from) {
      if (b === 1) return; // every key ends here: all equal (cannot happen for distinct keys)
      sortRange(items, scratch, counts, from, to, depth + 1);
      return;
    }
    if (counts[b] !== 0) break;
  }
  // counts[b + 1] holds bucket b's size; turn them into start offsets (counts[b] = start of bucket b).
  counts[0] = from;
  for (let b = 1; b <= BUCKETS; b++) counts[b] += counts[b - 1];
  for (let i = from; i < to; i++) {
    const item = items[i];
    const sk = item.sk;
    scratch[counts[depth < sk.length ? sk.charCodeAt(depth) + 1 : 0]++] = item;
  }
  for (let i = from; i < to; i++) items[i] = scratch[i];
  // counts[b] is now the end of bucket b; bucket 0 (keys ending here) holds at most one distinct key.
  const ends = counts.slice(0, BUCKETS);
  let start = ends[0];
  for (let b = 1; b < BUCKETS; b++) {
    const end = ends[b];
    if (end - start > 1) sortRange(items, scratch, counts, start, end, depth + 1);
    start = end;
  }
}

/** Sorts items [from, to) by comparisons. */
function sortSlice<T extends BinaryKeyed>(items: T[], from: number, to: number): void {
  if (to - from < 2) return;
  if (to - from <= SMALL) {
    for (let i = from + 1; i < to; i++) {
      const item = items[i];
      const sk = item.sk;
      let j = i - 1;
      while (j >= from && items[j].sk > sk) {
        items[j + 1] = items[j];
        j--;
      }
      items[j + 1] = item;
    }
    return;
  }
  const part = items.slice(from, to).sort(compareKeyed);
  for (let i = 0; i < part.length; i++) items[from + i] = part[i];
}
