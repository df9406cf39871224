// The node's process starts with the malloc settings a long-running server wants (issue 15, goal 4). glibc gives
// each thread that allocates concurrently its own malloc arena, up to 8 per core; the node's threads (libuv's pool
// running LevelDB's reads and batch writes, V8's compiler and GC helpers) each fill one, and freed memory stays
// in its arena. Under the memory bench's mixed load that left ~55 MiB more malloc'd memory resident after the load
// than before it (RSS 1.20× idle 30 s later); with MALLOC_ARENA_MAX=2 it is ~30 MiB and RSS returns to 1.05×.
// glibc reads the variable only when the process starts, so `chaind start` / `chaind dev` replace their own
// process image (process.execve: the same pid, so supervisors and pid files still see the node) with one that
// has it, before anything else is loaded. Other commands never pay for it; a MALLOC_ARENA_MAX already set (any
// value) is the user's choice and is kept, which also ends the relaunch after one step.
// The relaunch also fixes MALLOC_MMAP_THRESHOLD_ at glibc's starting value, 128 KiB (unless the user set it).
// glibc otherwise raises the threshold to the size of every mmapped block freed (up to 32 MiB), after which
// blocks of a few hundred KiB (WebSocket and RPC answers of 0.4 MB, event buffers) come from the heap arenas,
// whose freed middle is not returned to the OS. Measured with scripts/ws-memory-probe.ts (issue 39: WebSocket
// clients that never read, then leave): idle 166-173 / peak 296-333 / after 143-197 MiB (up to 1.18x idle) without
// it, 118-124 / 229-243 / 130-136 MiB (1.10-1.11x) with it (src/engine/README.md, WebSocket).

/** Commands that run a node for the life of the process. */
const NODE_COMMANDS: ReadonlySet<string> = new Set(["start", "dev"]);

/** The malloc arenas the node runs with. */
export const NODE_MALLOC_ARENA_MAX = "2";

/** The size (bytes) from which malloc maps blocks of their own, returned to the OS when freed. */
export const NODE_MALLOC_MMAP_THRESHOLD = "131072";

/** What to execve: the executable, its full argv (argv[0] included) and the environment. */
export interface Relaunch {
  file: string;
  args: string[];
  env: NodeJS.ProcessEnv;
}

/** What the relaunch reads of the running process (process itself in production; plain values in tests). */
export interface RelaunchProcess {
  platform: string;
  execPath: string;
  argv0: string;
  execArgv: readonly string[];
  argv: readonly string[];
  env: NodeJS.ProcessEnv;
  /** A single executable application (src/release/launcher.ts): argv[1] is the launcher's, not the OS's. */
  sea: boolean;
}

/**
 * The relaunch `command` needs, or undefined when this process should simply go on: not a node command, not
 * Linux (the variable is glibc's), or MALLOC_ARENA_MAX already set.
 *
 * Under `node [options] <script> args`, the new argv is [argv0, ...execArgv, script, ...args]. A single
 * executable's OS argv is [invoked name, ...args] (Node puts execPath in front, and the launcher rewrites
 * argv[1]), so it relaunches as [argv0, ...args]: the invoked name picks chaind or chainvisor there.
 */
export function nodeRelaunch(command: string | undefined, proc: RelaunchProcess): Relaunch | undefined {
  if (command === undefined || !NODE_COMMANDS.has(command)) return undefined;
  if (proc.platform !== "linux" || proc.env.MALLOC_ARENA_MAX !== undefined) return undefined;
  const rest = proc.argv.slice(2);
  const args = proc.sea ? [proc.argv0, ...rest] : [proc.argv0, ...proc.execArgv, proc.argv[1], ...rest];
  const env = {
    MALLOC_MMAP_THRESHOLD_: NODE_MALLOC_MMAP_THRESHOLD,
    ...proc.env,
    MALLOC_ARENA_MAX: NODE_MALLOC_ARENA_MAX,
  };
  return { file: proc.execPath, args, env };
}

/** Replaces this process with the relaunch `command` needs (see {@link nodeRelaunch}); returns when none is. */
export async function relaunchForNode(command: string | undefined): Promise<void> {
  if (typeof process.execve !== "function") return; // Node before 22.15 / 23.11: run with glibc's defaults.
  // Every other command returns here, before node:sea is imported: its import is a module job of its own that a
  // client command's start would pay for nothing.
  if (command === undefined || !NODE_COMMANDS.has(command)) return;
  const { isSea } = await import("node:sea");
  const relaunch = nodeRelaunch(command, {
    platform: process.platform,
    execPath: process.execPath,
    argv0: process.argv0,
    execArgv: process.execArgv,
    argv: process.argv,
    env: process.env,
    sea: isSea(),
  });
  if (relaunch !== undefined) process.execve(relaunch.file, relaunch.args, relaunch.env);
}
