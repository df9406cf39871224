// Starting one node's processes: its chaind (directly or under chainvisor) until ABCI answers, and its
// `cometbft node` until the RPC answers; pids.json is rewritten after each spawn. A node added beside the testnet
// (one that joins later) starts with startJoiningNode, which picks new ports when one of its own was taken.
import { join } from "node:path";
import { chainvisorEnv } from "./chainvisor.ts";
import { writePids } from "./pids.ts";
import { retryOnPortCollision } from "./port-retry.ts";
import { allocatePorts } from "./ports.ts";
import { spawnLogged, stopProcess } from "./processes.ts";
import { abciAnswers, rpcResult, waitUntil } from "./queries.ts";
import {
  CHAIND_ENTRY,
  CHAINVISOR_ENTRY,
  type NodePorts,
  type NodeProcess,
  type Testnet,
  TestnetError,
  type TestnetNode,
} from "./types.ts";

/** The URLs and address a node's ports give: CometBFT's RPC, chaind's REST and gRPC servers. */
export function endpoints(ports: NodePorts): Pick<TestnetNode, "rpcUrl" | "apiUrl" | "grpcAddress"> {
  return {
    rpcUrl: `http://127.0.0.1:${ports.rpc}`,
    apiUrl: `http://127.0.0.1:${ports.api}`,
    grpcAddress: `127.0.0.1:${ports.grpc}`,
  };
}

/**
 * Starts the node's chaind (`start --abci`, under chainvisor when set up so) and waits until ABCI answers. `env`
 * is added to the environment it inherits (e.g. CHAIND_RELEASE).
 */
export async function startChaind(
  net: Testnet,
  node: TestnetNode,
  env: Record<string, string> = {},
): Promise<NodeProcess> {
  if (node.chaind !== undefined && !node.chaind.hasExited()) {
    throw new TestnetError(`${node.moniker}'s chaind is already running (pid ${node.chaind.pid})`);
  }
  const logFile = join(node.home, "chaind.log");
  const nodeArgs = ["start", "--abci", "--home", node.home];
  node.chaind =
    net.chainvisor === undefined
      ? spawnLogged(
          "chaind",
          process.execPath,
          [CHAIND_ENTRY, ...nodeArgs],
          logFile,
          { ...process.env, ...env },
          net.detached,
        )
      : spawnLogged(
          "chaind",
          process.execPath,
          [CHAINVISOR_ENTRY, "run", ...nodeArgs],
          logFile,
          { ...chainvisorEnv(node.home, net.chainvisor, node.index), ...env },
          net.detached,
        );
  await writePids(net);
  await waitUntil(
    `${node.moniker}'s chaind to answer ABCI on port ${node.ports.abci}`,
    () => abciAnswers(node.ports.abci),
    {
      timeoutMs: 60_000,
      watched: [node.chaind],
    },
  );
  return node.chaind;
}

/**
 * Starts the node's `cometbft node` on the same home and waits until its RPC answers. `proxyAppPort` points it at
 * another ABCI address on loopback for this run only (config.toml keeps chaind's), as a test's proxy needs.
 */
export async function startCometbft(
  net: Testnet,
  node: TestnetNode,
  options: { proxyAppPort?: number } = {},
): Promise<NodeProcess> {
  if (node.cometbft !== undefined && !node.cometbft.hasExited()) {
    throw new TestnetError(`${node.moniker}'s cometbft is already running (pid ${node.cometbft.pid})`);
  }
  const logFile = join(node.home, "cometbft.log");
  node.cometbft = spawnLogged(
    "cometbft",
    net.cometbft,
    [
      "node",
      "--home",
      node.home,
      ...(options.proxyAppPort === undefined ? [] : ["--proxy_app", `tcp://127.0.0.1:${options.proxyAppPort}`]),
    ],
    logFile,
    process.env,
    net.detached,
  );
  await writePids(net);
  await waitUntil(`${node.moniker}'s CometBFT RPC on port ${node.ports.rpc}`, () => rpcResult(node, "/health"), {
    timeoutMs: 30_000,
    watched: [node.cometbft],
  });
  return node.cometbft;
}

/**
 * Starts a node set up beside the testnet (its home written by the caller): chaind, then CometBFT. When one of its
 * ports was taken before a process bound it, both are stopped, new ports are picked, `writePorts` puts them into
 * the node's config.toml and app.toml, and the start is tried again (port-retry.ts); `node` then carries them.
 */
export async function startJoiningNode(
  net: Testnet,
  node: TestnetNode,
  writePorts: (ports: NodePorts) => Promise<void>,
  env: Record<string, string> = {},
): Promise<void> {
  await retryOnPortCollision({
    nodes: () => [node],
    start: async () => {
      await startChaind(net, node, env);
      await startCometbft(net, node);
    },
    stop: async () => {
      await stopProcess(node.cometbft, { graceMs: 3_000 });
      await stopProcess(node.chaind, { graceMs: 3_000 });
    },
    repick: async () => {
      const [ports] = await allocatePorts(1);
      await writePorts(ports);
      Object.assign(node, { ports }, endpoints(ports));
    },
    log: net.log,
  });
}
