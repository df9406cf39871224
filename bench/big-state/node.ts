// The big-state bench's node: a dev home of the bench chain (chain.ts) started as its own process (chaind.ts), and
// the measurements that need it running (restart to the first new block).
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { homePaths, loadGenesis, saveGenesis, setTomlValues } from "../../src/config/index.ts";
import { prepareDevHome } from "../../src/node/dev-chain.ts";
import { addGenesisAccount } from "../../src/node/genesis-accounts.ts";
import { readLastCommittedVersion } from "../../src/store/index.ts";
import type { TestKey } from "../../src/testing/app.ts";
import { bannerEndpoints, type ChaindProcess, LOOPBACK_PORT_FLAGS, spawnChainBinary } from "../../src/testing/index.ts";
import { latestHeight } from "../bench-node.ts";

const BINARY = {
  node: process.execPath,
  entry: join(import.meta.dirname, "chaind.ts"),
  cwd: join(import.meta.dirname, "..", ".."),
  releaseEnv: "BIG_STATE_RELEASE",
};

/** A home of the bench chain and the account count its chain writes. */
export interface BigStateHome {
  home: string;
  chainId: string;
  accounts: number;
  userHome: string;
}

/** A running node of a big-state home. */
export interface BigStateNode {
  process: ChaindProcess;
  rpc: string;
  rest: string;
  grpc: string;
  pid: number;
}

/** A dev home whose genesis also funds `senders`, with `timeout_commit` set. */
export async function makeHome(
  dir: string,
  accounts: number,
  senders: TestKey[],
  timeoutCommit: string,
): Promise<BigStateHome> {
  const dev = await prepareDevHome({ home: join(dir, "home") });
  const paths = homePaths(dev.home);
  const genesis = await loadGenesis(paths.genesis);
  let appState = genesis.appState ?? {};
  for (const key of senders) {
    appState = addGenesisAccount(appState, { address: key.bech32, coins: [{ denom: "stake", amount: 10n ** 15n }] });
  }
  await saveGenesis(paths.genesis, { ...genesis, appState });
  await setTimeoutCommit(dev.home, timeoutCommit);
  return { home: dev.home, chainId: dev.chainId, accounts, userHome: join(dir, "user") };
}

/** Rewrites config.toml's consensus.timeout_commit (read when the node starts). */
export async function setTimeoutCommit(home: string, value: string): Promise<void> {
  const file = homePaths(home).configToml;
  await writeFile(file, setTomlValues(await readFile(file, "utf8"), { "consensus.timeout_commit": value }));
}

/** Starts the home's node and resolves once its RPC is listening. */
export async function startNode(home: BigStateHome): Promise<BigStateNode> {
  const child = spawnChainBinary(BINARY, ["--home", home.home, "start", ...LOOPBACK_PORT_FLAGS], {
    userHome: home.userHome,
    env: { BIG_STATE_ACCOUNTS: String(home.accounts) },
  });
  try {
    const endpoints = await bannerEndpoints(child);
    return {
      process: child,
      rpc: endpoints.rpc,
      rest: endpoints.rest as string,
      grpc: (endpoints.grpc as string).replace(/^\w+:\/\//, ""),
      pid: child.child.pid as number,
    };
  } catch (err) {
    child.signal("SIGTERM");
    const exit = await child.exited;
    throw new Error(`the big-state node did not start: ${(err as Error).message}\n${exit.stderr.slice(-1000)}`);
  }
}

/** SIGTERM and wait for the exit (the node finishes its block and closes its stores). */
export async function stopNode(node: BigStateNode): Promise<void> {
  node.process.signal("SIGTERM");
  const exit = await node.process.exited;
  if (exit.code !== 0) throw new Error(`the big-state node exited with ${exit.code}: ${exit.stderr.slice(-1000)}`);
}

/** Resolves with the first height the node reports at or above `height` (polling its /status). */
export async function waitForHeight(rpc: string, height: bigint, timeoutMs: number): Promise<bigint> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const now = await latestHeight(rpc).catch(() => 0n);
    if (now >= height) return now;
    if (performance.now() > deadline) throw new Error(`the node did not reach height ${height} in ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** One restart's times, ms from launching the process. */
export interface RestartTimes {
  /** Until the node printed its endpoints (module loading, opening the stores, the handshake, the servers). */
  listening: number;
  /** Until the RPC reported the first new block. */
  firstBlock: number;
}

/**
 * Times from launching the stopped home's node to its endpoints and to its first new block (the RPC reporting a
 * height above the one it stopped at), then stops it again.
 */
export async function restartMs(home: BigStateHome): Promise<RestartTimes> {
  const stoppedAt = await readLastCommittedVersion(homePaths(home.home).applicationDb);
  const started = performance.now();
  const node = await startNode(home);
  const listening = performance.now() - started;
  try {
    await waitForHeight(node.rpc, stoppedAt + 1n, 120_000);
    return { listening, firstBlock: performance.now() - started };
  } finally {
    await stopNode(node);
  }
}
