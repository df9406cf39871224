// Child processes for the real-CometBFT tests: a `cometbft` node on loopback ports picked at run time, and the
// KV ABCI server (kv-server.ts) as its own process so it can be killed with SIGKILL. Every process started
// here is tracked and killed by `stopAll`, so a failing test leaves nothing behind.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { homedir } from "node:os";
import { delimiter, join } from "node:path";
import { promisify } from "node:util";

const KV_SERVER = new URL("./kv-server.ts", import.meta.url).pathname;

/** How to install the binary, for skip messages and errors (the testnet library says the same). */
export const COMETBFT_INSTALL_HINT = "go install github.com/cometbft/cometbft/cmd/cometbft@v0.38.25";

/**
 * The cometbft binary on PATH, in $GOBIN, $GOPATH/bin or ~/go/bin (where `go install` puts it), or undefined.
 * The one lookup the real-CometBFT tests and the testnet library (scripts/testnet/) share.
 */
export function findCometbft(): string | undefined {
  const dirs = (process.env.PATH ?? "").split(delimiter).filter((d) => d !== "");
  if (process.env.GOBIN) dirs.push(process.env.GOBIN);
  if (process.env.GOPATH) dirs.push(join(process.env.GOPATH, "bin"));
  dirs.push(join(homedir(), "go", "bin"));
  for (const dir of dirs) {
    const file = join(dir, "cometbft");
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // not in this directory
    }
  }
  return undefined;
}

/** A free TCP port on 127.0.0.1 (bound then released: the small race is acceptable in tests). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === "string") throw new Error("no port assigned");
  return address.port;
}

/**
 * `count` distinct free ports: each listener stays open until all are picked, since a port just closed may be handed
 * out again at once (two `freePort()` calls in a row once gave the same port, and the node's second listen failed).
 */
export async function freePorts(count: number): Promise<number[]> {
  const servers = Array.from({ length: count }, () => createServer());
  try {
    await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))));
    return servers.map((server) => {
      const address = server.address();
      if (address === null || typeof address === "string") throw new Error("no port assigned");
      return address.port;
    });
  } finally {
    await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
  }
}

/** Polls `probe` until it returns a value other than undefined, or fails after `timeoutMs` with `what`. */
export async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${what}`, { cause: lastError });
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A child process with its output collected and its exit awaited. */
export interface Child {
  process: ChildProcess;
  /** Everything written to stdout and stderr so far. */
  output: () => string;
  /** Resolves with the exit code (or the signal name) once it has exited. */
  exited: Promise<number | string>;
}

const children = new Set<Child>();

function track(process: ChildProcess): Child {
  let output = "";
  process.stdout?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  process.stderr?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise<number | string>((resolve) => {
    process.once("exit", (code, signal) => resolve(code ?? signal ?? "unknown"));
  });
  const child: Child = { process, output: () => output, exited };
  children.add(child);
  void exited.then(() => children.delete(child));
  return child;
}

/** Kills every process started here that is still running (SIGKILL) and waits for them. */
export async function stopAll(): Promise<void> {
  const running = [...children];
  for (const child of running) child.process.kill("SIGKILL");
  await Promise.all(running.map((c) => c.exited));
}

/** The KV ABCI server process and the JSON events it prints. */
export interface KvServer extends Child {
  address: string;
  /** Parsed stdout events so far. */
  events: () => Array<Record<string, string>>;
}

/** Starts kv-server.ts with `args` and waits until it listens. */
export async function startKvServer(args: string[]): Promise<KvServer> {
  const child = track(spawn(process.execPath, [KV_SERVER, ...args], { stdio: ["ignore", "pipe", "pipe"] }));
  const events = () =>
    child
      .output()
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as Record<string, string>);
  const listening = await Promise.race([
    waitFor("the KV server to listen", async () => events().find((e) => e.event === "listening"), 15_000),
    child.exited.then((code) => {
      throw new Error(`the KV server exited with ${code} before listening:\n${child.output()}`);
    }),
  ]);
  return { ...child, address: listening.address!, events };
}

/** Ports of one CometBFT node. */
export interface CometPorts {
  rpc: number;
  p2p: number;
}

/**
 * `cometbft init` into `home`, fast consensus timeouts, and `appState` as genesis app_state. Returns the
 * genesis chain id.
 */
export async function initCometHome(binary: string, home: string, appState: Record<string, string>): Promise<string> {
  await promisify(execFile)(binary, ["init", "--home", home]);
  const configFile = join(home, "config", "config.toml");
  let config = await readFile(configFile, "utf8");
  const set = (key: string, value: string) => {
    const pattern = new RegExp(`^${key} = .*$`, "m");
    if (!pattern.test(config)) throw new Error(`config.toml has no ${key}`);
    config = config.replace(pattern, `${key} = ${value}`);
  };
  set("timeout_propose", '"500ms"');
  set("timeout_prevote", '"100ms"');
  set("timeout_precommit", '"100ms"');
  set("timeout_commit", '"100ms"');
  set("log_level", '"info"');
  await writeFile(configFile, config);
  const genesisFile = join(home, "config", "genesis.json");
  const genesis = JSON.parse(await readFile(genesisFile, "utf8")) as Record<string, unknown>;
  genesis.app_state = appState;
  await writeFile(genesisFile, JSON.stringify(genesis, null, 2));
  return genesis.chain_id as string;
}

/** Starts `cometbft node` on `home`, dialing `proxyApp`, and waits until its RPC answers. */
export async function startCometbft(binary: string, home: string, proxyApp: string, ports: CometPorts): Promise<Child> {
  const child = track(
    spawn(
      binary,
      [
        "node",
        "--home",
        home,
        "--proxy_app",
        proxyApp,
        "--rpc.laddr",
        `tcp://127.0.0.1:${ports.rpc}`,
        "--p2p.laddr",
        `tcp://127.0.0.1:${ports.p2p}`,
      ],
      { stdio: ["ignore", "pipe", "pipe"] },
    ),
  );
  await Promise.race([
    waitFor("CometBFT's RPC", () => rpc(ports.rpc, "/health")),
    child.exited.then((code) => {
      throw new Error(`cometbft exited with ${code} before its RPC answered:\n${child.output().slice(-4000)}`);
    }),
  ]);
  return child;
}

/** GETs a CometBFT RPC URI endpoint and returns `result` (throws on a JSON-RPC error). */
export async function rpc(port: number, pathAndQuery: string): Promise<Record<string, unknown>> {
  const response = await fetch(`http://127.0.0.1:${port}${pathAndQuery}`);
  const body = (await response.json()) as { result?: Record<string, unknown>; error?: unknown };
  if (body.error !== undefined) throw new Error(`RPC ${pathAndQuery} failed: ${JSON.stringify(body.error)}`);
  return body.result!;
}

/** The latest block height CometBFT reports. */
export async function latestHeight(port: number): Promise<bigint> {
  const status = await rpc(port, "/status");
  return BigInt((status.sync_info as { latest_block_height: string }).latest_block_height);
}

/** The header of block `height`. */
export async function header(port: number, height: bigint): Promise<Record<string, unknown>> {
  const result = await rpc(port, `/header?height=${height}`);
  return result.header as Record<string, unknown>;
}
