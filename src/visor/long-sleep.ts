// Waits of any Go duration. Node fires a timer at once (after a TimeoutOverflowWarning on stderr) when its delay is
// over 2^31 − 1 ms (~24.8 days), while cosmovisor's variables take durations up to ~292 years: DAEMON_SHUTDOWN_GRACE
// =1000h would SIGKILL the node a millisecond after SIGTERM. Long waits are therefore made of several timers.
import { setTimeout as sleep } from "node:timers/promises";

/** The longest delay one Node timer keeps. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Resolves after `ms` milliseconds, however long; rejects with the signal's AbortError when `signal` aborts first.
 * @example await sleepMs(config.restartDelayMs);
 */
export async function sleepMs(ms: number, signal?: AbortSignal): Promise<void> {
  let left = ms;
  do {
    const step = Math.min(left, MAX_TIMER_MS);
    await sleep(step, undefined, signal === undefined ? undefined : { signal });
    left -= step;
  } while (left > 0);
}

/** A delay for one timer of a repeating poll: the interval, or the longest a timer keeps (a poll every ~24.8 days). */
export function pollDelayMs(intervalMs: number): number {
  return Math.min(intervalMs, MAX_TIMER_MS);
}
