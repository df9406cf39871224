// Bank genesis: params, balances, supply, denom metadata and send-enabled flags, validated and
// initialised as upstream does (supply, when given, must equal the sum of the balances).
import { create, fromJson, type JsonValue, toJson } from "@bufbuild/protobuf";
import {
  addCoins,
  type Coin,
  coinsFromProto,
  coinsToProto,
  coinsToString,
  compareDenoms,
  validateCoins,
  validateDenom,
} from "../../app/coins.ts";
import type { Context } from "../../app/context.ts";
import { UserError } from "../../errors/user-error.ts";
import { ParamsSchema } from "../../gen/chain/bank/v1beta1/bank_pb.js";
import { type GenesisState, GenesisStateSchema } from "../../gen/chain/bank/v1beta1/genesis_pb.js";
import { accountAddressFromBech32 } from "../auth/account.ts";
import type { BankKeeper } from "./keeper.ts";
import { BALANCES_PREFIX } from "./keys.ts";
import { defaultBankParams, validateBankParams } from "./params.ts";

const JSON_OPTIONS = { useProtoFieldName: true, alwaysEmitImplicit: true } as const;

/** Upstream's default bank genesis: sends enabled, nothing else. */
export function defaultBankGenesis(): JsonValue {
  return toJson(GenesisStateSchema, create(GenesisStateSchema, { params: defaultBankParams() }), JSON_OPTIONS);
}

/** Parses bank genesis JSON; throws an Error saying what could not be read. */
export function parseBankGenesis(json: JsonValue): GenesisState {
  try {
    return fromJson(GenesisStateSchema, json);
  } catch (err) {
    throw new BankGenesisError(`cannot read bank genesis: ${(err as Error).message}`, { cause: err });
  }
}

/** Upstream's GenesisState.Validate. */
export function validateBankGenesis(json: JsonValue): void {
  const state = parseBankGenesis(json);
  const params = state.params ?? defaultBankParams();
  if (params.sendEnabled.length > 0 && state.sendEnabled.length > 0) {
    throw new BankGenesisError("send_enabled defined in both the send_enabled field and in params (deprecated)");
  }
  validateBankParams(params);
  const seenSendEnabled = new Set<string>();
  for (const entry of [...params.sendEnabled, ...state.sendEnabled]) {
    if (seenSendEnabled.has(entry.denom)) throw new BankGenesisError(`duplicate send enabled found: '${entry.denom}'`);
    validateDenom(entry.denom);
    seenSendEnabled.add(entry.denom);
  }
  const seenBalances = new Set<string>();
  let total: Coin[] = [];
  for (const balance of state.balances) {
    if (seenBalances.has(balance.address))
      throw new BankGenesisError(`duplicate balance for address ${balance.address}`);
    seenBalances.add(balance.address);
    try {
      accountAddressFromBech32(balance.address);
    } catch (err) {
      throw new BankGenesisError(`invalid balance address ${balance.address}: ${(err as Error).message}`, {
        cause: err,
      });
    }
    const coins = readCoins(balance.coins, `balance of ${balance.address}`);
    try {
      validateCoins(coins);
    } catch (err) {
      throw new BankGenesisError(`invalid balance of ${balance.address}: ${(err as Error).message}`, { cause: err });
    }
    total = addCoins(total, coins);
  }
  const seenMetadata = new Set<string>();
  for (const metadata of state.denomMetadata) {
    if (seenMetadata.has(metadata.base))
      throw new BankGenesisError(`duplicate client metadata for denom ${metadata.base}`);
    validateDenom(metadata.base);
    seenMetadata.add(metadata.base);
  }
  if (state.supply.length > 0) {
    const supply = readCoins(state.supply, "supply");
    validateCoins(supply);
    if (coinsToString(supply) !== coinsToString(total)) {
      throw new BankGenesisError(
        `genesis supply is incorrect, expected ${coinsToString(supply)}, got ${coinsToString(total)}`,
      );
    }
  }
}

/** Writes params, flags, balances (sorted), supply and metadata. */
export async function initBankGenesis(ctx: Context, keeper: BankKeeper, json: JsonValue): Promise<void> {
  const state = parseBankGenesis(json);
  const params = state.params ?? defaultBankParams();
  // The deprecated per-denom list in params moves to its own keys, as upstream's SetParams does.
  keeper.setParams(ctx, create(ParamsSchema, { defaultSendEnabled: params.defaultSendEnabled }));
  for (const entry of [...params.sendEnabled, ...state.sendEnabled])
    keeper.setSendEnabled(ctx, entry.denom, entry.enabled);
  let total: Coin[] = [];
  const balances = [...state.balances].sort((a, b) =>
    compareBytes(accountAddressFromBech32(a.address), accountAddressFromBech32(b.address)),
  );
  for (const balance of balances) {
    const address = accountAddressFromBech32(balance.address);
    const coins = readCoins(balance.coins, `balance of ${balance.address}`);
    for (const coin of coins) keeper.setBalance(ctx, address, coin);
    total = addCoins(total, coins);
  }
  if (state.supply.length > 0) {
    const supply = readCoins(state.supply, "supply");
    if (coinsToString(supply) !== coinsToString(total)) {
      throw new BankGenesisError(
        `genesis supply is incorrect, expected ${coinsToString(supply)}, got ${coinsToString(total)}`,
      );
    }
  }
  for (const coin of total) keeper.setSupply(ctx, coin);
  for (const metadata of state.denomMetadata) keeper.setDenomMetadata(ctx, metadata);
}

/** The bank state as genesis JSON. */
export async function exportBankGenesis(ctx: Context, keeper: BankKeeper): Promise<JsonValue> {
  const balances = new Map<string, Coin[]>();
  for await (const [key, value] of keeper.store(ctx).iterate({ prefix: BALANCES_PREFIX })) {
    const length = key[1];
    const address = key.slice(2, 2 + length);
    const denom = new TextDecoder().decode(key.slice(2 + length));
    const bech32 = keeper.accountKeeper.addressToString(address);
    const list = balances.get(bech32) ?? [];
    list.push({ denom, amount: BigInt(new TextDecoder().decode(value)) });
    balances.set(bech32, list);
  }
  const state = create(GenesisStateSchema, {
    params: await keeper.getParams(ctx),
    balances: [...balances.entries()].map(([address, coins]) => ({
      address,
      coins: coinsToProto([...coins].sort((a, b) => compareDenoms(a.denom, b.denom))),
    })),
    supply: coinsToProto(await keeper.getTotalSupply(ctx)),
    denomMetadata: await keeper.getAllDenomMetadata(ctx),
    sendEnabled: await keeper.getAllSendEnabled(ctx),
  });
  return toJson(GenesisStateSchema, state, JSON_OPTIONS);
}

function readCoins(coins: readonly { denom: string; amount: string }[], what: string): Coin[] {
  try {
    return coinsFromProto(coins);
  } catch (err) {
    throw new BankGenesisError(`invalid ${what}: ${(err as Error).message}`, { cause: err });
  }
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  return Buffer.compare(a, b);
}

/** Thrown for a bank genesis state that cannot be read or breaks upstream's rules (balances, supply, metadata); the message says what is wrong (a user error: one line, no stack). */
export class BankGenesisError extends UserError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "BankGenesisError";
  }
}
