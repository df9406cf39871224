// Garbage collection in the wait after a commit. A block that allocates a lot that lives past it (a stepped
// migration's 30,000 rewrites a block, their tree nodes, the nodes their paths load) fills V8's old generation, and
// V8 collects it when the heap reaches a limit it sets at up to ~4× what survived its last full collection —
// whenever that falls, often inside a block: measured on a 1M-record stepped migration, the blocks a full
// collection fell in took 0.5–0.7 s against ~0.2–0.3 s. After a commit the node has nothing to do until the next
// block (timeout_commit, 1 s by default) once the work behind the commit is over, so that is where a full
// collection costs no block anything. The app asks this collector there; it collects a little before V8 would
// (3.5× what the last collection left, and at least 128 MiB more), so the collections are about as many as V8's
// own and fall in the wait instead of in blocks. Collecting more often (2×) kept the heap smaller (peak RSS 1.25 →
// 0.83 GiB) but made the blocks themselves ~25% slower: each full collection costs the blocks after it too.
// A node whose blocks leave little behind (most blocks) never reaches the mark.
// Under `chaind start` the heap governor (src/node/heap-governor.ts) has V8 collect at ~1.5×, before this mark: the
// collector serves processes with V8's defaults (the testing kit, a library user's). A mark below the governor's
// (1.25×) was measured there and made the blocks slower, not faster (docs/PERFORMANCE.md).
// Node exposes no collection call without --expose-gc; the flag is set at run time and the `gc` function taken from
// a fresh context, so no global `gc` appears in the node's own context.
import { getHeapStatistics, setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

/** When a collection is due. */
export interface IdleCollectionPolicy {
  /** Collect once the heap in use is this many times what the last collection left... */
  growthFactor: number;
  /** ...and at least this many bytes more. */
  minGrowthBytes: number;
}

/**
 * The default: 3.5× the heap the last collection left, and 128 MiB more (measured on the stepped migration of 1M
 * records, alternating runs: the longest block 615/727 → 495/464 ms, the blocks' total unchanged;
 * docs/PERFORMANCE.md).
 */
export const DEFAULT_IDLE_COLLECTION: IdleCollectionPolicy = { growthFactor: 3.5, minGrowthBytes: 128 * 2 ** 20 };

/** What the collector reads and calls: V8's heap in use and a full collection (fakes in tests). */
export interface HeapControl {
  heapUsed(): number;
  collect(): void;
}

/**
 * A full collection now that compacts the heap and gives the freed pages back to the OS (V8's `last-resort` flavour):
 * before a block's stage rewrites a large store (src/store/README.md, "A large version's memory", Step C), whose
 * walk would otherwise grow the heap over the garbage the block's handler left.
 */
export function reduceHeapNow(): void {
  v8Gc()({ type: "major", execution: "sync", flavor: "last-resort" });
}

/** V8's `gc()`; with options such as `{ type: "major", execution: "sync", flavor: "last-resort" }`. */
export type V8Gc = (options?: object) => void;

let gcFunction: V8Gc | undefined;

/**
 * V8's `gc()`: `--expose-gc` installs it in contexts created while the flag is on, so a fresh vm context fetches it
 * and the flag goes off again (no other context, nor the node's own, sees a `gc` global).
 */
export function v8Gc(): V8Gc {
  if (gcFunction === undefined) {
    setFlagsFromString("--expose-gc");
    try {
      gcFunction = runInNewContext("gc") as V8Gc;
    } finally {
      setFlagsFromString("--no-expose-gc");
    }
  }
  return gcFunction;
}

/** V8's own heap: its bytes in use, and a full, synchronous collection. */
export function v8Heap(): HeapControl {
  return {
    heapUsed: () => getHeapStatistics().used_heap_size,
    collect: () => v8Gc()(),
  };
}

/** Decides, each time the node is idle after a commit, whether to collect garbage now. */
export class IdleCollector {
  private readonly heap: HeapControl;
  private readonly policy: IdleCollectionPolicy;
  /** The heap in use after the last collection (or when first asked). */
  private baseline: number | undefined;
  /** Collections made. */
  collections = 0;

  constructor(heap: HeapControl = v8Heap(), policy: IdleCollectionPolicy = DEFAULT_IDLE_COLLECTION) {
    if (!(policy.growthFactor > 1) || !(policy.minGrowthBytes >= 0)) {
      throw new RangeError(
        `idle collection: growthFactor must be > 1 and minGrowthBytes >= 0, got ${policy.growthFactor} and ${policy.minGrowthBytes}`,
      );
    }
    this.heap = heap;
    this.policy = policy;
  }

  /** Collects when the heap has grown enough since the last collection; returns whether it did. */
  collectIfDue(): boolean {
    const used = this.heap.heapUsed();
    const baseline = this.baseline;
    if (baseline === undefined || used < baseline) {
      // The first look, or V8 collected on its own since: measure growth from here.
      this.baseline = used;
      return false;
    }
    if (used < baseline * this.policy.growthFactor || used - baseline < this.policy.minGrowthBytes) return false;
    this.heap.collect();
    this.collections++;
    this.baseline = this.heap.heapUsed();
    return true;
  }
}
