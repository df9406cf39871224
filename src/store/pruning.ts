// Which versions pruning keeps (upstream semantics): after committing H, when the strategy is not
// "nothing", H is a multiple of the interval and H > keep-recent, every version ≤ H − 1 − keepRecent
// goes, so the readable range becomes [H − keepRecent, H].
import { PruningOptionsError } from "./errors.ts";
import type { PruningOptions } from "./types.ts";

/** Pruning settings with the strategy's numbers filled in. */
export interface ResolvedPruning {
  strategy: PruningOptions["strategy"];
  /** Versions kept besides the latest. */
  keepRecent: number;
  /** Prune every this many versions; 0 = never. */
  interval: number;
}

/** The numbers behind each strategy (custom takes the given ones). */
export const PRUNING_PRESETS = {
  default: { keepRecent: 362880, interval: 10 },
  nothing: { keepRecent: 0, interval: 0 },
  everything: { keepRecent: 2, interval: 10 },
} as const;

/** Fills in a strategy's numbers and rejects settings the store cannot apply. */
export function resolvePruning(options: PruningOptions | undefined): ResolvedPruning {
  const strategy = options?.strategy ?? "default";
  if (strategy === "custom") {
    const keepRecent = options?.keepRecent;
    const interval = options?.interval;
    if (typeof keepRecent !== "bigint" || keepRecent < 0n) {
      throw new PruningOptionsError(
        `invalid custom pruning options: 'pruning-keep-recent' must be a non-negative integer, got ${String(keepRecent)}`,
      );
    }
    if (typeof interval !== "bigint" || interval <= 0n) {
      throw new PruningOptionsError(
        `invalid custom pruning options: 'pruning-interval' must not be 0. If you want to disable pruning, select pruning = "nothing"`,
      );
    }
    if (keepRecent > BigInt(Number.MAX_SAFE_INTEGER) || interval > BigInt(Number.MAX_SAFE_INTEGER)) {
      throw new PruningOptionsError("invalid custom pruning options: values must be below 2^53");
    }
    return { strategy, keepRecent: Number(keepRecent), interval: Number(interval) };
  }
  if (strategy !== "default" && strategy !== "nothing" && strategy !== "everything") {
    throw new PruningOptionsError(
      `unknown pruning strategy ${String(strategy)}; expected "default", "nothing", "everything" or "custom"`,
    );
  }
  return { strategy, ...PRUNING_PRESETS[strategy] };
}

/** The new earliest retained version after committing `version`, or undefined when nothing is pruned. */
export function earliestAfterCommit(
  version: number,
  pruning: ResolvedPruning,
  currentEarliest: number,
): number | undefined {
  if (pruning.strategy === "nothing" || pruning.interval <= 0) return undefined;
  if (version % pruning.interval !== 0 || version <= pruning.keepRecent) return undefined;
  const earliest = version - pruning.keepRecent;
  return earliest > currentEarliest ? earliest : undefined;
}
