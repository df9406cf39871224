// Starting and stopping child processes (the node, and `<new binary> pre-upgrade`).
import { type ChildProcess, type StdioOptions, spawn } from "node:child_process";
import { constants } from "node:os";
import { errorMessage, VisorError } from "./errors.ts";
import { formatGoDuration } from "./go-duration.ts";
import type { Logger } from "./log.ts";
import { sleepMs } from "./long-sleep.ts";

/** How a child process ended. */
export interface ExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A running child and the promise of its end. */
export interface RunningProcess {
  child: ChildProcess;
  exited: Promise<ExitStatus>;
  /** True once `exited` has settled. */
  hasExited(): boolean;
}

/** Parameters of {@link startProcess}. */
export interface StartProcessParameters {
  binary: string;
  args: readonly string[];
  cwd?: string;
  /** Inherit all three by default: the node's output passes through untouched. */
  stdio?: StdioOptions;
}

/**
 * Starts a process and waits until it is really running; a missing or non-executable file fails here with a clear
 * message instead of later as a strange exit.
 * @example const node = await startProcess({ binary: "/home/n/chainvisor/current/bin/chaind", args: ["start"] })
 */
export async function startProcess(parameters: StartProcessParameters): Promise<RunningProcess> {
  const child = spawn(parameters.binary, [...parameters.args], {
    stdio: parameters.stdio ?? "inherit",
    cwd: parameters.cwd,
  });
  let settled = false;
  const exited = new Promise<ExitStatus>((resolve) => {
    child.once("exit", (code, signal) => {
      settled = true;
      resolve({ code, signal });
    });
  });
  await new Promise<void>((resolve, reject) => {
    child.once("spawn", () => resolve());
    child.once("error", (error) => {
      const command = [parameters.binary, ...parameters.args].join(" ");
      reject(new VisorError(`launching process ${command} failed: ${errorMessage(error)}`, { cause: error }));
    });
  });
  return { child, exited, hasExited: () => settled };
}

/** The exit status a shell would report: the code, or 128 + the signal's number. */
export function exitCodeOf(status: ExitStatus): number {
  if (status.code !== null) return status.code;
  const number = status.signal === null ? undefined : constants.signals[status.signal];
  return 128 + (number ?? 0);
}

/** "exit status 3" / "signal SIGKILL", for log lines. */
export function describeExit(status: ExitStatus): string {
  return status.code !== null ? `exit status ${status.code}` : `signal ${status.signal}`;
}

/**
 * Stops a process: SIGTERM, then SIGKILL once `graceMs` has passed without an exit (at once when it is 0, as
 * cosmovisor does with DAEMON_SHUTDOWN_GRACE unset).
 */
export async function stopProcess(running: RunningProcess, graceMs: number, log: Logger): Promise<ExitStatus> {
  if (running.hasExited()) return running.exited;
  running.child.kill("SIGTERM");
  if (graceMs > 0) {
    log.info(`sent SIGTERM to the node, waiting up to ${formatGoDuration(graceMs)} for it to exit`);
    const waiting = new AbortController();
    const timedOut = sleepMs(graceMs, waiting.signal).then(
      () => "timeout" as const,
      () => "timeout" as const,
    );
    const first = await Promise.race([running.exited, timedOut]);
    waiting.abort();
    if (first !== "timeout") {
      log.info(`the node exited (${describeExit(first)})`);
      return first;
    }
    log.warn("DAEMON_SHUTDOWN_GRACE exceeded, killing the node");
  }
  if (!running.hasExited()) running.child.kill("SIGKILL");
  return running.exited;
}
