// `chaind dev`: from nothing to a ready single-validator development chain in one call. A fresh home
// gets `init` (the chain identity's dev chain id, chaind-dev for the reference chain), test-keyring keys
// validator/alice/bob, funded genesis accounts in the chain's denom, the validator's gentx collected into genesis,
// short governance periods, minimum-gas-prices "0<denom>", a 1 s block time and the listen addresses given on
// the command line. A home that already has a genesis is left as it is (the chain continues).
import { existsSync } from "node:fs";
import { rm } from "node:fs/promises";
import type { JsonObject } from "@bufbuild/protobuf";
import { type Keyring, KeyringError, openKeyring } from "../client/keyring/index.ts";
import type { ChainIdentity } from "../config/chain-identity.ts";
import { homePaths, loadGenesis, saveGenesis } from "../config/index.ts";
import { parseListenAddress } from "../config/listen-address.ts";
import { addressToBech32 } from "../crypto/index.ts";
import { UserError } from "../errors/user-error.ts";
import { currentChainIdentity } from "../runtime/current-chain.ts";
import { bondDenomOf, isObject } from "./app-state.ts";
import { collectGenTxs } from "./collect-gentxs.ts";
import { addGenesisAccount } from "./genesis-accounts.ts";
import { createGenTx } from "./gentx.ts";
import { initNode } from "./init-node.ts";

/** The development chain's fixed facts (the reference chain's chain id and denom; another chain's come from its identity). */
export const DEV_CHAIN = {
  chainId: "chaind-dev",
  moniker: "dev-validator",
  denom: "stake",
  /** Genesis balance of every dev key. */
  balance: 1_000_000_000_000n,
  /** The validator's self-delegation (100,000 voting power). */
  selfDelegation: 100_000_000_000n,
  keyNames: ["validator", "alice", "bob"] as const,
  gov: { maxDepositPeriod: "20s", votingPeriod: "20s", expeditedVotingPeriod: "10s" },
  timeoutCommit: "1s",
  minimumGasPrices: "0stake",
} as const;

/** A dev key: its name, address and (only when created by this call) its mnemonic. */
export interface DevKey {
  name: string;
  address: string;
  mnemonic?: string;
}

/** What {@link prepareDevHome} found or made. */
export interface DevHome {
  home: string;
  /** True when this call created the chain (a new genesis). */
  created: boolean;
  chainId: string;
  keys: DevKey[];
  /** The bond and fee denom of the chain's genesis. */
  denom: string;
}

/** Listen addresses `dev` was given, written into a new home's config so clients and chainvisor find the node. */
export interface DevListeners {
  /** config.toml rpc.laddr. */
  rpcLaddr?: string;
  /** app.toml api.address. */
  apiAddress?: string;
  /** app.toml grpc.address. */
  grpcAddress?: string;
}

/** Thrown when the dev home cannot be prepared. */
export class DevChainError extends UserError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "DevChainError";
  }
}

/**
 * Makes `home` a ready dev chain unless it already has a genesis. With `reset`, first removes what a
 * previous dev chain left: `config/`, `data/` and `keyring-test/` (nothing else in the home).
 *
 * @example const dev = await prepareDevHome({ home: resolveHome(undefined) }); dev.keys[1].address // alice
 */
export async function prepareDevHome(parameters: {
  home: string;
  reset?: boolean;
  /** Written into the new home's config (a port 0, picked at each start, is not written). */
  listeners?: DevListeners;
}): Promise<DevHome> {
  const paths = homePaths(parameters.home);
  // The chain this process serves (src/runtime useChain): its prefixes are the ones every address function uses.
  const identity = currentChainIdentity();
  const denom = identity.denom;
  const chainId = identity.devChainId;
  if (parameters.reset === true) {
    for (const dir of [paths.configDir, paths.dataDir, paths.keyringTestDir])
      await rm(dir, { recursive: true, force: true });
  }
  const keyring = openKeyring({ home: paths.home, backend: "test" });
  if (existsSync(paths.genesis)) {
    const existing = await loadGenesis(paths.genesis);
    return {
      home: paths.home,
      created: false,
      chainId: existing.chainId,
      keys: await knownKeys(keyring, identity),
      denom: bondDenomOf(existing.appState ?? {}),
    };
  }

  await initNode({
    home: paths.home,
    moniker: DEV_CHAIN.moniker,
    chainId,
    defaultDenom: denom,
    // The dev chain shows the upgrade page (src/server/upgrade-page.ts); `init` leaves it off.
    appToml: { "minimum-gas-prices": `0${denom}`, "api.upgrade-page": true, ...appListeners(parameters.listeners) },
    configToml: { "consensus.timeout_commit": DEV_CHAIN.timeoutCommit, ...configListeners(parameters.listeners) },
  });
  const keys: DevKey[] = [];
  for (const name of DEV_CHAIN.keyNames) keys.push(await ensureKey(keyring, name, identity));

  const genesis = await loadGenesis(paths.genesis);
  let appState = shortGovPeriods(genesis.appState ?? {});
  for (const key of keys) {
    appState = addGenesisAccount(appState, {
      address: key.address,
      coins: [{ denom, amount: DEV_CHAIN.balance }],
    });
  }
  await saveGenesis(paths.genesis, { ...genesis, appState });
  await createGenTx({
    home: paths.home,
    keyring,
    keyName: "validator",
    amount: { denom, amount: DEV_CHAIN.selfDelegation },
    chainId,
    ip: "127.0.0.1",
  });
  await collectGenTxs({ home: paths.home });
  return { home: paths.home, created: true, chainId, keys, denom };
}

// A port 0 means "pick one at each start": not an address a client could dial later, so it is not saved.
function fixedAddress(address: string | undefined): boolean {
  if (address === undefined) return false;
  const parsed = parseListenAddress(address, { schemeOptional: true });
  return parsed !== undefined && (parsed.protocol !== "tcp" || parsed.port !== 0);
}

function appListeners(listeners: DevListeners | undefined): Record<string, string> {
  const values: Record<string, string> = {};
  if (fixedAddress(listeners?.apiAddress)) values["api.address"] = listeners?.apiAddress as string;
  if (fixedAddress(listeners?.grpcAddress)) values["grpc.address"] = listeners?.grpcAddress as string;
  return values;
}

function configListeners(listeners: DevListeners | undefined): Record<string, string> {
  return fixedAddress(listeners?.rpcLaddr) ? { "rpc.laddr": listeners?.rpcLaddr as string } : {};
}

/** A copy of `appState` with the dev chain's short deposit and voting periods. */
export function shortGovPeriods(appState: JsonObject): JsonObject {
  const copy = structuredClone(appState) as JsonObject;
  const gov = copy.gov;
  if (isObject(gov) && isObject(gov.params)) {
    gov.params.max_deposit_period = DEV_CHAIN.gov.maxDepositPeriod;
    gov.params.voting_period = DEV_CHAIN.gov.votingPeriod;
    gov.params.expedited_voting_period = DEV_CHAIN.gov.expeditedVotingPeriod;
  }
  return copy;
}

async function ensureKey(keyring: Keyring, name: string, identity: ChainIdentity): Promise<DevKey> {
  try {
    const { key, mnemonic } = await keyring.add(name);
    return { name, address: addressToBech32(key.address, "acc", identity.bech32), mnemonic };
  } catch (err) {
    if (err instanceof KeyringError && err.code === "key-exists") {
      return { name, address: addressToBech32((await keyring.show(name)).address, "acc", identity.bech32) };
    }
    throw new DevChainError(`cannot create the dev key "${name}" in ${keyring.directory}: ${(err as Error).message}`, {
      cause: err,
    });
  }
}

async function knownKeys(keyring: Keyring, identity: ChainIdentity): Promise<DevKey[]> {
  const keys: DevKey[] = [];
  for (const name of DEV_CHAIN.keyNames) {
    try {
      keys.push({ name, address: addressToBech32((await keyring.show(name)).address, "acc", identity.bech32) });
    } catch {
      // A home made by `init` rather than `dev` may lack these keys; there is nothing to show then.
    }
  }
  return keys;
}
