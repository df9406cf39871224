// `<new binary> pre-upgrade`, run before the switch with cosmovisor's exit-code protocol: 0 done, 1 not implemented
// (both go on), 30 abort the upgrade, 31 try again (up to DAEMON_PREUPGRADE_MAX_RETRIES more times).
import { VisorError } from "./errors.ts";
import type { Logger } from "./log.ts";
import { sleepMs } from "./long-sleep.ts";
import { describeExit, type RunningProcess, startProcess } from "./node-process.ts";

/** Exit codes of the pre-upgrade protocol. */
export const PRE_UPGRADE_EXIT = { success: 0, notImplemented: 1, abort: 30, retry: 31 } as const;

/** Parameters of {@link runPreUpgrade}. */
export interface RunPreUpgradeParameters {
  /** The new release's executable. */
  binary: string;
  /** Working directory (DAEMON_HOME). */
  cwd: string;
  maxRetries: number;
  /** Pause between attempts after exit 31. */
  retryDelayMs: number;
  log: Logger;
  /** Told about each started attempt, so signals can be forwarded to it. */
  onStart?: (running: RunningProcess) => void;
}

/**
 * Runs the pre-upgrade protocol; resolves when the upgrade may go on, throws a {@link VisorError} when it must not.
 */
export async function runPreUpgrade(parameters: RunPreUpgradeParameters): Promise<void> {
  const { log } = parameters;
  const maxRetries = Math.max(0, parameters.maxRetries);
  for (let attempt = 1; ; attempt++) {
    log.info(`running ${parameters.binary} pre-upgrade${attempt > 1 ? ` (attempt ${attempt})` : ""}`);
    const running = await startProcess({
      binary: parameters.binary,
      args: ["pre-upgrade"],
      cwd: parameters.cwd,
      stdio: ["ignore", "inherit", "inherit"],
    });
    parameters.onStart?.(running);
    const status = await running.exited;
    switch (status.code) {
      case PRE_UPGRADE_EXIT.success:
        log.info("pre-upgrade successful. continuing the upgrade.");
        return;
      case PRE_UPGRADE_EXIT.notImplemented:
        log.info("pre-upgrade command does not exist. continuing the upgrade.");
        return;
      case PRE_UPGRADE_EXIT.abort:
        throw new VisorError("pre-upgrade command failed : exit status 30", {
          details: ["the new release refused the upgrade; `current` still points at the old release"],
        });
      case PRE_UPGRADE_EXIT.retry:
        if (attempt > maxRetries) {
          throw new VisorError(`pre-upgrade command failed. reached max attempt of retries - ${maxRetries}`, {
            details: ["raise DAEMON_PREUPGRADE_MAX_RETRIES to allow more attempts"],
          });
        }
        log.warn(
          `pre-upgrade command failed. retrying (attempt ${attempt} of ${maxRetries + 1} failed with exit status 31)`,
        );
        await sleepMs(parameters.retryDelayMs);
        break;
      default:
        // Cosmovisor treats codes outside the protocol as success; so do we, loudly.
        log.warn(
          `pre-upgrade ended with ${describeExit(status)}, which the protocol does not define; continuing the upgrade`,
        );
        return;
    }
  }
}
