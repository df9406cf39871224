// A whole testnet started and stopped: set up unless the directory holds one, every chaind then every CometBFT,
// then a new block on every node; stopping ends every CometBFT first, then every chaind.
import { resolve } from "node:path";
import { checkOptions, readManifest, setUp } from "./homes.ts";
import { startChaind, startCometbft } from "./nodes.ts";
import { refuseIfRunning, writePids } from "./pids.ts";
import { stopProcess } from "./processes.ts";
import { latestHeight, waitForHeight } from "./queries.ts";
import { checkCometbft, findCometbft } from "./tools.ts";
import {
  COMETBFT_INSTALL_HINT,
  type NodeRecord,
  type Testnet,
  TestnetError,
  type TestnetNode,
  type TestnetOptions,
} from "./types.ts";

function toNode(record: NodeRecord): TestnetNode {
  return {
    ...record,
    rpcUrl: `http://127.0.0.1:${record.ports.rpc}`,
    apiUrl: `http://127.0.0.1:${record.ports.api}`,
    grpcAddress: `127.0.0.1:${record.ports.grpc}`,
  };
}

/**
 * Sets up (unless `dir` holds one already) and starts a local testnet: every chaind first, then every CometBFT,
 * and waits until all of them have committed `minHeight`. On failure everything started is stopped again.
 *
 * @example const net = await startTestnet({ dir: await mkdtemp(join(tmpdir(), "tn-")) }); ...; await stopTestnet(net);
 */
export async function startTestnet(options: TestnetOptions): Promise<Testnet> {
  const log = options.log ?? (() => {});
  const dir = resolve(options.dir);
  const existing = await readManifest(dir);
  await checkOptions({ ...options, dir }, existing !== undefined);
  if (existing !== undefined) await refuseIfRunning(dir);
  const cometbft = options.cometbft ?? findCometbft();
  if (cometbft === undefined) {
    throw new TestnetError(`cometbft was not found on PATH or in ~/go/bin: install it with ${COMETBFT_INSTALL_HINT}`);
  }
  await checkCometbft(cometbft);
  const manifest = existing ?? (await setUp({ ...options, dir }, log));
  if (manifest.chainvisor && options.chainvisor === undefined) {
    throw new TestnetError(`${dir} was set up to run under chainvisor: pass the same chainvisor setup again`);
  }
  const net: Testnet = {
    dir,
    chainId: manifest.chainId,
    cometbft,
    nodes: manifest.nodes.map(toNode),
    chainvisor: options.chainvisor,
    detached: options.detached ?? false,
    log,
  };
  try {
    log("starting chaind (ABCI) on every home");
    await Promise.all(net.nodes.map((node) => startChaind(net, node)));
    log("starting cometbft on every home");
    await Promise.all(net.nodes.map((node) => startCometbft(net, node)));
    // A block beyond whatever the nodes have already (a restarted testnet) shows that the chain is moving.
    const restored = Math.max(...(await Promise.all(net.nodes.map((n) => latestHeight(n)))));
    const target = Math.max(options.minHeight ?? 2, restored + 1);
    log(`waiting for height ${target} on every node`);
    await waitForHeight(net, target, { timeoutMs: 90_000 });
  } catch (error) {
    await stopTestnet(net, { graceMs: 3_000 });
    throw error;
  }
  return net;
}

/** Stops every process of the testnet: each CometBFT first, then each chaind (SIGTERM, SIGKILL after the grace). */
export async function stopTestnet(net: Testnet, options: { graceMs?: number } = {}): Promise<void> {
  await Promise.all(net.nodes.map((n) => stopProcess(n.cometbft, options)));
  await Promise.all(net.nodes.map((n) => stopProcess(n.chaind, options)));
  await writePids(net);
}
