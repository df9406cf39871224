// The deterministic writes of the crash test: version v's writes depend only on v, so a parent
// process can recompute exactly what any committed version must contain.
import type { BranchMultiStore, PruningOptions } from "../../../src/store/types.ts";

/** Stores of the crash test. */
export const CRASH_STORES = ["bank", "auth"];

/** Pruning in the crash test: frequent, so kills also land inside pruning batches. */
export const CRASH_PRUNING: PruningOptions = { strategy: "custom", keepRecent: 3n, interval: 2n };

const encoder = new TextEncoder();

/**
 * Applies version `v`'s writes to a branch: 300 keys rewritten, a few created and deleted, but for every fourth version,
 * which only rewrites keys (once all 600 exist, its "bank" tree is streamed by the early writer: README "A large
 * version's memory", Step C).
 */
export function crashWorkload(v: number, block: BranchMultiStore): void {
  const bank = block.store("bank");
  const auth = block.store("auth");
  for (let i = 0; i < 300; i++) {
    const k = (i * 7 + v * 13) % 600;
    bank.set(encoder.encode(`acct-${String(k).padStart(4, "0")}`), encoder.encode(`v${v}-${i}`));
  }
  if (v % 4 !== 3) {
    bank.set(encoder.encode(`temp-${v}`), encoder.encode(`${v}`));
    bank.delete(encoder.encode(`temp-${v - 2}`));
  }
  auth.set(encoder.encode("height"), encoder.encode(`${v}`));
}
