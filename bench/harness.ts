// The shared shape of benchmark figures. Every figure is a ratio against a baseline measured
// in the same run on the same machine, so results mean the same on any hardware (docs/CONTRACT.md §11).
import { loadavg } from "node:os";

/** One printed row of `npm run bench`. */
export interface BenchRow {
  /** What was measured, e.g. "REST current_plan throughput". */
  name: string;
  /** The measured figure, in `unit`. */
  value: number;
  /** The baseline figure measured in the same run, in `unit`. */
  baseline: number;
  /** Unit of value and baseline, e.g. "req/s", "ms", "ops/s". */
  unit: string;
  /** The target from docs/CONTRACT.md §11 in words, e.g. ">= 0.5x bare node:http". */
  target: string;
  /** Whether the target was met. A miss is reported, never a failure of the run. */
  met: boolean;
  /** value / baseline unless the benchmark reports another ratio. */
  ratio?: number;
  /**
   * The machine's 1-minute load average just before and just after the figure was measured, so a
   * reader knows how quiet the machine was. `npm run bench` stamps the module's own when absent.
   */
  load?: { before: number; after: number };
  /**
   * Why the figure was not measured (e.g. a baseline's tool is not installed): the row prints this instead of
   * numbers and counts as neither met nor missed.
   */
  skipped?: string;
}

/** A benchmark module under bench/ exports `run`, returning its rows. */
export type BenchRun = () => Promise<BenchRow[]>;

/** The 1-minute load average now. */
export function loadNow(): number {
  return loadavg()[0];
}

/** Runs `measure` and stamps the rows it returns with the load average before and after it. */
export async function withLoad(measure: () => Promise<BenchRow[]>): Promise<BenchRow[]> {
  const before = loadNow();
  const rows = await measure();
  const after = loadNow();
  return rows.map((r) => ({ ...r, load: r.load ?? { before, after } }));
}

/** Runs `fn` repeatedly for at least `minMs` and returns operations per second. */
export async function opsPerSecond(fn: () => unknown | Promise<unknown>, minMs = 1000): Promise<number> {
  const start = performance.now();
  let count = 0;
  let now = start;
  while (now - start < minMs) {
    await fn();
    count++;
    now = performance.now();
  }
  return (count * 1000) / (now - start);
}

/** Milliseconds taken by one call of `fn`. */
export async function timeMs(fn: () => unknown | Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

/** True under `npm run bench -- --quick`: long figures run a shorter variant (named in their row). */
export function quickMode(): boolean {
  return process.env.CHAIND_BENCH_QUICK === "1";
}
