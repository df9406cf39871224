// The local multi-validator testnet as a library (docs/MULTI-VALIDATOR.md): what the e2e tests,
// scripts/rpc-compare.ts and the command line (scripts/testnet.ts) import. Each file here holds one concern:
//   types.ts       options, manifest and pids.json records, running nodes, TestnetError, constants
//   tools.ts       the cometbft binary found and checked; `chaind` and other commands run to completion
//   ports.ts       the loopback ports of every node
//   homes.ts       setting up the homes (init, keys, configs, manifest); genesis.ts the shared genesis;
//                  chainvisor.ts running chaind under chainvisor
//   processes.ts   spawning, watching and stopping one process (with its group)
//   pids.ts        <dir>/pids.json, refusing a running testnet, `stop --dir`
//   queries.ts     CometBFT RPC, heights, ABCI Echo, log tails, and waiting on them
//   nodes.ts       starting one node's chaind or cometbft, or a node that joins beside the testnet
//   port-retry.ts  a port taken before a node bound it: told from the node's log, the start retried on new ports
//   start-stop.ts  starting and stopping a whole testnet

export { readManifest } from "./homes.ts";
export { endpoints, startChaind, startCometbft, startJoiningNode } from "./nodes.ts";
export { stopTestnetDir } from "./pids.ts";
export { findPortCollision, PORT_ATTEMPTS, type PortCollision, PortInUseError } from "./port-retry.ts";
export { allocatePorts } from "./ports.ts";
export { stopProcess } from "./processes.ts";
export { abciAnswers, latestHeight, logTail, rpcResult, storedHeight, waitForHeight, waitUntil } from "./queries.ts";
export { startTestnet, stopTestnet } from "./start-stop.ts";
export { findCometbft } from "./tools.ts";
export {
  type ChainvisorSetup,
  COMETBFT_INSTALL_HINT,
  type ExitStatus,
  type GenesisAccount,
  MANIFEST_FILE,
  type NodePorts,
  type NodeProcess,
  type NodeRecord,
  PIDS_FILE,
  type PidsFile,
  type Testnet,
  TestnetError,
  type TestnetManifest,
  type TestnetNode,
  type TestnetOptions,
} from "./types.ts";
