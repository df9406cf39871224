// What the node does between writing upgrade-info.json and exiting, when a supervisor runs it.
//
// cosmovisor v1.5 watches the file from a poll loop and, separately, looks at it again when its child exits with
// an error; when both look at once, one of them loses and cosmovisor exits 1 without upgrading (measured: 1 missed
// halt in 14, docs/COSMOVISOR.md). A node that stays up after the halt is only ever seen by the poll loop, which
// stops the node and upgrades: no race. So under a supervisor (DAEMON_NAME or DAEMON_HOME in the environment, as
// cosmovisor and chainvisor pass them on) the halted node keeps its REST and gRPC servers up and waits to be told to
// stop (SIGTERM/SIGINT) — bounded, so a supervisor that never acts still sees the documented exit status 20. The
// consensus engine and its block store are already closed by then, so `chaind status --home` reads the height.

/** Environment variables whose presence means a cosmovisor-style supervisor started the node. */
const SUPERVISOR_VARIABLES = ["DAEMON_NAME", "DAEMON_HOME"] as const;
/** cosmovisor's default DAEMON_POLL_INTERVAL. */
const DEFAULT_POLL_MS = 300;
/** The least time to wait for the supervisor: its poll, its `<daemon> status` run and its stop, on a busy machine. */
const MIN_WAIT_MS = 30_000;
/** Polls the supervisor may miss before the node gives up waiting. */
const POLLS = 20;

/** How long a halted node waits for its supervisor to stop it, or undefined when no supervisor runs it. */
export interface SupervisedHaltWait {
  maxMs: number;
  /** The variable that showed the supervisor, for the log line. */
  supervisor: string;
}

/**
 * Whether (and how long) the node should wait for its supervisor after an upgrade halt: max(30 s, 20 ×
 * DAEMON_POLL_INTERVAL). `CHAIND_HALT_WAIT=false` turns the wait off (exit at once, as without a supervisor).
 * @example supervisedHaltWait({ DAEMON_NAME: "chaind", DAEMON_POLL_INTERVAL: "5s" }) // { maxMs: 100000, ... }
 */
export function supervisedHaltWait(env: Readonly<Record<string, string | undefined>>): SupervisedHaltWait | undefined {
  if ((env.CHAIND_HALT_WAIT ?? "").toLowerCase() === "false") return undefined;
  const supervisor = SUPERVISOR_VARIABLES.find((name) => (env[name] ?? "") !== "");
  if (supervisor === undefined) return undefined;
  const pollMs = parsePollInterval(env.DAEMON_POLL_INTERVAL ?? "") ?? DEFAULT_POLL_MS;
  return { maxMs: Math.max(MIN_WAIT_MS, POLLS * pollMs), supervisor };
}

const UNIT_MS: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

// Go durations as cosmovisor reads DAEMON_POLL_INTERVAL (`300ms`, `1m30s`); anything else → undefined (default).
function parsePollInterval(text: string): number | undefined {
  if (!/^(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$/.test(text)) return undefined;
  let total = 0;
  for (const [, number, , unit] of text.matchAll(/(\d+(\.\d+)?)(ns|us|µs|ms|s|m|h)/g)) {
    total += Number(number) * UNIT_MS[unit];
  }
  return total > 0 ? total : undefined;
}
