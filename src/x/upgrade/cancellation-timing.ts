// Cancellation timing (docs/CONTRACT.md §2.10): a plan stays cancellable only if its height leaves room for the upgrade
// proposal and then a cancel proposal to each go through their deposit and voting periods, plus a safety delta.

/** Parameters of {@link earliestCancellableHeight}. */
export interface CancellationTimingParameters {
  /** The latest block height (the proposal starts about now). */
  currentHeight: bigint;
  /** gov `voting_period`, in milliseconds. */
  votingPeriodMs: number;
  /** gov `max_deposit_period`, in milliseconds. */
  maxDepositPeriodMs: number;
  /** The recent average time between blocks, in milliseconds (> 0). */
  averageBlockTimeMs: number;
  /** Time to notice a bad upgrade after its proposal passed (`--safety-delta`, default 1 h). */
  safetyDeltaMs?: number;
}

/** The default `--safety-delta`: one hour. */
export const DEFAULT_SAFETY_DELTA_MS = 3_600_000;

/**
 * The earliest upgrade height that can still be cancelled: `currentHeight + ceil((2 × (voting_period +
 * max_deposit_period) + safety delta) / average block time)`.
 *
 * @example earliestCancellableHeight({ currentHeight: 100n, votingPeriodMs: 60_000, maxDepositPeriodMs: 60_000, averageBlockTimeMs: 1_000 })
 *   // 100 + ceil((240 s + 3600 s) / 1 s) = 3940n
 */
export function earliestCancellableHeight(parameters: CancellationTimingParameters): bigint {
  const { votingPeriodMs, maxDepositPeriodMs, averageBlockTimeMs } = parameters;
  const safetyDeltaMs = parameters.safetyDeltaMs ?? DEFAULT_SAFETY_DELTA_MS;
  for (const [name, value] of Object.entries({ votingPeriodMs, maxDepositPeriodMs, safetyDeltaMs })) {
    if (!Number.isFinite(value) || value < 0)
      throw new RangeError(`${name} must be a non-negative number, got ${value}`);
  }
  if (!Number.isFinite(averageBlockTimeMs) || averageBlockTimeMs <= 0) {
    throw new RangeError(`averageBlockTimeMs must be a positive number, got ${averageBlockTimeMs}`);
  }
  const windowMs = 2 * (votingPeriodMs + maxDepositPeriodMs) + safetyDeltaMs;
  return parameters.currentHeight + BigInt(Math.ceil(windowMs / averageBlockTimeMs));
}

/**
 * The warning `tx upgrade software-upgrade` prints to stderr when `upgradeHeight` is below the earliest
 * cancellable height; undefined when the height leaves enough room.
 */
export function cancellationWarning(
  upgradeHeight: bigint,
  parameters: CancellationTimingParameters,
): string | undefined {
  const earliest = earliestCancellableHeight(parameters);
  if (upgradeHeight >= earliest) return undefined;
  const safetyDeltaMs = parameters.safetyDeltaMs ?? DEFAULT_SAFETY_DELTA_MS;
  return (
    `warning: upgrade height ${upgradeHeight} may be too soon for a cancellation: a MsgCancelUpgrade proposal ` +
    `can only be sure to pass before the upgrade from height ${earliest} on ` +
    `(2 × (voting period ${formatMs(parameters.votingPeriodMs)} + max deposit period ${formatMs(parameters.maxDepositPeriodMs)}) ` +
    `+ safety delta ${formatMs(safetyDeltaMs)} at ${formatMs(parameters.averageBlockTimeMs)} per block from height ${parameters.currentHeight}); ` +
    "the proposal is submitted anyway"
  );
}

/** A short human duration: `1h30m`, `45s`, `1.5s`, `250ms`. */
export function formatMs(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  let seconds = ms / 1000;
  const hours = Math.floor(seconds / 3600);
  seconds -= hours * 3600;
  const minutes = Math.floor(seconds / 60);
  seconds -= minutes * 60;
  const secondsText = Number.isInteger(seconds) ? `${seconds}` : seconds.toFixed(3).replace(/0+$/, "");
  return `${hours > 0 ? `${hours}h` : ""}${minutes > 0 ? `${minutes}m` : ""}${seconds > 0 || (hours === 0 && minutes === 0) ? `${secondsText}s` : ""}`;
}
