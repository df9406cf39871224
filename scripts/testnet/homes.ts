// Setting up the homes of a testnet: the options checked first, `chaind init` and a validator key per home, the
// shared genesis (genesis.ts), config.toml and app.toml per node, chainvisor when asked, and the manifest last.
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { homePaths } from "../../src/config/home.ts";
import { loadNodeKey } from "../../src/config/node-keys.ts";
import { setTomlValues } from "../../src/config/toml-template.ts";
import { convertAddress } from "../../src/crypto/bech32.ts";
import { installChainvisor } from "./chainvisor.ts";
import { buildGenesis, votingPeriodSeconds } from "./genesis.ts";
import { allocatePorts } from "./ports.ts";
import { chaind } from "./tools.ts";
import { MANIFEST_FILE, type NodeRecord, TestnetError, type TestnetManifest, type TestnetOptions } from "./types.ts";

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

/** The settings of config.toml and app.toml that name one node's ports and its peers' p2p ports. */
function portSettings(record: NodeRecord, all: NodeRecord[]) {
  const loopback = (port: number) => `tcp://127.0.0.1:${port}`;
  const peers = all
    .filter((other) => other.index !== record.index)
    .map((other) => `${other.nodeId}@127.0.0.1:${other.ports.p2p}`)
    .join(",");
  return {
    config: {
      proxy_app: loopback(record.ports.abci),
      "rpc.laddr": loopback(record.ports.rpc),
      "p2p.laddr": loopback(record.ports.p2p),
      "p2p.external_address": `127.0.0.1:${record.ports.p2p}`,
      "p2p.persistent_peers": peers,
    },
    app: { "api.address": loopback(record.ports.api), "grpc.address": `127.0.0.1:${record.ports.grpc}` },
  };
}

/** Sets `values` in the TOML file at `file`, keeping everything else in it. */
async function editToml(file: string, values: Parameters<typeof setTomlValues>[1]): Promise<void> {
  await writeFile(file, setTomlValues(await readFile(file, "utf8"), values, file));
}

/** config.toml and app.toml of one node: its ports, its peers, quick consensus, loopback-friendly p2p. */
async function configureNode(record: NodeRecord, all: NodeRecord[], options: TestnetOptions): Promise<void> {
  const paths = homePaths(record.home);
  const ports = portSettings(record, all);
  await editToml(paths.configToml, {
    moniker: record.moniker,
    ...ports.config,
    log_level: options.cometLogLevel ?? "info",
    "rpc.pprof_laddr": "",
    "p2p.addr_book_strict": false,
    "p2p.allow_duplicate_ip": true,
    "p2p.pex": false,
    "consensus.timeout_propose": "1s",
    "consensus.timeout_prevote": "200ms",
    "consensus.timeout_precommit": "200ms",
    "consensus.timeout_commit": options.timeoutCommit ?? "300ms",
    "instrumentation.prometheus": false,
  });
  await editToml(paths.appToml, { "api.enable": true, "grpc.enable": true, ...ports.app });
}

/**
 * New free ports for every node of a set-up testnet (a port it had was taken): each home's config.toml and app.toml
 * get them (the peers' p2p ports too, keeping every other setting), then the manifest. Returns the new manifest.
 */
export async function rewritePorts(dir: string, manifest: TestnetManifest): Promise<TestnetManifest> {
  const ports = await allocatePorts(manifest.nodes.length);
  const records = manifest.nodes.map((record, i) => ({ ...record, ports: ports[i] }));
  for (const record of records) {
    const paths = homePaths(record.home);
    const settings = portSettings(record, records);
    await editToml(paths.configToml, settings.config);
    await editToml(paths.appToml, settings.app);
  }
  const updated = { ...manifest, nodes: records };
  await writeManifest(dir, updated);
  return updated;
}

/**
 * Puts a node's `data/` back as `chaind init` left it (only a height-0 priv_validator_state.json), for a testnet set
 * up in this start whose first attempt failed: a process stopped while it created its databases can leave one
 * without its entry point (goleveldb: "database entry point either missing or corrupted"), and blocks three nodes
 * made without the fourth would not match a fresh start's. Nothing of a testnet that ran before is ever cleared.
 */
export async function resetFreshNodeData(home: string): Promise<void> {
  const paths = homePaths(home);
  for (const entry of await readdir(paths.dataDir)) {
    await rm(join(paths.dataDir, entry), { recursive: true, force: true });
  }
  await writeFile(paths.privValidatorState, `${JSON.stringify({ height: "0", round: 0, step: 0 }, null, 2)}\n`);
}

/** Writes `<dir>/testnet.json` (its presence means the directory is set up). */
async function writeManifest(dir: string, manifest: TestnetManifest): Promise<void> {
  await writeFile(join(dir, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`);
}

/** Checks what can be checked before anything is written or started. */
export async function checkOptions(options: TestnetOptions, setUpAlready: boolean): Promise<void> {
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

/** Creates every home, the shared genesis and the configs; writes the manifest last (its presence = set up). */
export async function setUp(options: TestnetOptions, log: (line: string) => void): Promise<TestnetManifest> {
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
  await writeManifest(options.dir, manifest);
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
