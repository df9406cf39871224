// The testnet library's vocabulary: where the chaind and chainvisor entry points are, the file names inside a
// testnet directory, its error class, and the shapes of options, manifest records, pids.json and running nodes.
import type { ChildProcess } from "node:child_process";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The checkout's root: the processes run from here. */
export const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
/** The reference chain's chaind, run from the source tree. */
export const CHAIND_ENTRY = join(PROJECT_ROOT, "chain", "cmd", "chaind.mjs");
/** chainvisor, run from the source tree. */
export const CHAINVISOR_ENTRY = join(PROJECT_ROOT, "src", "visor", "chainvisor.ts");

// How to install the CometBFT binary the testnet needs: the same hint as the real-CometBFT tests of src/abci.
export { COMETBFT_INSTALL_HINT } from "../../test/support/abci/processes.ts";

/** The CometBFT release line the ABCI server speaks. */
export const COMETBFT_VERSION_PREFIX = "0.38.";

/** The manifest inside the testnet directory: its presence means the directory is set up. */
export const MANIFEST_FILE = "testnet.json";
/** The running processes' pids inside the testnet directory. */
export const PIDS_FILE = "pids.json";

/** A failure to set up, start or stop the testnet: one line saying what, with the cause chained. */
export class TestnetError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "TestnetError";
  }
}

/** An account funded in genesis, besides the validators' own. */
export interface GenesisAccount {
  /** bech32 `chain1...` address. */
  address: string;
  /** Coins as the CLI writes them, e.g. `1000000000stake`. */
  coins: string;
}

/** Running each node's chaind under chainvisor (the sidecar) instead of directly. */
export interface ChainvisorSetup {
  /** Executable or release archive installed as the genesis release (`chainvisor init <path>`). */
  genesis: string;
  /** Releases staged ahead (`chainvisor add-upgrade <name> <path>`). */
  upgrades?: { name: string; path: string }[];
  /** Extra DAEMON_* settings (defaults: DAEMON_SHUTDOWN_GRACE=10s, UNSAFE_SKIP_BACKUP=true). */
  env?: Record<string, string>;
  /** Settings of single nodes over `env`, by node index (e.g. DAEMON_SWITCH_AHEAD on for some validators only). */
  nodeEnv?: Record<number, Record<string, string>>;
}

/** Options of startTestnet. */
export interface TestnetOptions {
  /** Directory holding every home (`node0`, `node1`, ...), the manifest and pids.json. */
  dir: string;
  /** Number of validators (default 4). */
  validators?: number;
  /** Ports from here up (node i uses base + 10·i + 0..4); default: free ports picked at run time. */
  basePort?: number;
  /** Default `chain-testnet`. */
  chainId?: string;
  /** CometBFT `consensus.timeout_commit` (default `300ms`). */
  timeoutCommit?: string;
  /** Each validator's genesis balance (default `1000000000000stake`). */
  validatorCoins?: string;
  /** Each validator's self-delegation in its gentx (default `100000000stake`, voting power 100). */
  selfDelegation?: string;
  /** More funded accounts. */
  accounts?: GenesisAccount[];
  /** Shortens governance: sets `voting_period` (and the deposit period) in the genesis gov params, e.g. `20s`. */
  votingPeriod?: string;
  /** Last word on the shared genesis (parsed genesis.json, changed in place) before it is copied to every home. */
  editGenesis?: (genesis: Record<string, unknown>) => void;
  /** Run chaind under chainvisor. */
  chainvisor?: ChainvisorSetup;
  /** The cometbft binary (default: found on PATH or in ~/go/bin). */
  cometbft?: string;
  /** Processes outlive this one (the CLI); tests keep them attached. Default false. */
  detached?: boolean;
  /** Wait until every node has committed this height (default 2: block 1's app hash is in header 2). */
  minHeight?: number;
  /** CometBFT's log_level (default `info`). */
  cometLogLevel?: string;
  /** Progress lines (default: nothing). */
  log?: (line: string) => void;
}

/** The ports of one node, all on 127.0.0.1. */
export interface NodePorts {
  p2p: number;
  rpc: number;
  abci: number;
  api: number;
  grpc: number;
}

/** One validator as recorded in the manifest. */
export interface NodeRecord {
  index: number;
  moniker: string;
  home: string;
  nodeId: string;
  /** Key name in the home's test keyring. */
  keyName: string;
  /** The validator's account, `chain1...`. */
  address: string;
  /** The validator's operator address, `chainvaloper1...`. */
  operator: string;
  /** The key's BIP39 mnemonic (a test keyring: the key is stored unencrypted in the home anyway). */
  mnemonic: string;
  ports: NodePorts;
}

/** What `<dir>/testnet.json` holds. */
export interface TestnetManifest {
  chainId: string;
  nodes: NodeRecord[];
  chainvisor: boolean;
}

/** The outcome of a process: its exit code, or the signal that ended it. */
export type ExitStatus = number | NodeJS.Signals;

/** A process the testnet started. */
export interface NodeProcess {
  kind: "chaind" | "cometbft";
  pid: number;
  logFile: string;
  /** The log's size when this process started: its own output lies after it (unknown for a pid from pids.json). */
  logStart?: number;
  /** The handle, when this process started it. */
  child?: ChildProcess;
  /** Resolves when it has exited (polls when the process is not our child). */
  exited: Promise<ExitStatus | undefined>;
  /** Whether it has exited already. */
  hasExited: () => boolean;
}

/** A validator of a running testnet. */
export interface TestnetNode extends NodeRecord {
  /** `http://127.0.0.1:<rpc>`: CometBFT's RPC. */
  rpcUrl: string;
  /** `http://127.0.0.1:<api>`: chaind's REST gateway. */
  apiUrl: string;
  /** `127.0.0.1:<grpc>`: chaind's gRPC server. */
  grpcAddress: string;
  chaind?: NodeProcess;
  cometbft?: NodeProcess;
}

/** A running testnet. */
export interface Testnet {
  dir: string;
  chainId: string;
  cometbft: string;
  nodes: TestnetNode[];
  chainvisor?: ChainvisorSetup;
  detached: boolean;
  log: (line: string) => void;
}

/** What `<dir>/pids.json` holds: the live processes of each node (null when not running). */
export interface PidsFile {
  nodes: { moniker: string; home: string; chaind: number | null; cometbft: number | null }[];
}
