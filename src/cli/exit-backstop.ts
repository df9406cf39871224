// A finished command ends its process. Every command closes what it opened (stores, servers, workers) before it
// returns, so Node exits once the event loop is empty; a handle left open by a bug (a listening socket, a timer, a
// request that never completes) would instead keep the process alive for ever, and whoever waits on it — a
// supervisor restarting a node whose start failed, a script, a test — would wait with it, told nothing (one CI run
// of test/e2e/store-damage.test.ts sat 600 s on a command that did not exit). The backstop, armed once the
// command is over, exits after a grace period and names on stderr what was still holding the process, so such a
// bug is seen and reported instead of hanging. Its timer is unref'd: a process that ends by itself never waits on it.

/** The grace period after a command before its process is ended regardless. */
export const EXIT_BACKSTOP_MS = 5000;

/** What the backstop uses of the process (process itself by default; fakes in tests). */
export interface ExitBackstopProcess {
  /** The kinds of the resources keeping the event loop alive (process.getActiveResourcesInfo()). */
  resources(): string[];
  stderr: { write(text: string): unknown };
  /** Ends the process with the exit status already set (process.exitCode). */
  exit(): void;
}

const realProcess: ExitBackstopProcess = {
  resources: () => process.getActiveResourcesInfo(),
  stderr: process.stderr,
  exit: () => process.exit(),
};

/**
 * Ends the process `ms` after now unless it has ended by itself, naming on stderr what still held it.
 *
 * @example
 * process.exitCode = await runChaind(argv);
 * armExitBackstop();
 */
export function armExitBackstop(
  ms: number = EXIT_BACKSTOP_MS,
  proc: ExitBackstopProcess = realProcess,
): NodeJS.Timeout {
  const timer = setTimeout(() => {
    // Unref'd timers (this one) are not listed; an empty list leaves a native thread or call (e.g. a store's).
    const held = proc.resources();
    const what = held.length === 0 ? "by nothing Node lists" : `by ${countKinds(held)}`;
    proc.stderr.write(`the command was over ${ms} ms ago but the process was still held ${what}; exiting\n`);
    proc.exit();
  }, ms);
  timer.unref();
  return timer;
}

/** "2 × TCPServerWrap, FSReqCallback": each kind once, with its count when above one, sorted. */
function countKinds(kinds: string[]): string {
  const counts = new Map<string, number>();
  for (const kind of kinds) counts.set(kind, (counts.get(kind) ?? 0) + 1);
  return [...counts]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([kind, n]) => (n === 1 ? kind : `${n} × ${kind}`))
    .join(", ");
}
