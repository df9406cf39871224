// A local multi-validator testnet on loopback: N homes, each a `chaind start --abci` process and a `cometbft node`
// process on the SAME home (that is the design: chaind's config.toml is CometBFT's), one shared genesis built from N
// gentxs, distinct loopback ports, persistent peers by node id. See docs/MULTI-VALIDATOR.md.
//
//   node scripts/testnet.ts start --dir <dir> [--validators 4] [--base-port N] [--chain-id ID] [--timeout-commit 300ms]
//                                 [--voting-period 20s] [--account <address>=<coins>]...
//   node scripts/testnet.ts stop --dir <dir> [--grace 10]
//
// `start` on a directory it already set up starts the same nodes again (the chain continues). The processes run
// detached with their output in <home>/chaind.log and <home>/cometbft.log; <dir>/pids.json records them.
// Tests use the exported API: `startTestnet(options)` / `stopTestnet(net)` and the per-process helpers.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { accessSync, closeSync, constants, existsSync, openSync, readFileSync } from "node:fs";
import { copyFile, mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { homedir } from "node:os";
import { delimiter, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs, promisify } from "node:util";
import { convertAddress } from "../src/client/crypto/bech32.ts";
import { writeFileAtomic } from "../src/config/atomic-file.ts";
import { homePaths } from "../src/config/home.ts";
import { loadNodeKey } from "../src/config/node-keys.ts";
import { setTomlValues } from "../src/config/toml-template.ts";
import { freeLoopbackPorts } from "./free-ports.ts";

const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const CHAIND_ENTRY = join(PROJECT_ROOT, "chain", "cmd", "chaind.mjs");
const CHAINVISOR_ENTRY = join(PROJECT_ROOT, "src", "visor", "chainvisor.ts");

/** How to install the CometBFT binary the testnet needs. */
export const COMETBFT_INSTALL_HINT = "go install github.com/cometbft/cometbft/cmd/cometbft@v0.38.25";

/** The CometBFT release line the ABCI server speaks. */
const COMETBFT_VERSION_PREFIX = "0.38.";

/** File names inside the testnet directory. */
export const MANIFEST_FILE = "testnet.json";
export const PIDS_FILE = "pids.json";

/** A failure to set up, start or stop the testnet: one line saying what, with the cause chained. */
export class TestnetError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "TestnetError";
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Types

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

// ---------------------------------------------------------------------------------------------------------------
// Tools

/** The cometbft binary on PATH or in ~/go/bin (where `go install` puts it), or undefined. */
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

const execFileAsync = promisify(execFile);

/** Runs a command to completion and returns its stdout; a failure names the command and carries its stderr. */
async function run(command: string, args: string[], env?: NodeJS.ProcessEnv): Promise<string> {
  try {
    const { stdout } = await execFileAsync(command, args, {
      env: env ?? process.env,
      maxBuffer: 64 * 1024 * 1024,
      cwd: PROJECT_ROOT,
    });
    return stdout;
  } catch (cause) {
    const error = cause as { stderr?: string; stdout?: string; code?: unknown };
    const shown = [command === process.execPath ? "" : command, ...args].filter((s) => s !== "").join(" ");
    const output = `${error.stderr ?? ""}${error.stdout ?? ""}`.trim();
    throw new TestnetError(`\`${shown}\` failed (exit ${String(error.code)}): ${output.slice(-2000)}`, { cause });
  }
}

/** Runs `chaind <args>` from this source tree. */
function chaind(args: string[]): Promise<string> {
  return run(process.execPath, [CHAIND_ENTRY, ...args]);
}

async function checkCometbft(binary: string): Promise<void> {
  const version = (await run(binary, ["version"])).trim();
  if (!version.startsWith(COMETBFT_VERSION_PREFIX)) {
    throw new TestnetError(
      `${binary} is CometBFT ${version}: expected ${COMETBFT_VERSION_PREFIX}x (install with ${COMETBFT_INSTALL_HINT})`,
    );
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Ports

const PORT_KINDS = ["p2p", "rpc", "abci", "api", "grpc"] as const;

async function listenOn(port: number): Promise<Server> {
  const server = createServer();
  await new Promise<void>((resolveListen, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolveListen());
  });
  return server;
}

/**
 * Ports for `count` nodes: from the base (node i at base + 10·i + 0..4, each checked free), or picked at random
 * below the ephemeral range (free-ports.ts). Every probe stays bound until all are picked, so no port is handed
 * out twice.
 */
export async function allocatePorts(count: number, basePort?: number): Promise<NodePorts[]> {
  if (basePort === undefined) {
    const picked = await freeLoopbackPorts(count * PORT_KINDS.length);
    return Array.from({ length: count }, (_, i) => {
      const ports = {} as NodePorts;
      for (const [k, kind] of PORT_KINDS.entries()) ports[kind] = picked[i * PORT_KINDS.length + k];
      return ports;
    });
  }
  const held: Server[] = [];
  try {
    const result: NodePorts[] = [];
    for (let i = 0; i < count; i++) {
      const ports = {} as NodePorts;
      for (const [k, kind] of PORT_KINDS.entries()) {
        const wanted = basePort + 10 * i + k;
        if (wanted > 65535) throw new TestnetError(`--base-port ${basePort} leaves no room for ${count} nodes`);
        let server: Server;
        try {
          server = await listenOn(wanted);
        } catch (cause) {
          throw new TestnetError(`port ${wanted} on 127.0.0.1 (node${i} ${kind}) is in use: pick another --base-port`, {
            cause,
          });
        }
        held.push(server);
        ports[kind] = wanted;
      }
      result.push(ports);
    }
    return result;
  } finally {
    await Promise.all(held.map((s) => new Promise<void>((done) => s.close(() => done()))));
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Setting up the homes

function nodeMoniker(index: number): string {
  return `node${index}`;
}

/** `chaind init`, a validator key, and the node id, for one home. */
async function initNode(index: number, home: string, chainId: string): Promise<Omit<NodeRecord, "ports">> {
  const moniker = nodeMoniker(index);
  const keyName = `val${index}`;
  await chaind(["init", moniker, "--chain-id", chainId, "--home", home]);
  const added = JSON.parse(
    await chaind(["keys", "add", keyName, "--keyring-backend", "test", "--home", home, "--output", "json"]),
  ) as { address?: string; mnemonic?: string };
  if (typeof added.address !== "string" || typeof added.mnemonic !== "string") {
    throw new TestnetError(`\`chaind keys add ${keyName} -o json\` printed no address and mnemonic`);
  }
  const nodeKey = await loadNodeKey(homePaths(home).nodeKey);
  return {
    index,
    moniker,
    home,
    nodeId: nodeKey.id,
    keyName,
    address: added.address,
    operator: convertAddress(added.address, "acc", "val"),
    mnemonic: added.mnemonic,
  };
}

/** Builds the shared genesis in the first home and copies it to every other one. */
async function buildGenesis(records: NodeRecord[], chainId: string, options: TestnetOptions): Promise<void> {
  const first = records[0].home;
  const accounts: GenesisAccount[] = [
    ...records.map((r) => ({ address: r.address, coins: options.validatorCoins ?? "1000000000000stake" })),
    ...(options.accounts ?? []),
  ];
  for (const account of accounts) {
    await chaind(["genesis", "add-genesis-account", account.address, account.coins, "--home", first]);
  }
  // Every validator signs its gentx against a genesis that already funds it.
  const genesisFile = homePaths(first).genesis;
  await Promise.all(records.slice(1).map((r) => copyFile(genesisFile, homePaths(r.home).genesis)));
  await Promise.all(
    records.map((record) =>
      chaind([
        "genesis",
        "gentx",
        record.keyName,
        options.selfDelegation ?? "100000000stake",
        "--chain-id",
        chainId,
        "--keyring-backend",
        "test",
        "--home",
        record.home,
      ]),
    ),
  );
  const gentxDir = homePaths(first).gentxDir;
  for (const record of records.slice(1)) {
    const own = homePaths(record.home).gentxDir;
    for (const name of await readdir(own)) await copyFile(join(own, name), join(gentxDir, name));
  }
  await chaind(["genesis", "collect-gentxs", "--home", first]);

  if (options.votingPeriod !== undefined || options.editGenesis !== undefined) {
    const genesis = JSON.parse(await readFile(genesisFile, "utf8")) as Record<string, unknown>;
    if (options.votingPeriod !== undefined) shortenGovernance(genesis, options.votingPeriod);
    options.editGenesis?.(genesis);
    await writeFile(genesisFile, `${JSON.stringify(genesis, null, 2)}\n`);
  }
  await chaind(["genesis", "validate", "--home", first]);
  await Promise.all(records.slice(1).map((r) => copyFile(genesisFile, homePaths(r.home).genesis)));
}

function votingPeriodSeconds(period: string): number {
  const match = /^(\d+)s$/.exec(period);
  const seconds = match === null ? Number.NaN : Number(match[1]);
  if (!(seconds >= 2))
    throw new TestnetError(`--voting-period ${period}: expected whole seconds, at least 2s, e.g. 20s`);
  return seconds;
}

/** Sets the gov voting and deposit periods; the expedited period must stay below the voting period. */
function shortenGovernance(genesis: Record<string, unknown>, period: string): void {
  const seconds = votingPeriodSeconds(period);
  const appState = genesis.app_state as Record<string, Record<string, Record<string, unknown>>> | undefined;
  const params = appState?.gov?.params;
  if (params === undefined) throw new TestnetError("genesis.json has no app_state.gov.params to shorten");
  params.voting_period = `${seconds}s`;
  params.max_deposit_period = `${seconds}s`;
  params.expedited_voting_period = `${Math.max(1, Math.floor(seconds / 2))}s`;
}

/** config.toml and app.toml of one node: its ports, its peers, quick consensus, loopback-friendly p2p. */
async function configureNode(record: NodeRecord, all: NodeRecord[], options: TestnetOptions): Promise<void> {
  const paths = homePaths(record.home);
  const loopback = (port: number) => `tcp://127.0.0.1:${port}`;
  const peers = all
    .filter((other) => other.index !== record.index)
    .map((other) => `${other.nodeId}@127.0.0.1:${other.ports.p2p}`)
    .join(",");
  const timeoutCommit = options.timeoutCommit ?? "300ms";
  const config = setTomlValues(
    await readFile(paths.configToml, "utf8"),
    {
      moniker: record.moniker,
      proxy_app: loopback(record.ports.abci),
      log_level: options.cometLogLevel ?? "info",
      "rpc.laddr": loopback(record.ports.rpc),
      "rpc.pprof_laddr": "",
      "p2p.laddr": loopback(record.ports.p2p),
      "p2p.external_address": `127.0.0.1:${record.ports.p2p}`,
      "p2p.persistent_peers": peers,
      "p2p.addr_book_strict": false,
      "p2p.allow_duplicate_ip": true,
      "p2p.pex": false,
      "consensus.timeout_propose": "1s",
      "consensus.timeout_prevote": "200ms",
      "consensus.timeout_precommit": "200ms",
      "consensus.timeout_commit": timeoutCommit,
      "instrumentation.prometheus": false,
    },
    paths.configToml,
  );
  await writeFile(paths.configToml, config);
  const app = setTomlValues(
    await readFile(paths.appToml, "utf8"),
    {
      "api.enable": true,
      "api.address": loopback(record.ports.api),
      "grpc.enable": true,
      "grpc.address": `127.0.0.1:${record.ports.grpc}`,
    },
    paths.appToml,
  );
  await writeFile(paths.appToml, app);
}

async function installChainvisor(record: NodeRecord, setup: ChainvisorSetup): Promise<void> {
  const env = chainvisorEnv(record.home, setup);
  await run(process.execPath, [CHAINVISOR_ENTRY, "init", setup.genesis], env);
  for (const upgrade of setup.upgrades ?? []) {
    await run(process.execPath, [CHAINVISOR_ENTRY, "add-upgrade", upgrade.name, upgrade.path], env);
  }
}

function chainvisorEnv(home: string, setup: ChainvisorSetup): NodeJS.ProcessEnv {
  return {
    ...process.env,
    DAEMON_HOME: home,
    DAEMON_NAME: "chaind",
    DAEMON_SHUTDOWN_GRACE: "10s",
    UNSAFE_SKIP_BACKUP: "true",
    ...setup.env,
  };
}

/** Creates every home, the shared genesis and the configs; writes the manifest last (its presence = set up). */
/** Checks what can be checked before anything is written or started. */
async function checkOptions(options: TestnetOptions, setUpAlready: boolean): Promise<void> {
  const count = options.validators ?? 4;
  if (!Number.isInteger(count) || count < 1 || count > 50) {
    throw new TestnetError(`--validators ${count}: expected a whole number from 1 to 50`);
  }
  if (options.basePort !== undefined && options.basePort + 10 * count > 65536) {
    throw new TestnetError(`--base-port ${options.basePort} leaves no room for ${count} nodes (10 ports each)`);
  }
  if (options.votingPeriod !== undefined) votingPeriodSeconds(options.votingPeriod);
  if (setUpAlready) return;
  const entries = existsSync(options.dir) ? await readdir(options.dir) : [];
  if (entries.length > 0) {
    throw new TestnetError(`${options.dir} is not empty and holds no ${MANIFEST_FILE}: give an empty or new --dir`);
  }
}

async function setUp(options: TestnetOptions, log: (line: string) => void): Promise<TestnetManifest> {
  const count = options.validators ?? 4;
  const chainId = options.chainId ?? "chain-testnet";
  await mkdir(options.dir, { recursive: true });
  const ports = await allocatePorts(count, options.basePort);
  log(`initialising ${count} homes in ${options.dir} (chain id ${chainId})`);
  const partial = await Promise.all(ports.map((_, i) => initNode(i, join(options.dir, nodeMoniker(i)), chainId)));
  const records: NodeRecord[] = partial.map((r, i) => ({ ...r, ports: ports[i] }));
  log("building the genesis from the gentxs");
  await buildGenesis(records, chainId, options);
  for (const record of records) await configureNode(record, records, options);
  if (options.chainvisor !== undefined) {
    log("installing chainvisor in every home");
    for (const record of records) await installChainvisor(record, options.chainvisor);
  }
  const manifest: TestnetManifest = { chainId, nodes: records, chainvisor: options.chainvisor !== undefined };
  await writeFile(join(options.dir, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}

/** The manifest of a testnet directory, or undefined when it was never set up. */
export async function readManifest(dir: string): Promise<TestnetManifest | undefined> {
  const file = join(dir, MANIFEST_FILE);
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(await readFile(file, "utf8")) as TestnetManifest;
  } catch (cause) {
    throw new TestnetError(`${file} is not valid JSON: remove the directory and start again`, { cause });
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Processes

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // A zombie (exited, not yet reaped by its parent) still answers kill(0).
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return !/^\d+ \(.*\) Z/.test(stat);
  } catch {
    return true;
  }
}

function watchPid(pid: number): Promise<undefined> {
  return new Promise((done) => {
    const timer = setInterval(() => {
      if (!isAlive(pid)) {
        clearInterval(timer);
        done(undefined);
      }
    }, 100);
  });
}

function spawnLogged(
  kind: NodeProcess["kind"],
  command: string,
  args: string[],
  logFile: string,
  env: NodeJS.ProcessEnv,
  outlive: boolean,
): NodeProcess {
  const fd = openSync(logFile, "a");
  let child: ChildProcess;
  try {
    // Its own process group, so one signal reaches chainvisor and the node it runs alike.
    child = spawn(command, args, { stdio: ["ignore", fd, fd], env, detached: true, cwd: PROJECT_ROOT });
  } finally {
    closeSync(fd);
  }
  if (child.pid === undefined) throw new TestnetError(`could not start ${kind}: ${command} ${args.join(" ")}`);
  let done = false;
  const exited = new Promise<ExitStatus | undefined>((resolveExit) => {
    child.once("exit", (code, signal) => {
      done = true;
      resolveExit(code ?? signal ?? undefined);
    });
    child.once("error", () => {
      done = true;
      resolveExit(undefined);
    });
  });
  if (outlive) child.unref();
  return { kind, pid: child.pid, logFile, child, exited, hasExited: () => done };
}

/** The last `bytes` of a log file, for error messages. */
export function logTail(file: string, bytes = 3000): string {
  try {
    const text = readFileSync(file, "utf8");
    return text.slice(-bytes);
  } catch {
    return "(no log)";
  }
}

async function sleep(ms: number): Promise<void> {
  await new Promise((done) => setTimeout(done, ms));
}

/** Polls `probe` until it gives a value, the process `watched` exits, or `timeoutMs` passes. */
export async function waitUntil<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  options: { timeoutMs?: number; watched?: NodeProcess[] } = {},
): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      lastError = error;
    }
    const dead = options.watched?.find((p) => p.hasExited());
    if (dead !== undefined) {
      throw new TestnetError(
        `${dead.kind} (pid ${dead.pid}) exited while waiting for ${what}:\n${logTail(dead.logFile)}`,
      );
    }
    if (Date.now() > deadline) throw new TestnetError(`timed out waiting for ${what}`, { cause: lastError });
    await sleep(200);
  }
}

/** Whether an ABCI server answers Echo on 127.0.0.1:`port` (resolves true, or throws). */
export async function abciAnswers(port: number): Promise<true | undefined> {
  // Loaded on first use: the generated ABCI types are large, and the command line's error paths never need them.
  const { AbciClient } = await import("../src/abci/client.ts");
  const client = await AbciClient.connect(`tcp://127.0.0.1:${port}`);
  try {
    await client.call("echo", { message: "testnet" });
    return true;
  } finally {
    await client.close();
  }
}

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
          chainvisorEnv(node.home, net.chainvisor),
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

/** Signals the process group led by `pid` (every process here leads its own), else the process alone. */
function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      // exited in the meantime
    }
  }
}

/**
 * Stops one process (with its group): `signal` (default SIGTERM), then SIGKILL once `graceMs` has passed. Resolves with how it
 * ended. A process that already exited is left alone.
 */
export async function stopProcess(
  proc: NodeProcess | undefined,
  options: { signal?: NodeJS.Signals; graceMs?: number } = {},
): Promise<ExitStatus | undefined> {
  if (proc === undefined || proc.hasExited()) return proc === undefined ? undefined : await proc.exited;
  signalGroup(proc.pid, options.signal ?? "SIGTERM");
  let timer: NodeJS.Timeout | undefined;
  const escalate = new Promise<void>((done) => {
    timer = setTimeout(() => {
      signalGroup(proc.pid, "SIGKILL");
      done();
    }, options.graceMs ?? 10_000);
  });
  try {
    await Promise.race([proc.exited, escalate]);
    return await proc.exited;
  } finally {
    clearTimeout(timer);
  }
}

/** What `<dir>/pids.json` holds: the live processes of each node (null when not running). */
export interface PidsFile {
  nodes: { moniker: string; home: string; chaind: number | null; cometbft: number | null }[];
}

// One write at a time per testnet, each taking the state as it is when its turn comes: processes start in
// parallel, and interleaved writes of one file would leave it torn.
const pidWrites = new WeakMap<Testnet, Promise<void>>();

function writePids(net: Testnet): Promise<void> {
  const pidOf = (p: NodeProcess | undefined) => (p === undefined || p.hasExited() ? null : p.pid);
  const write = async () => {
    const pids: PidsFile = {
      nodes: net.nodes.map((n) => ({
        moniker: n.moniker,
        home: n.home,
        chaind: pidOf(n.chaind),
        cometbft: pidOf(n.cometbft),
      })),
    };
    await writeFileAtomic(join(net.dir, PIDS_FILE), `${JSON.stringify(pids, null, 2)}\n`);
  };
  const next = (pidWrites.get(net) ?? Promise.resolve()).then(write);
  pidWrites.set(
    net,
    next.catch(() => {}),
  );
  return next;
}

// ---------------------------------------------------------------------------------------------------------------
// RPC

/** GETs a CometBFT RPC endpoint of `node` and returns its `result` (a JSON-RPC error is thrown). */
export async function rpcResult(node: TestnetNode, pathAndQuery: string): Promise<Record<string, unknown>> {
  const response = await fetch(`${node.rpcUrl}${pathAndQuery}`, { signal: AbortSignal.timeout(5_000) });
  const body = (await response.json()) as { result?: Record<string, unknown>; error?: unknown };
  if (body.error !== undefined || body.result === undefined) {
    throw new TestnetError(`${node.moniker} RPC ${pathAndQuery} failed: ${JSON.stringify(body.error)}`);
  }
  return body.result;
}

/** The latest height `node`'s CometBFT reports. */
export async function latestHeight(node: TestnetNode): Promise<number> {
  const status = await rpcResult(node, "/status");
  return Number((status.sync_info as { latest_block_height: string }).latest_block_height);
}

/** Waits until each of `nodes` (default: all) reports at least `height`. */
export async function waitForHeight(
  net: Testnet,
  height: number,
  options: { nodes?: TestnetNode[]; timeoutMs?: number } = {},
): Promise<void> {
  const nodes = options.nodes ?? net.nodes;
  await waitUntil(
    `height ${height} on ${nodes.map((n) => n.moniker).join(", ")}`,
    async () => {
      const heights = await Promise.all(nodes.map((n) => latestHeight(n)));
      return heights.every((h) => h >= height) ? true : undefined;
    },
    {
      timeoutMs: options.timeoutMs ?? 60_000,
      watched: nodes.flatMap((n) => [n.chaind, n.cometbft].filter((p): p is NodeProcess => p !== undefined)),
    },
  );
}

// ---------------------------------------------------------------------------------------------------------------
// Start and stop

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

/** A pid from pids.json is ours only while its command line still names the node's home (pids get reused). */
function ownedPid(pid: number | null, home: string): number | undefined {
  if (pid === null || !isAlive(pid)) return undefined;
  try {
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
    return cmdline.includes(home) ? pid : undefined;
  } catch {
    return undefined;
  }
}

function foreignProcess(kind: NodeProcess["kind"], pid: number, logFile: string): NodeProcess {
  let done = false;
  const exited = watchPid(pid).then(() => {
    done = true;
    return undefined;
  });
  return { kind, pid, logFile, exited, hasExited: () => done };
}

async function readPids(file: string): Promise<PidsFile> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(file, "utf8"));
  } catch (cause) {
    throw new TestnetError(`${file} is unreadable: make sure none of its processes runs, then delete it`, { cause });
  }
  const nodes = (parsed as Partial<PidsFile> | null)?.nodes;
  if (!Array.isArray(nodes) || nodes.some((n) => typeof n?.home !== "string")) {
    throw new TestnetError(`${file} does not hold {"nodes":[{"home":...,"chaind":pid,"cometbft":pid}]}`);
  }
  return parsed as PidsFile;
}

/** Refuses to start a testnet whose recorded processes still run. */
async function refuseIfRunning(dir: string): Promise<void> {
  const file = join(dir, PIDS_FILE);
  if (!existsSync(file)) return;
  const pids = await readPids(file);
  const running = pids.nodes.filter(
    (n) => ownedPid(n.chaind, n.home) !== undefined || ownedPid(n.cometbft, n.home) !== undefined,
  );
  if (running.length > 0) {
    throw new TestnetError(
      `${dir} is running already (${running.map((n) => n.moniker).join(", ")}): stop it first with \`node scripts/testnet.ts stop --dir ${dir}\``,
    );
  }
}

/** `stop --dir`: stops the processes recorded in `<dir>/pids.json`, CometBFT first. Returns how many it stopped. */
export async function stopTestnetDir(dir: string, options: { graceMs?: number } = {}): Promise<number> {
  const file = join(resolve(dir), PIDS_FILE);
  if (!existsSync(file)) throw new TestnetError(`${file} not found: was a testnet started in ${dir}?`);
  const pids = await readPids(file);
  const comets: NodeProcess[] = [];
  const chainds: NodeProcess[] = [];
  for (const node of pids.nodes) {
    const comet = ownedPid(node.cometbft, node.home);
    if (comet !== undefined) comets.push(foreignProcess("cometbft", comet, join(node.home, "cometbft.log")));
    const app = ownedPid(node.chaind, node.home);
    if (app !== undefined) chainds.push(foreignProcess("chaind", app, join(node.home, "chaind.log")));
  }
  await Promise.all(comets.map((p) => stopProcess(p, options)));
  await Promise.all(chainds.map((p) => stopProcess(p, options)));
  const cleared: PidsFile = { nodes: pids.nodes.map((n) => ({ ...n, chaind: null, cometbft: null })) };
  await writeFileAtomic(file, `${JSON.stringify(cleared, null, 2)}\n`);
  return comets.length + chainds.length;
}

// ---------------------------------------------------------------------------------------------------------------
// Command line

const USAGE = `usage:
  node scripts/testnet.ts start --dir <dir> [--validators 4] [--base-port N] [--chain-id ID] [--timeout-commit 300ms]
                                [--voting-period 20s] [--account <address>=<coins>]...
  node scripts/testnet.ts stop --dir <dir> [--grace 10]`;

function parseAccount(text: string): GenesisAccount {
  const eq = text.indexOf("=");
  if (eq <= 0 || eq === text.length - 1) {
    throw new TestnetError(`--account ${text}: expected <address>=<coins>, e.g. chain1...=1000000stake`);
  }
  return { address: text.slice(0, eq), coins: text.slice(eq + 1) };
}

function parseWhole(flag: string, text: string | undefined, min: number, max: number): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < min || value > max) {
    throw new TestnetError(`${flag} ${text}: expected a whole number from ${min} to ${max}`);
  }
  return value;
}

const CLI_OPTIONS = {
  dir: { type: "string" },
  validators: { type: "string" },
  "base-port": { type: "string" },
  "chain-id": { type: "string" },
  "timeout-commit": { type: "string" },
  "voting-period": { type: "string" },
  account: { type: "string", multiple: true },
  grace: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

async function main(argv: string[]): Promise<number> {
  let parsed: ReturnType<typeof parseArgs<{ args: string[]; allowPositionals: true; options: typeof CLI_OPTIONS }>>;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, options: CLI_OPTIONS });
  } catch (error) {
    process.stderr.write(`testnet: ${(error as Error).message}\n${USAGE}\n`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const [command, ...extra] = positionals;
  if ((command !== "start" && command !== "stop") || extra.length > 0 || values.dir === undefined) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  const log = (line: string) => process.stderr.write(`testnet: ${line}\n`);
  if (command === "stop") {
    const graceSeconds = parseWhole("--grace", values.grace, 0, 3600) ?? 10;
    const stopped = await stopTestnetDir(values.dir, { graceMs: graceSeconds * 1000 });
    log(`stopped ${stopped} processes`);
    return 0;
  }
  const net = await startTestnet({
    dir: values.dir,
    validators: parseWhole("--validators", values.validators, 1, 50),
    basePort: parseWhole("--base-port", values["base-port"], 1024, 65535),
    chainId: values["chain-id"],
    timeoutCommit: values["timeout-commit"],
    votingPeriod: values["voting-period"],
    accounts: (values.account ?? []).map(parseAccount),
    detached: true,
    log,
  });
  for (const node of net.nodes) {
    process.stdout.write(
      `${node.moniker}  rpc ${node.rpcUrl}  rest ${node.apiUrl}  grpc ${node.grpcAddress}  ` +
        `key ${node.keyName} ${node.address}  home ${node.home}\n`,
    );
  }
  log(`chain ${net.chainId} is producing blocks; stop it with: node scripts/testnet.ts stop --dir ${net.dir}`);
  return 0;
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    process.exitCode = await main(process.argv.slice(2));
  } catch (error) {
    const known = error instanceof TestnetError;
    process.stderr.write(`testnet: ${known ? (error as Error).message : ((error as Error).stack ?? String(error))}\n`);
    process.exitCode = 1;
  }
}
