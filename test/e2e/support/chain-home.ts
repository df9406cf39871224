// A single-validator chain home for the end-to-end tests, set up with the operator's own commands (docs/CONTRACT.md §8):
// `chaind init`, `keys add`, `genesis add-genesis-account`, `genesis gentx`, `genesis collect-gentxs`, then the
// genesis and config edits an operator makes for a short-lived test chain (short gov periods, fast blocks, loopback
// ports picked at run time), then `genesis validate`.
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { parse, stringify } from "smol-toml";
import { freeLoopbackPorts } from "../../../scripts/free-ports.ts";
import { type CommandResult, runCommand, tail } from "./processes.ts";
import { PROJECT } from "./project-build.ts";
import { NODE } from "./releases.ts";

/** How to invoke a `chaind`: the source tree (`node chain/cmd/chaind.mjs`) or a release's `bin/chaind`. */
export interface ChaindBinary {
  command: string;
  prefix: string[];
  /** Extra environment (e.g. CHAIND_RELEASE for the source tree). */
  env?: Record<string, string>;
}

/** `chaind` from this source tree, running as `release` (CHAIND_RELEASE; default v1). */
export function sourceChaind(release?: string): ChaindBinary {
  return {
    command: NODE,
    prefix: [join(PROJECT, "chain", "cmd", "chaind.mjs")],
    env: release === undefined ? {} : { CHAIND_RELEASE: release },
  };
}

/** Runs `chaind <args>`; a non-zero exit is an error carrying the command and its output unless `allowFailure`. */
export async function chaind(
  binary: ChaindBinary,
  args: string[],
  options: { allowFailure?: boolean; env?: Record<string, string>; timeoutMs?: number } = {},
): Promise<CommandResult> {
  const result = await runCommand(binary.command, [...binary.prefix, ...args], {
    cwd: PROJECT,
    env: { ...process.env, ...binary.env, ...options.env },
    timeoutMs: options.timeoutMs ?? 120_000,
  });
  if (!options.allowFailure && result.status !== 0) {
    throw new Error(
      `chaind ${args.join(" ")} exited with ${result.status ?? result.signal}\nstdout:\n${tail(result.stdout)}\nstderr:\n${tail(result.stderr)}`,
    );
  }
  return result;
}

/** Runs `chaind <args> -o json` and parses what it printed. */
export async function chaindJson<T = unknown>(binary: ChaindBinary, args: string[]): Promise<T> {
  const result = await chaind(binary, [...args, "-o", "json"]);
  try {
    return JSON.parse(result.stdout) as T;
  } catch (cause) {
    throw new Error(`chaind ${args.join(" ")} -o json did not print JSON:\n${result.stdout}\n${result.stderr}`, {
      cause,
    });
  }
}

/** A note in a notes-style module's genesis. */
export interface GenesisNote {
  key: string;
  value: string;
}

/** What a test chain is set up with. */
export interface ChainHomeOptions {
  home: string;
  chainId: string;
  /** The chaind that runs the setup commands. */
  binary: ChaindBinary;
  /** Gov max_deposit_period and voting_period, e.g. "4s" (expedited gets half). */
  govPeriod: string;
  /** config.toml consensus.timeout_commit, e.g. "300ms". */
  timeoutCommit: string;
  /** Genesis notes of the `notes` module (store `notes_v1` in v1, renamed `notes` by v2). */
  notes: GenesisNote[];
  /** Genesis notes of the `legacy` module (store deleted by v2). */
  legacy: GenesisNote[];
}

/** A test chain's home, keys and endpoints. */
export interface ChainHome {
  home: string;
  chainId: string;
  validator: { name: string; address: string };
  alice: { name: string; address: string };
  /** `http://127.0.0.1:<port>`: the consensus RPC (and what `--node` takes, as tcp://). */
  rpcUrl: string;
  /** `tcp://127.0.0.1:<port>` for `--node`. */
  nodeFlag: string;
  /** `http://127.0.0.1:<port>`: the REST gateway. */
  apiUrl: string;
  /** `127.0.0.1:<port>`: the gRPC server. */
  grpcAddress: string;
  /** Initial balances (stake) of the genesis accounts after the validator's self-delegation. */
  balances: { validator: string; alice: string };
  /** The chain's bond and fee denom, for another chain's identity; {@link DENOM} when absent. */
  denom?: string;
}

/** The denomination and amounts the test chains use. */
export const DENOM = "stake";
const VALIDATOR_FUNDS = "1000000000000";
const SELF_DELEGATION = "100000000000";
const ALICE_FUNDS = "5000000000";

/** Creates the home, keys, genesis and config of a single-validator chain (see the file comment). */
export async function setupChainHome(options: ChainHomeOptions): Promise<ChainHome> {
  const { home, chainId, binary } = options;
  const h = ["--home", home];
  const kb = ["--keyring-backend", "test"];
  await chaind(binary, ["init", "node0", "--chain-id", chainId, ...h]);
  await chaind(binary, ["keys", "add", "validator", ...kb, ...h]);
  await chaind(binary, ["keys", "add", "alice", ...kb, ...h]);
  const address = async (name: string) =>
    (await chaind(binary, ["keys", "show", name, "-a", ...kb, ...h])).stdout.trim();
  const validator = { name: "validator", address: await address("validator") };
  const alice = { name: "alice", address: await address("alice") };
  await chaind(binary, ["genesis", "add-genesis-account", validator.address, `${VALIDATOR_FUNDS}${DENOM}`, ...h]);
  await chaind(binary, ["genesis", "add-genesis-account", alice.address, `${ALICE_FUNDS}${DENOM}`, ...h]);
  await chaind(binary, [
    "genesis",
    "gentx",
    "validator",
    `${SELF_DELEGATION}${DENOM}`,
    "--chain-id",
    chainId,
    ...kb,
    ...h,
  ]);
  await chaind(binary, ["genesis", "collect-gentxs", ...h]);

  await editGenesis(join(home, "config", "genesis.json"), options);
  const [rpc, api, grpc, p2p, abci] = await freeLoopbackPorts(5);
  await editToml(join(home, "config", "config.toml"), (config) => {
    section(config, "consensus").timeout_commit = options.timeoutCommit;
    section(config, "rpc").laddr = `tcp://127.0.0.1:${rpc}`;
    section(config, "p2p").laddr = `tcp://127.0.0.1:${p2p}`;
    config.proxy_app = `tcp://127.0.0.1:${abci}`;
  });
  await editToml(join(home, "config", "app.toml"), (config) => {
    section(config, "api").address = `tcp://127.0.0.1:${api}`;
    section(config, "grpc").address = `127.0.0.1:${grpc}`;
  });
  await chaind(binary, ["genesis", "validate", ...h]);

  return {
    home,
    chainId,
    validator,
    alice,
    rpcUrl: `http://127.0.0.1:${rpc}`,
    nodeFlag: `tcp://127.0.0.1:${rpc}`,
    apiUrl: `http://127.0.0.1:${api}`,
    grpcAddress: `127.0.0.1:${grpc}`,
    balances: {
      validator: (BigInt(VALIDATOR_FUNDS) - BigInt(SELF_DELEGATION)).toString(),
      alice: ALICE_FUNDS,
    },
  };
}

type JsonObject = Record<string, unknown>;

async function editGenesis(file: string, options: ChainHomeOptions): Promise<void> {
  const genesis = JSON.parse(await readFile(file, "utf8")) as { app_state: Record<string, JsonObject> };
  const gov = genesis.app_state.gov as { params: JsonObject };
  const seconds = Number.parseFloat(options.govPeriod);
  gov.params.max_deposit_period = options.govPeriod;
  gov.params.voting_period = options.govPeriod;
  gov.params.expedited_voting_period = `${seconds / 2}s`;
  genesis.app_state.notes = { notes: options.notes };
  genesis.app_state.legacy = { notes: options.legacy };
  await writeFile(file, `${JSON.stringify(genesis, null, 2)}\n`);
}

async function editToml(file: string, edit: (config: JsonObject) => void): Promise<void> {
  const config = parse(await readFile(file, "utf8")) as JsonObject;
  edit(config);
  await writeFile(file, `${stringify(config)}\n`);
}

function section(config: JsonObject, name: string): JsonObject {
  const existing = config[name];
  if (typeof existing === "object" && existing !== null && !Array.isArray(existing)) return existing as JsonObject;
  const created: JsonObject = {};
  config[name] = created;
  return created;
}

/** The last height a stopped node signed, and so committed: `data/priv_validator_state.json`. */
export async function lastSignedHeight(home: string): Promise<bigint> {
  const state = JSON.parse(await readFile(join(home, "data", "priv_validator_state.json"), "utf8")) as {
    height: string | number;
  };
  return BigInt(state.height);
}
