// The account keeper: accounts by address, the global account-number counter, module accounts and
// their permissions, and the auth params. Other modules use it through the narrow AccountKeeperApi.
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { accountBech32 } from "../../app/address-cache.ts";
import type { Context } from "../../app/context.ts";
import { decodedOnce } from "../../app/decoded-once.ts";
import { ErrInvalidAddress, ErrLogic, ErrUnknownAddress } from "../../app/errors.ts";
import { addressToBech32, moduleAddress } from "../../crypto/index.ts";
import { type Params, ParamsSchema } from "../../gen/chain/auth/v1beta1/auth_pb.js";
import { type Account, accountAddressFromBech32, decodeAccount, encodeAccount, newModuleAccount } from "./account.ts";
import {
  ACCOUNTS_PREFIX,
  AUTH_STORE_KEY,
  accountKey,
  accountNumberKey,
  GLOBAL_ACCOUNT_NUMBER_KEY,
  PARAMS_KEY,
  readUint64BigEndian,
  uint64BigEndian,
} from "./keys.ts";
import { defaultAuthParams } from "./params.ts";

/** Module account permissions. */
export const Permission = { minter: "minter", burner: "burner", staking: "staking" } as const;

/** Name of the module account that collects fees. */
export const FEE_COLLECTOR_NAME = "fee_collector";

/**
 * The chain's module accounts and what they may do (upstream simapp's, minus modules we do not have):
 * gov burns vetoed deposits, the staking pools hold and burn bonded tokens, the fee collector only receives.
 */
export const DEFAULT_MODULE_ACCOUNT_PERMISSIONS: Readonly<Record<string, readonly string[]>> = Object.freeze({
  fee_collector: [],
  gov: [Permission.burner],
  bonded_tokens_pool: [Permission.burner, Permission.staking],
  not_bonded_tokens_pool: [Permission.burner, Permission.staking],
});

/** The part of the account keeper other modules (bank, staking, gov, upgrade) may use. */
export interface AccountKeeperApi {
  getAccount(ctx: Context, address: Uint8Array): Promise<Account | undefined>;
  hasAccount(ctx: Context, address: Uint8Array): Promise<boolean>;
  setAccount(ctx: Context, account: Account): void;
  newAccountWithAddress(ctx: Context, address: Uint8Array): Promise<Account>;
  getModuleAddress(moduleName: string): Uint8Array;
  getModuleAccount(ctx: Context, moduleName: string): Promise<Account>;
  hasPermission(moduleName: string, permission: string): boolean;
  /** Bech32 (account prefix) of raw address bytes. */
  addressToString(address: Uint8Array): string;
  /** Raw bytes of a `chain1…` address; throws sdk 7 `invalid address`. */
  addressFromString(address: string): Uint8Array;
}

/** Options of the account keeper. */
export interface AccountKeeperOptions {
  /** Module account name → permissions (default DEFAULT_MODULE_ACCOUNT_PERMISSIONS). */
  moduleAccountPermissions?: Readonly<Record<string, readonly string[]>>;
  /** Who may update params (bech32); default the gov module account. */
  authority?: string;
}

/** Accounts, account numbers, module accounts and params. */
export class AccountKeeper implements AccountKeeperApi {
  readonly storeKey = AUTH_STORE_KEY;
  readonly authority: string;
  private readonly permissions: Map<string, string[]>;
  private readonly moduleNamesByAddress: Map<string, string>;
  // A configured module's address, hashed once: the ante handler asks for the fee collector's account in every
  // tx (CheckTx and the block), and SHA-256 of its name with a new encoder each time was ~1% of a send's CPU.
  private readonly moduleAddresses: Map<string, Uint8Array>;
  private readonly decoded = new WeakMap<Uint8Array, Account>();
  // The ante handler and sends read params several times per tx; decode them once per stored value.
  private readonly decodeParams = decodedOnce((bytes) => fromBinary(ParamsSchema, bytes));

  constructor(options: AccountKeeperOptions = {}) {
    this.authority = options.authority ?? addressToBech32(moduleAddress("gov"));
    this.permissions = new Map(
      Object.entries(options.moduleAccountPermissions ?? DEFAULT_MODULE_ACCOUNT_PERMISSIONS).map(([name, perms]) => [
        name,
        [...perms],
      ]),
    );
    this.moduleAddresses = new Map([...this.permissions.keys()].map((name) => [name, moduleAddress(name)]));
    this.moduleNamesByAddress = new Map([...this.moduleAddresses].map(([name, address]) => [hex(address), name]));
  }

  /** The account at `address`, if any. The record is frozen: change a copy and `setAccount` it. */
  async getAccount(ctx: Context, address: Uint8Array): Promise<Account | undefined> {
    const bytes = await ctx.kvStore(this.storeKey).get(accountKey(address));
    if (bytes === undefined) return undefined;
    // The ante handler reads each signer several times per tx; branches hand back the same value
    // object until it is rewritten, so decoding once per stored value is enough.
    let account = this.decoded.get(bytes);
    if (account === undefined) {
      account = freezeAccount(decodeAccount(bytes, address));
      this.decoded.set(bytes, account);
    }
    return account;
  }

  /** Whether an account exists at `address`. */
  async hasAccount(ctx: Context, address: Uint8Array): Promise<boolean> {
    return ctx.kvStore(this.storeKey).has(accountKey(address));
  }

  /** Stores `account` (and its account-number index entry). */
  setAccount(ctx: Context, account: Account): void {
    const store = ctx.kvStore(this.storeKey);
    const bytes = encodeAccount(account);
    store.set(accountKey(account.address), bytes);
    store.set(accountNumberKey(account.accountNumber), account.address);
    // The next read of these bytes (the ante handler sets the signer's account in every tx, then reads
    // it in the next one) gets the record without decoding: a copy of what decoding would give.
    this.decoded.set(bytes, freezeAccount(canonicalAccount(account)));
  }

  /** Removes an account (and its index entry). */
  removeAccount(ctx: Context, account: Account): void {
    const store = ctx.kvStore(this.storeKey);
    store.delete(accountKey(account.address));
    store.delete(accountNumberKey(account.accountNumber));
  }

  /** The account number the next new account will get (how many were ever created), without advancing it. */
  async peekNextAccountNumber(ctx: Context): Promise<bigint> {
    const current = await ctx.kvStore(this.storeKey).get(GLOBAL_ACCOUNT_NUMBER_KEY);
    return current === undefined ? 0n : readUint64BigEndian(current);
  }

  /** Returns the next account number and advances the counter. */
  async nextAccountNumber(ctx: Context): Promise<bigint> {
    const store = ctx.kvStore(this.storeKey);
    const current = await store.get(GLOBAL_ACCOUNT_NUMBER_KEY);
    const next = current === undefined ? 0n : readUint64BigEndian(current);
    store.set(GLOBAL_ACCOUNT_NUMBER_KEY, uint64BigEndian(next + 1n));
    return next;
  }

  /** A new account record for `address` with the next account number (not stored until setAccount). */
  async newAccountWithAddress(ctx: Context, address: Uint8Array): Promise<Account> {
    return { address, pubKey: undefined, accountNumber: await this.nextAccountNumber(ctx), sequence: 0n };
  }

  /** The address of module account `moduleName` (first 20 bytes of sha256(name)). */
  getModuleAddress(moduleName: string): Uint8Array {
    return moduleAddress(moduleName);
  }

  /** The name of the module whose account lives at `address`, if it is one of the configured ones. */
  moduleNameOfAddress(address: Uint8Array): string | undefined {
    return this.moduleNamesByAddress.get(hex(address));
  }

  /** Configured module account names, sorted. */
  moduleAccountNames(): string[] {
    return [...this.permissions.keys()].sort();
  }

  /** The configured permissions of a module account (empty for unknown names). */
  permissionsOf(moduleName: string): string[] {
    return [...(this.permissions.get(moduleName) ?? [])];
  }

  /** Whether module account `moduleName` has `permission`. */
  hasPermission(moduleName: string, permission: string): boolean {
    return this.permissions.get(moduleName)?.includes(permission) ?? false;
  }

  /**
   * The module account `moduleName`, created (with the next account number) the first time it is
   * asked for. Throws for a name without configured permissions or an address taken by a user account.
   */
  async getModuleAccount(ctx: Context, moduleName: string): Promise<Account> {
    const permissions = this.permissions.get(moduleName);
    if (permissions === undefined) {
      throw ErrUnknownAddress.wrap(`module account ${moduleName} does not exist (no permissions configured)`);
    }
    // Only read (a store key, the decoded record's address), never changed: one shared array is safe.
    const address = this.moduleAddresses.get(moduleName) as Uint8Array;
    const existing = await this.getAccount(ctx, address);
    if (existing !== undefined) {
      if (existing.module === undefined) throw ErrLogic.wrap(`account is not a module account: ${moduleName}`);
      return existing;
    }
    const account = newModuleAccount(moduleName, permissions, await this.nextAccountNumber(ctx));
    this.setAccount(ctx, account);
    return account;
  }

  /** The auth params (defaults until set). */
  async getParams(ctx: Context): Promise<Params> {
    const bytes = await ctx.kvStore(this.storeKey).get(PARAMS_KEY);
    return bytes === undefined ? defaultAuthParams() : this.decodeParams(bytes);
  }

  /** Stores the auth params. */
  setParams(ctx: Context, params: Params): void {
    ctx.kvStore(this.storeKey).set(PARAMS_KEY, toBinary(ParamsSchema, create(ParamsSchema, params)));
  }

  /** Every account, in address order. */
  async *iterateAccounts(ctx: Context): AsyncIterable<Account> {
    for await (const [key, value] of ctx.kvStore(this.storeKey).iterate({ prefix: ACCOUNTS_PREFIX })) {
      yield decodeAccount(value, key.slice(ACCOUNTS_PREFIX.length));
    }
  }

  /** The address holding `accountNumber`, if any. */
  async getAddressByAccountNumber(ctx: Context, accountNumber: bigint): Promise<Uint8Array | undefined> {
    return ctx.kvStore(this.storeKey).get(accountNumberKey(accountNumber));
  }

  /** Bech32 (account prefix) of raw address bytes. */
  addressToString(address: Uint8Array): string {
    return accountBech32(address);
  }

  /** Raw bytes of a `chain1…` address; throws sdk 7 `<bech32 error>: invalid address`. */
  addressFromString(address: string): Uint8Array {
    if (address === "") throw ErrInvalidAddress.wrap("empty address string is not allowed");
    try {
      return accountAddressFromBech32(address);
    } catch (err) {
      throw ErrInvalidAddress.wrap((err as Error).message, { cause: err });
    }
  }
}

// The fields an account record has after a round trip through its stored form.
function canonicalAccount(account: Account): Account {
  return {
    address: account.address,
    pubKey: account.pubKey === undefined ? undefined : { algorithm: account.pubKey.algorithm, key: account.pubKey.key },
    accountNumber: account.accountNumber,
    sequence: account.sequence,
    ...(account.module === undefined
      ? {}
      : { module: { name: account.module.name, permissions: [...account.module.permissions] } }),
  };
}

function freezeAccount(account: Account): Account {
  if (account.pubKey !== undefined) Object.freeze(account.pubKey);
  if (account.module !== undefined) {
    Object.freeze(account.module.permissions);
    Object.freeze(account.module);
  }
  return Object.freeze(account);
}

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("hex");
}
