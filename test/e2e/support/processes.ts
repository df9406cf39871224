// Child processes for the end-to-end tests: every one runs in its own process group (so a launcher script, a
// chainvisor and the node it starts are all reached by one signal), its output is kept for assertions and for
// the failure message, and `stopAll` ends whatever a test left running — SIGTERM first, SIGKILL if it lingers.
// Commands are always run asynchronously: the tests serve release archives from an in-process HTTP server that a
// blocking spawnSync would freeze.
import { type ChildProcess, spawn } from "node:child_process";

/** How a process ended: its exit code, or the signal that killed it. */
export interface ExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A long-running child (a node, chainvisor) in its own process group. */
export interface ManagedProcess {
  readonly name: string;
  readonly pid: number;
  /** Everything written to stdout and stderr so far, interleaved as it arrived. */
  output(): string;
  /** Settles when the process has exited. */
  readonly exited: Promise<ExitStatus>;
  /** Whether the process has exited. */
  hasExited(): boolean;
  /** Resolves once the output matches `pattern`; rejects when the process exits first or after `timeoutMs`. */
  waitForOutput(pattern: RegExp, timeoutMs: number): Promise<RegExpMatchArray>;
  /**
   * SIGTERM to the whole group (`"group"`, like Ctrl-C in a terminal) or to the leader only (`"leader"`, like
   * `kill <pid>`: chainvisor then stops its node itself), then SIGKILL to the group after `graceMs`; resolves with
   * the exit status.
   */
  stop(graceMs?: number, target?: "group" | "leader"): Promise<ExitStatus>;
}

/** What `runCommand` returns. */
export interface CommandResult {
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Options for starting a child. */
export interface SpawnOptions {
  env?: Record<string, string | undefined>;
  cwd?: string;
}

const running = new Set<ManagedProcess>();

/** Keeps at most the last `limit` characters: a long-running node logs a lot. */
const OUTPUT_LIMIT = 4_000_000;

/** Starts `command args` in a new process group and keeps its output. */
export function startProcess(
  name: string,
  command: string,
  args: string[],
  options: SpawnOptions = {},
): ManagedProcess {
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: cleanEnv(options.env ?? process.env),
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  if (child.pid === undefined) throw new Error(`could not start ${name}: ${command} ${args.join(" ")}`);
  let text = "";
  let done = false;
  const listeners = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    text += chunk.toString("utf8");
    if (text.length > OUTPUT_LIMIT) text = text.slice(text.length - OUTPUT_LIMIT);
    for (const listener of listeners) listener();
  };
  child.stdout?.on("data", onData);
  child.stderr?.on("data", onData);
  const exited = new Promise<ExitStatus>((resolve) => {
    child.on("close", (code, signal) => {
      done = true;
      running.delete(managed);
      for (const listener of listeners) listener();
      resolve({ code, signal });
    });
  });
  const managed: ManagedProcess = {
    name,
    pid: child.pid,
    output: () => text,
    exited,
    hasExited: () => done,
    waitForOutput(pattern, timeoutMs) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const match = text.match(pattern);
          if (match !== null) {
            finish();
            resolve(match);
          } else if (done) {
            finish();
            reject(new Error(`${name} exited before printing ${pattern}; its output:\n${tail(text)}`));
          }
        };
        const timer = setTimeout(() => {
          finish();
          reject(new Error(`${name} did not print ${pattern} within ${timeoutMs} ms; its output:\n${tail(text)}`));
        }, timeoutMs);
        const finish = () => {
          clearTimeout(timer);
          listeners.delete(check);
        };
        listeners.add(check);
        check();
      });
    },
    stop: (graceMs = 10_000, target = "group") => stopGroup(child, exited, () => done, graceMs, target),
  };
  running.add(managed);
  return managed;
}

/** Runs a command to completion (in its own process group, killed after `timeoutMs`). */
export async function runCommand(
  command: string,
  args: string[],
  options: SpawnOptions & { timeoutMs?: number; input?: string } = {},
): Promise<CommandResult> {
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: cleanEnv(options.env ?? process.env),
    stdio: [options.input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
    detached: true,
  });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    stdout += chunk.toString("utf8");
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  if (options.input !== undefined) child.stdin?.end(options.input);
  let done = false;
  const exited = new Promise<ExitStatus>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code, signal) => {
      done = true;
      resolve({ code, signal });
    });
  });
  const timeoutMs = options.timeoutMs ?? 120_000;
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    void stopGroup(child, exited, () => done, 2_000);
  }, timeoutMs);
  try {
    const { code, signal } = await exited;
    if (timedOut) {
      throw new Error(
        `${command} ${args.join(" ")} did not finish within ${timeoutMs} ms\nstdout:\n${tail(stdout)}\nstderr:\n${tail(stderr)}`,
      );
    }
    return { status: code, signal, stdout, stderr };
  } finally {
    clearTimeout(timer);
  }
}

/** Stops every process started with `startProcess` that is still running. */
export async function stopAll(graceMs = 5_000): Promise<void> {
  await Promise.all([...running].map((p) => p.stop(graceMs)));
}

/** The last lines of a process's output, for failure messages. */
export function tail(text: string, lines = 60): string {
  return text.split("\n").slice(-lines).join("\n");
}

async function stopGroup(
  child: ChildProcess,
  exited: Promise<ExitStatus>,
  hasExited: () => boolean,
  graceMs: number,
  target: "group" | "leader" = "group",
): Promise<ExitStatus> {
  if (!hasExited()) {
    if (target === "group") signalGroup(child, "SIGTERM");
    else child.kill("SIGTERM");
  }
  const timer = setTimeout(() => signalGroup(child, "SIGKILL"), graceMs);
  try {
    const status = await exited;
    // Whatever the leader left behind in its group (a node started by chainvisor) goes too.
    signalGroup(child, "SIGKILL");
    return status;
  } finally {
    clearTimeout(timer);
  }
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // The group is gone already.
  }
}

/** Drops undefined values, which spawn would pass as the string "undefined". */
function cleanEnv(env: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) if (value !== undefined) out[key] = value;
  return out;
}
