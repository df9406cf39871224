// Testing kit: run a chain's binary as a real child process, watch its output, talk JSON-RPC to it, and clean up
// whatever was started. Generic over the binary's entry point (chain/cmd/chaind.ts, a chain developer's own
// cmd/<name>.ts); test/support/node/chaind.ts binds it to chaind.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A finished command. */
export interface ChaindResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** A running chain binary. */
export interface ChaindProcess {
  child: ChildProcess;
  /** Everything printed so far. */
  readonly stdout: string;
  readonly stderr: string;
  /** Resolves when the process has exited. */
  exited: Promise<ChaindResult>;
  /** Resolves with the first match of `pattern` in stdout (or stderr with `stream`), failing after `timeoutMs`. */
  waitFor(pattern: RegExp, options?: { stream?: "stdout" | "stderr"; timeoutMs?: number }): Promise<RegExpExecArray>;
  /** Sends a signal (no-op once exited). */
  signal(signal: NodeJS.Signals): void;
}

const running = new Set<ChildProcess>();

/**
 * Environment for children: HOME points into the test's temp dir so `~/.<name>` is never touched, and the
 * release variable is only what the caller passes (never inherited from the test's own environment).
 */
function childEnv(
  extra: Record<string, string> | undefined,
  home: string | undefined,
  releaseEnv: string,
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  if (home !== undefined) env.HOME = home;
  delete env[releaseEnv];
  if (extra?.[releaseEnv] !== undefined) env[releaseEnv] = extra[releaseEnv];
  return env;
}

/** How to run a chain's binary: the Node executable, the entry script, and the working directory. */
export interface ChainBinary {
  /** The Node executable (e.g. node_modules/.bin/node, or process.execPath). */
  node: string;
  /** The entry script (e.g. chain/cmd/chaind.ts). */
  entry: string;
  /** Working directory of the child. */
  cwd: string;
  /** The environment variable that selects the release (default CHAIND_RELEASE). */
  releaseEnv?: string;
}

/** Options of {@link spawnChainBinary}. */
export interface SpawnOptions {
  env?: Record<string, string>;
  /** HOME of the child. */
  userHome?: string;
}

/**
 * Starts `<binary> <args>`.
 *
 * @example const node = spawnChainBinary({ node: process.execPath, entry, cwd }, ["start", "--home", home]);
 */
export function spawnChainBinary(binary: ChainBinary, args: string[], options: SpawnOptions = {}): ChaindProcess {
  const child = spawn(binary.node, [binary.entry, ...args], {
    cwd: binary.cwd,
    env: childEnv(options.env, options.userHome, binary.releaseEnv ?? "CHAIND_RELEASE"),
    stdio: ["ignore", "pipe", "pipe"],
  });
  running.add(child);
  let stdout = "";
  let stderr = "";
  const listeners = new Set<() => void>();
  child.stdout?.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
    for (const listener of listeners) listener();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
    for (const listener of listeners) listener();
  });
  let done = false;
  const exited = new Promise<ChaindResult>((resolveExit) => {
    child.on("close", (code, signal) => {
      running.delete(child);
      done = true;
      for (const listener of listeners) listener();
      resolveExit({ code, signal, stdout, stderr });
    });
  });
  return {
    child,
    get stdout() {
      return stdout;
    },
    get stderr() {
      return stderr;
    },
    exited,
    waitFor(pattern, waitOptions = {}) {
      // Generous: a node starting on a busy machine can take a minute or more.
      const timeoutMs = waitOptions.timeoutMs ?? 180_000;
      return new Promise((resolveMatch, reject) => {
        const check = () => {
          const match = pattern.exec(waitOptions.stream === "stderr" ? stderr : stdout);
          if (match !== null) {
            finish();
            resolveMatch(match);
          } else if (done) {
            finish();
            reject(
              new Error(
                `the process exited before printing ${pattern}\nstdout:\n${stdout}\nstderr:\n${stderr.slice(-4000)}`,
              ),
            );
          }
        };
        const timer = setTimeout(() => {
          finish();
          reject(new Error(`timed out waiting for ${pattern}\nstdout:\n${stdout}\nstderr:\n${stderr.slice(-4000)}`));
        }, timeoutMs);
        const finish = () => {
          clearTimeout(timer);
          listeners.delete(check);
        };
        listeners.add(check);
        check();
      });
    },
    signal(signal) {
      if (!done) child.kill(signal);
    },
  };
}

/** Kills (SIGKILL) every process these helpers started that is still running. */
export async function killAllStarted(): Promise<void> {
  const waits: Promise<unknown>[] = [];
  for (const child of running) {
    waits.push(new Promise((resolveClose) => child.once("close", resolveClose)));
    child.kill("SIGKILL");
  }
  await Promise.all(waits);
}

/** A temp dir under os.tmpdir(), and its removal. */
export async function tempDir(prefix: string): Promise<{ path: string; remove(): Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), prefix));
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
}

/** One JSON-RPC 2.0 call (POST); rejects with the RPC error's message and data. */
export async function rpcCall<T>(baseUrl: string, method: string, params: Record<string, unknown> = {}): Promise<T> {
  const response = await fetch(baseUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const body = (await response.json()) as { result?: T; error?: { message: string; data?: string } };
  if (body.error !== undefined) throw new Error(`${method}: ${body.error.message} ${body.error.data ?? ""}`);
  return body.result as T;
}

/** The latest block height the RPC reports. */
export async function latestHeight(rpcUrl: string): Promise<bigint> {
  const status = await rpcCall<{ sync_info: { latest_block_height: string } }>(rpcUrl, "status");
  return BigInt(status.sync_info.latest_block_height);
}

/** Polls `probe` every `intervalMs` until it returns a value other than undefined (or throws after `timeoutMs`). */
export async function pollUntil<T>(
  probe: () => Promise<T | undefined>,
  options: { timeoutMs?: number; intervalMs?: number; what?: string } = {},
): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 180_000);
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (err) {
      lastError = err;
    }
    await new Promise((r) => setTimeout(r, options.intervalMs ?? 200));
  }
  throw new Error(
    `timed out waiting for ${options.what ?? "a condition"}${lastError ? `: ${(lastError as Error).message}` : ""}`,
  );
}

/** Waits until the node's RPC reports a height of at least `height`. */
export function waitForHeight(rpcUrl: string, height: bigint, timeoutMs = 180_000): Promise<bigint> {
  return pollUntil(
    async () => {
      const latest = await latestHeight(rpcUrl);
      return latest >= height ? latest : undefined;
    },
    { timeoutMs, what: `height ${height} at ${rpcUrl}` },
  );
}

/** The endpoint URLs a start/dev banner printed. */
export interface BannerEndpoints {
  rpc: string;
  rest?: string;
  grpc?: string;
  swagger?: string;
  /** The consensus metrics (config.toml [instrumentation] on). */
  metrics?: string;
  /** The application's metrics (app.toml [telemetry] on). */
  appMetrics?: string;
}

/** Waits for the endpoint banner and reads it. */
export async function bannerEndpoints(node: ChaindProcess): Promise<BannerEndpoints> {
  await node.waitFor(/^ {2}consensus RPC +\S+$/m);
  const find = (label: string) => new RegExp(`^ {2}${label} +(\\S+)$`, "m").exec(node.stdout)?.[1];
  return {
    rpc: find("consensus RPC") as string,
    rest: find("REST"),
    grpc: find("gRPC"),
    swagger: find("Swagger"),
    metrics: find("metrics"),
    appMetrics: find("app metrics"),
  };
}

/** Flags that put every listener of a node on 127.0.0.1 with a port picked at run time. */
export const LOOPBACK_PORT_FLAGS = [
  "--rpc.laddr",
  "tcp://127.0.0.1:0",
  "--api.address",
  "tcp://127.0.0.1:0",
  "--grpc.address",
  "127.0.0.1:0",
];
