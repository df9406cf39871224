// Starting one node's processes: its chaind (directly or under chainvisor) until ABCI answers, and its
// `cometbft node` until the RPC answers; pids.json is rewritten after each spawn.
import { join } from "node:path";
import { chainvisorEnv } from "./chainvisor.ts";
import { writePids } from "./pids.ts";
import { spawnLogged } from "./processes.ts";
import { abciAnswers, rpcResult, waitUntil } from "./queries.ts";
import {
  CHAIND_ENTRY,
  CHAINVISOR_ENTRY,
  type NodeProcess,
  type Testnet,
  TestnetError,
  type TestnetNode,
} from "./types.ts";

/** Starts the node's chaind (`start --abci`, under chainvisor when set up so) and waits until ABCI answers. */
export async function startChaind(net: Testnet, node: TestnetNode): Promise<NodeProcess> {
  if (node.chaind !== undefined && !node.chaind.hasExited()) {
    throw new TestnetError(`${node.moniker}'s chaind is already running (pid ${node.chaind.pid})`);
  }
  const logFile = join(node.home, "chaind.log");
  const nodeArgs = ["start", "--abci", "--home", node.home];
  node.chaind =
    net.chainvisor === undefined
      ? spawnLogged("chaind", process.execPath, [CHAIND_ENTRY, ...nodeArgs], logFile, process.env, net.detached)
      : spawnLogged(
          "chaind",
          process.execPath,
          [CHAINVISOR_ENTRY, "run", ...nodeArgs],
          logFile,
          chainvisorEnv(node.home, net.chainvisor, node.index),
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

/** Starts the node's `cometbft node` on the same home and waits until its RPC answers. */
export async function startCometbft(net: Testnet, node: TestnetNode): Promise<NodeProcess> {
  if (node.cometbft !== undefined && !node.cometbft.hasExited()) {
    throw new TestnetError(`${node.moniker}'s cometbft is already running (pid ${node.cometbft.pid})`);
  }
  const logFile = join(node.home, "cometbft.log");
  node.cometbft = spawnLogged(
    "cometbft",
    net.cometbft,
    ["node", "--home", node.home],
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
