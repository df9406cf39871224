// `genesis add-genesis-account` on a genesis app_state (upstream x/genutil AddGenesisAccount): a
// BaseAccount (number 0, sequence 0, no key) in auth.accounts, its coins in bank.balances (sorted by
// address), and bank.supply raised by the same coins. Account numbers are assigned at InitChain.
import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import { addCoins, type Coin, coinFromProto, coinsToProto } from "../app/coins.ts";
import { UserError } from "../errors/user-error.ts";
import { isObject } from "./app-state.ts";

/** The type URL of genesis accounts (our neutral package name). */
export const BASE_ACCOUNT_TYPE_URL = "/chain.auth.v1beta1.BaseAccount";

/** Thrown when an account cannot be added; the message is upstream's where upstream has one. */
export class GenesisAccountError extends UserError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "GenesisAccountError";
  }
}

/** Options of {@link addGenesisAccount}. */
export interface AddGenesisAccountParameters {
  /** bech32 account address (`chain1…`). */
  address: string;
  /** Normalised coins (sorted, positive). */
  coins: Coin[];
  /** Add the coins to an existing account instead of refusing it (`--append`). */
  append?: boolean;
}

/**
 * A copy of `appState` with the account added (or, with `append`, its balance raised).
 *
 * @example addGenesisAccount(appState, { address: "chain1…", coins: parseCoins("1000stake") })
 */
export function addGenesisAccount(appState: JsonObject, parameters: AddGenesisAccountParameters): JsonObject {
  const copy = structuredClone(appState) as JsonObject;
  const auth = sectionOf(copy, "auth");
  const bank = sectionOf(copy, "bank");
  const accounts = listOf(auth, "accounts", "auth");
  const balances = listOf(bank, "balances", "bank");
  const { address, coins } = parameters;

  const exists = accounts.some((account) => isObject(account) && account.address === address);
  if (exists) {
    if (parameters.append !== true) throw new GenesisAccountError(`cannot add account at existing address ${address}`);
    const balance = balances.find((entry) => isObject(entry) && entry.address === address);
    if (!isObject(balance)) {
      throw new GenesisAccountError(`account ${address} exists in genesis but has no balance entry to append to`);
    }
    balance.coins = coinsJson(addCoins(coinsOf(balance.coins, `balance of ${address}`), coins));
  } else {
    accounts.push({
      "@type": BASE_ACCOUNT_TYPE_URL,
      address,
      pub_key: null,
      account_number: "0",
      sequence: "0",
    });
    const balance = balances.find((entry) => isObject(entry) && entry.address === address);
    if (isObject(balance)) {
      balance.coins = coinsJson(addCoins(coinsOf(balance.coins, `balance of ${address}`), coins));
    } else {
      balances.push({ address, coins: coinsJson(coins) });
    }
  }
  balances.sort((a, b) => compareText(addressOf(a), addressOf(b)));
  bank.supply = coinsJson(addCoins(coinsOf(bank.supply ?? [], "bank.supply"), coins));
  return copy;
}

/** The coins of the genesis balance of `address` (empty when it has none). */
export function genesisBalanceOf(appState: JsonObject, address: string): Coin[] {
  const bank = appState.bank;
  if (!isObject(bank) || !Array.isArray(bank.balances)) return [];
  const balance = bank.balances.find((entry) => isObject(entry) && entry.address === address);
  return isObject(balance) ? coinsOf(balance.coins, `balance of ${address}`) : [];
}

function sectionOf(appState: JsonObject, module: string): JsonObject {
  const section = appState[module];
  if (section === undefined) {
    const created: JsonObject = {};
    appState[module] = created;
    return created;
  }
  if (!isObject(section)) throw new GenesisAccountError(`app_state.${module} must be a JSON object`);
  return section;
}

function listOf(section: JsonObject, key: string, module: string): JsonValue[] {
  const list = section[key];
  if (list === undefined || list === null) {
    const created: JsonValue[] = [];
    section[key] = created;
    return created;
  }
  if (!Array.isArray(list)) throw new GenesisAccountError(`app_state.${module}.${key} must be a list`);
  return list;
}

function coinsOf(value: JsonValue | undefined, where: string): Coin[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new GenesisAccountError(`${where} must be a list of coins`);
  return value.map((coin) => {
    if (!isObject(coin) || typeof coin.denom !== "string" || typeof coin.amount !== "string") {
      throw new GenesisAccountError(`${where} holds a malformed coin: ${JSON.stringify(coin)}`);
    }
    return coinFromProto({ denom: coin.denom, amount: coin.amount });
  });
}

function coinsJson(coins: Coin[]): JsonValue[] {
  return coinsToProto(coins).map((coin) => ({ denom: coin.denom, amount: coin.amount }));
}

function addressOf(entry: JsonValue): string {
  return isObject(entry) && typeof entry.address === "string" ? entry.address : "";
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
