// Auth genesis: params and accounts (`{"params":{…},"accounts":[{"@type":"/chain.auth.v1beta1.BaseAccount",…}]}`),
// validated and initialised as upstream does (duplicate account numbers renumbered to the lowest free
// values in genesis order, the global counter set past the highest, then the fee collector created).
import { create, createRegistry, type JsonValue, toJson } from "@bufbuild/protobuf";
import type { Context } from "../../app/context.ts";
import { fromProtoJson } from "../../app/proto-json.ts";
import { addressToBech32, moduleAddress } from "../../crypto/index.ts";
import { UserError } from "../../errors/user-error.ts";
import { file_chain_auth_v1beta1_auth } from "../../gen/chain/auth/v1beta1/auth_pb.js";
import { type GenesisState, GenesisStateSchema } from "../../gen/chain/auth/v1beta1/genesis_pb.js";
import { file_chain_crypto_ed25519_keys } from "../../gen/chain/crypto/ed25519/keys_pb.js";
import { file_chain_crypto_secp256k1_keys } from "../../gen/chain/crypto/secp256k1/keys_pb.js";
import { type Account, accountFromAny, accountToAny, addressOfPubKey } from "./account.ts";
import { type AccountKeeper, FEE_COLLECTOR_NAME } from "./keeper.ts";
import { defaultAuthParams, validateAuthParams } from "./params.ts";

// Accounts and public keys inside genesis Anys.
const GENESIS_REGISTRY = createRegistry(
  file_chain_auth_v1beta1_auth,
  file_chain_crypto_secp256k1_keys,
  file_chain_crypto_ed25519_keys,
);

const JSON_OPTIONS = { useProtoFieldName: true, alwaysEmitImplicit: true, registry: GENESIS_REGISTRY } as const;

/** Upstream's default auth genesis: default params, no accounts. */
export function defaultAuthGenesis(): JsonValue {
  return toJson(
    GenesisStateSchema,
    create(GenesisStateSchema, { params: defaultAuthParams(), accounts: [] }),
    JSON_OPTIONS,
  );
}

/** Parses auth genesis JSON; throws an Error saying what could not be read. */
export function parseAuthGenesis(json: JsonValue): { params: GenesisState["params"]; accounts: Account[] } {
  let state: GenesisState;
  try {
    state = fromProtoJson(GenesisStateSchema, json, GENESIS_REGISTRY);
  } catch (err) {
    throw new AuthGenesisError(`cannot read auth genesis: ${(err as Error).message}`, { cause: err });
  }
  const accounts = state.accounts.map((any, index) => {
    try {
      return accountFromAny(any);
    } catch (err) {
      throw new AuthGenesisError(`cannot read auth genesis account ${index}: ${(err as Error).message}`, {
        cause: err,
      });
    }
  });
  return { params: state.params ?? defaultAuthParams(), accounts };
}

/** Upstream's ValidateGenesis: params, per-account checks, no duplicate address. */
export function validateAuthGenesis(json: JsonValue): void {
  const { params, accounts } = parseAuthGenesis(json);
  validateAuthParams(params ?? defaultAuthParams());
  const seen = new Set<string>();
  for (const account of accounts) {
    const address = addressToBech32(account.address);
    if (seen.has(address)) throw new AuthGenesisError(`duplicate account found in genesis state; address: ${address}`);
    seen.add(address);
    if (account.pubKey !== undefined && Buffer.compare(addressOfPubKey(account.pubKey), account.address) !== 0) {
      throw new AuthGenesisError(`account address and pubkey address do not match: ${address}`);
    }
    if (account.module !== undefined) {
      if (account.module.name.trim() === "") throw new AuthGenesisError("module account name cannot be blank");
      if (Buffer.compare(moduleAddress(account.module.name), account.address) !== 0) {
        throw new AuthGenesisError(
          `address ${address} cannot be derived from the module name '${account.module.name}'`,
        );
      }
    }
  }
}

/** Writes params and accounts, sets the account-number counter, creates the fee collector. */
export async function initAuthGenesis(ctx: Context, keeper: AccountKeeper, json: JsonValue): Promise<void> {
  const { params, accounts } = parseAuthGenesis(json);
  keeper.setParams(ctx, params ?? defaultAuthParams());
  let last: bigint | undefined;
  for (const account of sanitizeAccountNumbers(accounts)) {
    while (last === undefined || last < account.accountNumber) last = await keeper.nextAccountNumber(ctx);
    keeper.setAccount(ctx, account);
  }
  await keeper.getModuleAccount(ctx, FEE_COLLECTOR_NAME);
}

/** The auth state as genesis JSON (accounts sorted by account number). */
export async function exportAuthGenesis(ctx: Context, keeper: AccountKeeper): Promise<JsonValue> {
  const accounts: Account[] = [];
  for await (const account of keeper.iterateAccounts(ctx)) accounts.push(account);
  accounts.sort((a, b) => (a.accountNumber < b.accountNumber ? -1 : a.accountNumber > b.accountNumber ? 1 : 0));
  const state = create(GenesisStateSchema, {
    params: await keeper.getParams(ctx),
    accounts: accounts.map(accountToAny),
  });
  return toJson(GenesisStateSchema, state, JSON_OPTIONS);
}

// Upstream SanitizeGenesisAccounts: the first holder of a number keeps it; later duplicates get the
// lowest unused numbers (duplicate numbers taken in ascending order, accounts in genesis order);
// then everything is sorted by number.
function sanitizeAccountNumbers(accounts: Account[]): Account[] {
  const used = new Set<bigint>();
  const duplicates = new Map<bigint, Account[]>();
  const out = accounts.map((account) => ({ ...account }));
  for (const account of out) {
    if (!used.has(account.accountNumber)) used.add(account.accountNumber);
    else duplicates.set(account.accountNumber, [...(duplicates.get(account.accountNumber) ?? []), account]);
  }
  let next = 0n;
  for (const number of [...duplicates.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))) {
    for (const account of duplicates.get(number)!) {
      while (used.has(next)) next++;
      account.accountNumber = next;
      used.add(next);
    }
  }
  return out.sort((a, b) => (a.accountNumber < b.accountNumber ? -1 : a.accountNumber > b.accountNumber ? 1 : 0));
}

/** Thrown for an auth genesis state that cannot be read or breaks upstream's rules; the message says what is wrong (a user error: one line, no stack). */
export class AuthGenesisError extends UserError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "AuthGenesisError";
  }
}
