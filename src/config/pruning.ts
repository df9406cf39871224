// Pruning strategies as app.toml names them, resolved into the store's PruningOptions with
// upstream's meanings and validation rules (Cosmos SDK v0.50's store/pruning options).
import type { PruningOptions } from "../store/types.ts";

/** The values `pruning` may take. */
export const PRUNING_STRATEGIES = ["default", "nothing", "everything", "custom"] as const;

/** One of {@link PRUNING_STRATEGIES}. */
export type PruningStrategy = (typeof PRUNING_STRATEGIES)[number];

/** `everything` keeps this many recent versions and is the floor for custom settings. */
export const MIN_KEEP_RECENT = 2n;
/** `everything` prunes every 10 commits and is the floor for a custom interval. */
export const MIN_INTERVAL = 10n;

/** A custom setting that upstream would refuse, with the key at fault and the advice to show. */
export interface PruningProblem {
  key: "pruning-keep-recent" | "pruning-interval";
  expected: string;
  reason: string;
}

/**
 * Resolves a strategy into keep-recent/interval: default 362880/10 (about 3.5 weeks of 6 s blocks),
 * everything 2/10, nothing 0/0 (nothing is ever deleted), custom the given values, which must have
 * an interval of at least 10 and keep at least 2 versions.
 */
export function resolvePruning(
  strategy: PruningStrategy,
  keepRecent: bigint,
  interval: bigint,
): PruningOptions | PruningProblem {
  switch (strategy) {
    case "default":
      return { strategy, keepRecent: 362880n, interval: 10n };
    case "everything":
      return { strategy, keepRecent: MIN_KEEP_RECENT, interval: MIN_INTERVAL };
    case "nothing":
      return { strategy, keepRecent: 0n, interval: 0n };
    case "custom":
      if (interval === 0n) {
        return {
          key: "pruning-interval",
          expected: 'a non-zero interval when pruning = "custom"',
          reason: 'to disable pruning, select pruning = "nothing"',
        };
      }
      if (interval < MIN_INTERVAL) {
        return {
          key: "pruning-interval",
          expected: `an interval of at least ${MIN_INTERVAL} when pruning = "custom"`,
          reason: 'for the most aggressive pruning, select pruning = "everything"',
        };
      }
      if (keepRecent < MIN_KEEP_RECENT) {
        return {
          key: "pruning-keep-recent",
          expected: `at least ${MIN_KEEP_RECENT} when pruning = "custom"`,
          reason: 'for the most aggressive pruning, select pruning = "everything"',
        };
      }
      return { strategy, keepRecent, interval };
  }
}
