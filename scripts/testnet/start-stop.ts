// A whole testnet started and stopped: set up unless the directory holds one, every chaind then every CometBFT,
// then a new block on every node; stopping ends every CometBFT first, then every chaind. A start whose ports were
// taken meanwhile is retried with new ones (port-retry.ts).
import { resolve } from "node:path";
import { checkOptions, readManifest, resetFreshNodeData, rewritePorts, setUp } from "./homes.ts";
import { endpoints, startChaind, startCometbft } from "./nodes.ts";
import { refuseIfRunning, writePids } from "./pids.ts";
import { retryOnPortCollision } from "./port-retry.ts";
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
  return { ...record, ...endpoints(record.ports) };
}

/**
 * Sets up (unless `dir` holds one already) and starts a local testnet: every chaind first, then every CometBFT,
 * and waits until all of them have committed `minHeight`. On failure everything started is stopped again. When a
 * node process exits because one of its ports was taken, every node gets new ports (homes and manifest rewritten)
 * and the start is tried again, up to 3 times in all; with `basePort` the layout was asked for, so it fails at once.
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
  let manifest = existing ?? (await setUp({ ...options, dir }, log));
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
  await retryOnPortCollision({
    nodes: () => net.nodes,
    start: () => startProcesses(net, options.minHeight ?? 2),
    stop: () => stopTestnet(net, { graceMs: 3_000 }),
    repick: async () => {
      manifest = await rewritePorts(dir, manifest);
      net.nodes = manifest.nodes.map(toNode);
      // Set up by this start: the next attempt starts from genesis again (see resetFreshNodeData).
      if (existing === undefined) await Promise.all(manifest.nodes.map((node) => resetFreshNodeData(node.home)));
    },
    attempts: options.basePort === undefined ? undefined : 1,
    log,
  });
  return net;
}

/** Every chaind, then every CometBFT, then a height of at least `minHeight` and past what the nodes had before. */
async function startProcesses(net: Testnet, minHeight: number): Promise<void> {
  net.log("starting chaind (ABCI) on every home");
  await Promise.all(net.nodes.map((node) => startChaind(net, node)));
  net.log("starting cometbft on every home");
  await Promise.all(net.nodes.map((node) => startCometbft(net, node)));
  // A block beyond whatever the nodes have already (a restarted testnet) shows that the chain is moving.
  const restored = Math.max(...(await Promise.all(net.nodes.map((n) => latestHeight(n)))));
  const target = Math.max(minHeight, restored + 1);
  net.log(`waiting for height ${target} on every node`);
  await waitForHeight(net, target, { timeoutMs: 90_000 });
}

/** Stops every process of the testnet: each CometBFT first, then each chaind (SIGTERM, SIGKILL after the grace). */
export async function stopTestnet(net: Testnet, options: { graceMs?: number } = {}): Promise<void> {
  await Promise.all(net.nodes.map((n) => stopProcess(n.cometbft, options)));
  await Promise.all(net.nodes.map((n) => stopProcess(n.chaind, options)));
  await writePids(net);
}
