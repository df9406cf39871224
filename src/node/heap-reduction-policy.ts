// When the heap governor (heap-governor.ts) runs its memory-reducing full GC: the decision alone, fed one sample per
// idle check, so it can be tested without V8. Two kinds of growth make a reduction worth it once the event loop has
// been idle for a few checks:
//  - the heap outside the young generation grew well past its size after the last reduction (promoted garbage,
//    caches, what a load left behind in the old generation);
//  - the young generation grew back to its cap while the node was busy. After a reduction the governor keeps the
//    young generation small until the event loop is busy again; a later load grows it back to its 32 MiB cap and,
//    when that load leaves the old generation under the growth mark (queries, few promotions), nothing else brings
//    it down: measured with the memory bench's load run twice in one node, RSS stayed at 150 MiB 30 s after the
//    second load against 124 MiB after the first (docs/PERFORMANCE.md, "Node RSS after the mixed load").
// The young generation counts only when an interval was busy since the last reduction: at idle it does not grow
// (the governor holds its growth factor at 1), and counting it at all times would have an idle node whose young
// generation V8 left large reduce again and again. So a reduction comes at most once per busy period.

/** One idle check's view of the heap. */
export interface HeapSample {
  /** Event-loop utilisation over the interval since the previous check (0–1). */
  utilisation: number;
  /** Committed heap outside the young generation, in bytes. */
  matureBytes: number;
  /** Committed young generation (both semi-spaces), in bytes. */
  youngBytes: number;
}

/** Thresholds of {@link HeapReductionPolicy}. */
export interface HeapReductionThresholds {
  /** Utilisation under which an interval counts as idle. */
  idleUtilisation: number;
  /** Idle intervals in a row before a reduction. */
  idleChecks: number;
  /** Growth (bytes, either kind) that makes a reduction worth it. */
  growthBytes: number;
}

/** Decides, check by check, when the governor reduces the heap (see the file comment). */
export class HeapReductionPolicy {
  private readonly thresholds: HeapReductionThresholds;
  private matureFloor: number;
  private youngFloor: number;
  private idleInARow = 0;
  private busySinceReduction = false;

  /** `start`: the heap when governing starts (the first marks growth is measured from). */
  constructor(thresholds: HeapReductionThresholds, start: { matureBytes: number; youngBytes: number }) {
    this.thresholds = thresholds;
    this.matureFloor = start.matureBytes;
    this.youngFloor = start.youngBytes;
  }

  /** Whether the last interval was idle (the governor keeps the young generation small while it is). */
  get idle(): boolean {
    return this.idleInARow > 0;
  }

  /** Takes one check's sample; returns whether to reduce now (then call {@link reduced} with the heap after). */
  check(sample: HeapSample): boolean {
    const { idleUtilisation, idleChecks, growthBytes } = this.thresholds;
    if (sample.utilisation < idleUtilisation) {
      this.idleInARow++;
    } else {
      this.idleInARow = 0;
      this.busySinceReduction = true;
    }
    // A heap that shrank on its own lowers the marks, so the next reduction waits for real growth.
    this.matureFloor = Math.min(this.matureFloor, sample.matureBytes);
    this.youngFloor = Math.min(this.youngFloor, sample.youngBytes);
    if (this.idleInARow < idleChecks) return false;
    const matureGrew = sample.matureBytes - this.matureFloor >= growthBytes;
    const youngGrew = this.busySinceReduction && sample.youngBytes - this.youngFloor >= growthBytes;
    return matureGrew || youngGrew;
  }

  /** Records a reduction and the heap it left: growth is measured from here, and a new busy period is awaited. */
  reduced(after: { matureBytes: number; youngBytes: number }): void {
    this.matureFloor = after.matureBytes;
    this.youngFloor = after.youngBytes;
    this.idleInARow = 0;
    this.busySinceReduction = false;
  }
}
