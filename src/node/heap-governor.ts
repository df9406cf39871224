// Keeps a long-running node's V8 heap near what it needs (issue 15, goal 4). Three things V8 does on its own
// made a node's RSS climb from ~160 to ~360 MiB under the bench's mixed load and stay there:
//  - the young generation doubles whenever many objects survive a scavenge (32 → 64 → 128 MiB), and every
//    page of it stays resident;
//  - the old generation may grow up to 4× its live size between full GCs, and the promoted garbage of
//    in-flight requests and txs fills it (24 → 87 MiB in 15 s);
//  - after the load, heap pages V8 no longer needs are not given back: its memory reducer rarely runs in a
//    server process, so RSS stays at its peak for minutes.
// `--max-semi-space-size` would cap the first, but V8 reads it only when the process starts, so `chaind start`
// could only set it by re-executing itself. Instead the governor uses flags V8 reads each time it resizes:
//  - it watches every GC (a `gc` PerformanceObserver) and turns `--semi-space-growth-factor` down to 1 once
//    the young generation is at its cap, back to 2 below it;
//  - it sets `--heap-growing-percent` so the old generation's next full GC comes at ~1.5× its live size;
//  - when the event loop has been nearly idle for a few seconds while the heap outside the young generation
//    has grown well above its size after the last reduction (or at the start), or the young generation grew
//    back to its cap during a busy period since (heap-reduction-policy.ts decides), it asks V8 for one
//    memory-reducing full GC (the `last-resort` flavour: it compacts, shrinks the young generation and gives
//    the freed pages back to the OS), then glibc's malloc_trim (malloc-trim.ts): the free memory a load leaves
//    inside the malloc arenas (V8's compiler zones, ~16 MiB after the memory bench's load) is not V8's to give back.
import { type PerformanceEntry, PerformanceObserver, performance } from "node:perf_hooks";
import { getHeapSpaceStatistics, getHeapStatistics, setFlagsFromString } from "node:v8";
import { v8Gc } from "../app/idle-collection.ts";
import { HeapReductionPolicy } from "./heap-reduction-policy.ts";
import { type MallocTrim, mallocTrim } from "./malloc-trim.ts";

const MIB = 1024 * 1024;

/** Options of {@link governHeap}. */
export interface HeapGovernorOptions {
  /** Largest young generation (both semi-spaces) the governor lets V8 grow to, in MiB. Default 32. */
  youngGenerationMiB?: number;
  /**
   * How far (percent) the old generation may grow past its live size after a full GC before the next one
   * starts. V8's own factor is up to 4× for a small heap, which under load fills the old generation with
   * promoted garbage (24 → 87 MiB in 15 s of the mixed load); 50 keeps it to ~1.5× at the cost of more
   * frequent, mostly concurrent, major GCs. Default 50.
   */
  heapGrowingPercent?: number;
  /** How often idleness is checked, in ms. Default 2000. */
  checkEveryMs?: number;
  /** Event-loop utilisation under which an interval counts as idle. Default 0.15. */
  idleUtilisation?: number;
  /** Idle intervals in a row before a reduction. Default 2. */
  idleChecks?: number;
  /**
   * Growth (MiB committed since the start or the last reduction) that makes a reduction worth it: of the heap
   * outside the young generation, or of the young generation itself when the event loop was busy since the
   * last reduction (heap-reduction-policy.ts). Default 16.
   */
  growthMiB?: number;
  /**
   * Called after each reduction's GC to give glibc's free malloc memory back to the OS (true when it gave any).
   * Default: the malloc-trim addon's (malloc-trim.ts) when it loads, else none; `null` for none.
   */
  trim?: MallocTrim | null;
  /**
   * Called after each reduction with the heap committed before and after (bytes), and what the trim answered
   * (undefined without one); for logs and tests.
   */
  onReduce?: (before: number, after: number, trimmed: boolean | undefined) => void;
}

/** A running governor. */
export interface HeapGovernor {
  /** Runs one memory-reducing full GC now (what the idle check does). Returns the heap committed after. */
  reduce(): number;
  /** Stops watching and restores V8's default growth factors. */
  stop(): void;
}

/** V8's committed heap outside the young generation (old, code, large objects…), in bytes. */
function matureHeapSize(): number {
  return getHeapStatistics().total_heap_size - youngGenerationSize();
}

/** The young generation's committed size (both semi-spaces), in bytes. */
function youngGenerationSize(): number {
  for (const space of getHeapSpaceStatistics()) if (space.space_name === "new_space") return space.space_size;
  return 0;
}

/**
 * Starts governing this process's V8 heap (see the file comment). Process-wide: call it from the process
 * that runs the node (`chaind start`, `chaind dev`), not from a library user's process; one governor at a time.
 *
 * @example
 * const governor = governHeap();
 * await node.done;
 * governor.stop();
 */
export function governHeap(options: HeapGovernorOptions = {}): HeapGovernor {
  const cap = (options.youngGenerationMiB ?? 32) * MIB;
  const growth = (options.growthMiB ?? 16) * MIB;
  const heapGrowingPercent = options.heapGrowingPercent ?? 50;

  // One doubling may happen at the GC that follows this one: stop growth while the next would pass the cap.
  // After a reduction the young generation stays at its new small size until the event loop is busy again:
  // an idle node allocates little, and a young generation growing back to its cap would undo the reduction.
  let growthFactor = 2;
  let quiet = false;
  const applyGrowthFactor = () => {
    const wanted = quiet || youngGenerationSize() * 2 > cap ? 1 : 2;
    if (wanted === growthFactor) return;
    growthFactor = wanted;
    setFlagsFromString(`--semi-space-growth-factor=${wanted}`);
  };
  applyGrowthFactor();
  setFlagsFromString(`--heap-growing-percent=${heapGrowingPercent}`);
  const observer = new PerformanceObserver((list) => {
    if (list.getEntries().some((entry: PerformanceEntry) => entry.entryType === "gc")) applyGrowthFactor();
  });
  observer.observe({ entryTypes: ["gc"] });

  const heapNow = () => ({ matureBytes: matureHeapSize(), youngBytes: youngGenerationSize() });
  const policy = new HeapReductionPolicy(
    { idleUtilisation: options.idleUtilisation ?? 0.15, idleChecks: options.idleChecks ?? 2, growthBytes: growth },
    heapNow(),
  );
  // Only here, after a reduction (at idle, once per busy period at most): a trim walks every arena under its lock
  // and costs a few ms per 10 MiB it gives back, nothing a hot path should pay.
  const trim = options.trim === undefined ? mallocTrim() : (options.trim ?? undefined);
  const reduce = (): number => {
    const before = getHeapStatistics().total_heap_size;
    v8Gc()({ type: "major", execution: "sync", flavor: "last-resort" });
    const trimmed = trim?.();
    quiet = true;
    applyGrowthFactor();
    policy.reduced(heapNow());
    const after = getHeapStatistics().total_heap_size;
    options.onReduce?.(before, after, trimmed);
    return after;
  };

  let last = performance.eventLoopUtilization();
  const timer = setInterval(() => {
    const now = performance.eventLoopUtilization();
    const utilisation = performance.eventLoopUtilization(now, last).utilization;
    last = now;
    const due = policy.check({ utilisation, ...heapNow() });
    if (quiet && !policy.idle) {
      quiet = false;
      applyGrowthFactor();
    }
    if (due) reduce();
  }, options.checkEveryMs ?? 2000);
  timer.unref();

  return {
    reduce,
    stop() {
      clearInterval(timer);
      observer.disconnect();
      quiet = false;
      if (growthFactor !== 2) setFlagsFromString("--semi-space-growth-factor=2");
      growthFactor = 2;
      setFlagsFromString("--heap-growing-percent=0");
    },
  };
}
