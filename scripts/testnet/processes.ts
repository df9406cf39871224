// The processes of a testnet: spawning one detached in its own process group with its output in a log file,
// watching it exit (as our child, or by polling a pid from pids.json), and stopping it with its group.
import { type ChildProcess, spawn } from "node:child_process";
import { closeSync, fstatSync, openSync, readFileSync, readSync } from "node:fs";
import { type ExitStatus, type NodeProcess, PROJECT_ROOT, TestnetError } from "./types.ts";

/** Whether `pid` runs (a zombie does not). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // A zombie (exited, not yet reaped by its parent) still answers kill(0).
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return !/^\d+ \(.*\) Z/.test(stat);
  } catch {
    return true;
  }
}

/** Resolves once `pid` no longer runs (polled: it is not our child). */
export function watchPid(pid: number): Promise<undefined> {
  return new Promise((done) => {
    const timer = setInterval(() => {
      if (!isAlive(pid)) {
        clearInterval(timer);
        done(undefined);
      }
    }, 100);
  });
}

/** Spawns `command` in its own process group with stdout and stderr appended to `logFile`. */
export function spawnLogged(
  kind: NodeProcess["kind"],
  command: string,
  args: string[],
  logFile: string,
  env: NodeJS.ProcessEnv,
  outlive: boolean,
): NodeProcess {
  const fd = openSync(logFile, "a");
  let child: ChildProcess;
  let logStart: number;
  try {
    logStart = fstatSync(fd).size;
    // Its own process group, so one signal reaches chainvisor and the node it runs alike.
    child = spawn(command, args, { stdio: ["ignore", fd, fd], env, detached: true, cwd: PROJECT_ROOT });
  } finally {
    closeSync(fd);
  }
  if (child.pid === undefined) throw new TestnetError(`could not start ${kind}: ${command} ${args.join(" ")}`);
  let done = false;
  const exited = new Promise<ExitStatus | undefined>((resolveExit) => {
    child.once("exit", (code, signal) => {
      done = true;
      resolveExit(code ?? signal ?? undefined);
    });
    child.once("error", () => {
      done = true;
      resolveExit(undefined);
    });
  });
  if (outlive) child.unref();
  return { kind, pid: child.pid, logFile, logStart, child, exited, hasExited: () => done };
}

/** Signals the process group led by `pid` (every process here leads its own), else the process alone. */
function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      // exited in the meantime
    }
  }
}

/**
 * Stops one process (with its group): `signal` (default SIGTERM), then SIGKILL once `graceMs` has passed. Resolves with how it
 * ended. A process that already exited is left alone.
 */
export async function stopProcess(
  proc: NodeProcess | undefined,
  options: { signal?: NodeJS.Signals; graceMs?: number } = {},
): Promise<ExitStatus | undefined> {
  if (proc === undefined || proc.hasExited()) return proc === undefined ? undefined : await proc.exited;
  signalGroup(proc.pid, options.signal ?? "SIGTERM");
  let timer: NodeJS.Timeout | undefined;
  const escalate = new Promise<void>((done) => {
    timer = setTimeout(() => {
      signalGroup(proc.pid, "SIGKILL");
      done();
    }, options.graceMs ?? 10_000);
  });
  try {
    await Promise.race([proc.exited, escalate]);
    return await proc.exited;
  } finally {
    clearTimeout(timer);
  }
}

/** A pid from pids.json is ours only while its command line still names the node's home (pids get reused). */
export function ownedPid(pid: number | null, home: string): number | undefined {
  if (pid === null || !isAlive(pid)) return undefined;
  try {
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
    return cmdline.includes(home) ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** A NodeProcess for a pid this process did not start (read from pids.json): its exit is polled. */
export function foreignProcess(kind: NodeProcess["kind"], pid: number, logFile: string): NodeProcess {
  let done = false;
  const exited = watchPid(pid).then(() => {
    done = true;
    return undefined;
  });
  return { kind, pid, logFile, exited, hasExited: () => done };
}

/** What `proc` wrote to its log since it started (the log is shared with the node's earlier runs). */
export function ownOutput(proc: NodeProcess): string {
  if (proc.logStart === undefined) return "";
  const fd = openSync(proc.logFile, "r");
  try {
    const length = Math.max(0, fstatSync(fd).size - proc.logStart);
    const buffer = Buffer.alloc(length);
    const read = readSync(fd, buffer, 0, length, proc.logStart);
    return buffer.subarray(0, read).toString("utf8");
  } finally {
    closeSync(fd);
  }
}
