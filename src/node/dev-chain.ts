// `chaind dev`: from nothing to a ready single-validator development chain in one call. A fresh home
// gets `init` (chain ID chaind-dev), test-keyring keys validator/alice/bob, funded genesis accounts,
// the validator's gentx collected into genesis, short governance periods, minimum-gas-prices "0stake"
// and a 1 s block time. A home that already has a genesis is left as it is (the chain continues).
import { existsSync } from "node:fs";
import { rm } from "node:fs/promises";
import type { JsonObject } from "@bufbuild/protobuf";
import { type Keyring, KeyringError, openKeyring } from "../client/keyring/index.ts";
import { homePaths, loadGenesis, saveGenesis } from "../config/index.ts";
import { addressToBech32 } from "../crypto/index.ts";
import { UserError } from "../errors/user-error.ts";
import { isObject } from "./app-state.ts";
import { collectGenTxs } from "./collect-gentxs.ts";
import { addGenesisAccount } from "./genesis-accounts.ts";
import { createGenTx } from "./gentx.ts";
import { initNode } from "./init-node.ts";

/** The development chain's fixed facts. */
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
export async function prepareDevHome(parameters: { home: string; reset?: boolean }): Promise<DevHome> {
  const paths = homePaths(parameters.home);
  if (parameters.reset === true) {
    for (const dir of [paths.configDir, paths.dataDir, paths.keyringTestDir])
      await rm(dir, { recursive: true, force: true });
  }
  const keyring = openKeyring({ home: paths.home, backend: "test" });
  if (existsSync(paths.genesis)) {
    const existing = await loadGenesis(paths.genesis);
    return { home: paths.home, created: false, chainId: existing.chainId, keys: await knownKeys(keyring) };
  }

  await initNode({
    home: paths.home,
    moniker: DEV_CHAIN.moniker,
    chainId: DEV_CHAIN.chainId,
    defaultDenom: DEV_CHAIN.denom,
    // The dev chain shows the upgrade page (src/server/upgrade-page.ts); `init` leaves it off.
    appToml: { "minimum-gas-prices": DEV_CHAIN.minimumGasPrices, "api.upgrade-page": true },
    configToml: { "consensus.timeout_commit": DEV_CHAIN.timeoutCommit },
  });
  const keys: DevKey[] = [];
  for (const name of DEV_CHAIN.keyNames) keys.push(await ensureKey(keyring, name));

  const genesis = await loadGenesis(paths.genesis);
  let appState = shortGovPeriods(genesis.appState ?? {});
  for (const key of keys) {
    appState = addGenesisAccount(appState, {
      address: key.address,
      coins: [{ denom: DEV_CHAIN.denom, amount: DEV_CHAIN.balance }],
    });
  }
  await saveGenesis(paths.genesis, { ...genesis, appState });
  await createGenTx({
    home: paths.home,
    keyring,
    keyName: "validator",
    amount: { denom: DEV_CHAIN.denom, amount: DEV_CHAIN.selfDelegation },
    chainId: DEV_CHAIN.chainId,
    ip: "127.0.0.1",
  });
  await collectGenTxs({ home: paths.home });
  return { home: paths.home, created: true, chainId: DEV_CHAIN.chainId, keys };
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

async function ensureKey(keyring: Keyring, name: string): Promise<DevKey> {
  try {
    const { key, mnemonic } = await keyring.add(name);
    return { name, address: addressToBech32(key.address), mnemonic };
  } catch (err) {
    if (err instanceof KeyringError && err.code === "key-exists") {
      return { name, address: addressToBech32((await keyring.show(name)).address) };
    }
    throw new DevChainError(`cannot create the dev key "${name}" in ${keyring.directory}: ${(err as Error).message}`, {
      cause: err,
    });
  }
}

async function knownKeys(keyring: Keyring): Promise<DevKey[]> {
  const keys: DevKey[] = [];
  for (const name of DEV_CHAIN.keyNames) {
    try {
      keys.push({ name, address: addressToBech32((await keyring.show(name)).address) });
    } catch {
      // A home made by `init` rather than `dev` may lack these keys; there is nothing to show then.
    }
  }
  return keys;
}
