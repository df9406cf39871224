// Accounts: a plain record in memory, a BaseAccount or ModuleAccount packed in an Any on disk and on
// the wire (`/chain.auth.v1beta1.BaseAccount`, `/chain.auth.v1beta1.ModuleAccount`), as upstream
// stores them.
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { type Any, AnySchema } from "@bufbuild/protobuf/wkt";
import { accountBech32, decodeBech32Cached } from "../../app/address-cache.ts";
import { decodePubKey } from "../../app/tx-decode.ts";
import {
  accAddressFromPubKey,
  consAddressFromEd25519PubKey,
  currentBech32Prefixes,
  decodeBech32WithPrefix,
  moduleAddress,
} from "../../crypto/index.ts";
import {
  type BaseAccount,
  BaseAccountSchema,
  type ModuleAccount,
  ModuleAccountSchema,
} from "../../gen/chain/auth/v1beta1/auth_pb.js";
import { PubKeySchema as Ed25519PubKeySchema } from "../../gen/chain/crypto/ed25519/keys_pb.js";
import { PubKeySchema as Secp256k1PubKeySchema } from "../../gen/chain/crypto/secp256k1/keys_pb.js";
import { encodeBaseAccountAny } from "./base-account-encoding.ts";

/** Type URL of a plain account. */
export const BASE_ACCOUNT_TYPE_URL = "/chain.auth.v1beta1.BaseAccount";
/** Type URL of a module account. */
export const MODULE_ACCOUNT_TYPE_URL = "/chain.auth.v1beta1.ModuleAccount";
/** Type URL our node stores secp256k1 keys under (the cosmos alias is accepted on input). */
export const SECP256K1_PUBKEY_TYPE_URL = "/chain.crypto.secp256k1.PubKey";
/** Type URL our node stores ed25519 keys under. */
export const ED25519_PUBKEY_TYPE_URL = "/chain.crypto.ed25519.PubKey";

/** A public key set on an account. */
export interface AccountPubKey {
  algorithm: "secp256k1" | "ed25519";
  key: Uint8Array;
}

/** An account record. `module` is set for module accounts. */
export interface Account {
  /** 20-byte address. */
  address: Uint8Array;
  /** Set by the first tx the account signs; undefined before. */
  pubKey: AccountPubKey | undefined;
  accountNumber: bigint;
  sequence: bigint;
  module?: { name: string; permissions: string[] };
}

/** Thrown for an account record that cannot be read. */
export class AccountError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "AccountError";
  }
}

/**
 * The address a public key controls (secp256k1: RIPEMD-160(SHA-256(key)); ed25519: first 20 bytes of SHA-256).
 * The result is shared (remembered per key): read it, do not change it.
 */
export function addressOfPubKey(pubKey: AccountPubKey): Uint8Array {
  const cacheKey = `${pubKey.algorithm}:${Buffer.from(pubKey.key.buffer, pubKey.key.byteOffset, pubKey.key.byteLength).toString("latin1")}`;
  let address = addressByKey.get(cacheKey);
  if (address === undefined) {
    address =
      pubKey.algorithm === "secp256k1" ? accAddressFromPubKey(pubKey.key) : consAddressFromEd25519PubKey(pubKey.key);
    if (addressByKey.size >= ADDRESS_CACHE_LIMIT) addressByKey.delete(addressByKey.keys().next().value as string);
    addressByKey.set(cacheKey, address);
  }
  return address;
}

// The ante handler derives the signer's address from the tx's key for every tx, in CheckTx and again in the
// block (two hashes through node:crypto, ~10 µs); a node sees the same signers over and over. Bounded, oldest
// first.
const ADDRESS_CACHE_LIMIT = 8192;
const addressByKey = new Map<string, Uint8Array>();

/** The pubkey as an Any (`/chain.crypto.secp256k1.PubKey` or `/chain.crypto.ed25519.PubKey`). */
export function pubKeyToAny(pubKey: AccountPubKey): Any {
  if (pubKey.algorithm === "secp256k1") {
    return create(AnySchema, {
      typeUrl: SECP256K1_PUBKEY_TYPE_URL,
      value: toBinary(Secp256k1PubKeySchema, create(Secp256k1PubKeySchema, { key: pubKey.key })),
    });
  }
  return create(AnySchema, {
    typeUrl: ED25519_PUBKEY_TYPE_URL,
    value: toBinary(Ed25519PubKeySchema, create(Ed25519PubKeySchema, { key: pubKey.key })),
  });
}

/** A pubkey from an Any (chain or cosmos type URL); throws AccountError for another key type. */
export function pubKeyFromAny(any: Any): AccountPubKey {
  const decoded = decodePubKey(any);
  if (decoded.algorithm === "other") throw new AccountError(`unsupported public key type ${any.typeUrl}`);
  return { algorithm: decoded.algorithm, key: decoded.key };
}

/** The BaseAccount message of an account. */
export function toBaseAccount(account: Account): BaseAccount {
  return create(BaseAccountSchema, {
    address: accountBech32(account.address),
    pubKey: account.pubKey === undefined ? undefined : pubKeyToAny(account.pubKey),
    accountNumber: account.accountNumber,
    sequence: account.sequence,
  });
}

/** The account packed in an Any: a ModuleAccount for module accounts, else a BaseAccount. */
export function accountToAny(account: Account): Any {
  const base = toBaseAccount(account);
  if (account.module !== undefined) {
    const moduleAccount: ModuleAccount = create(ModuleAccountSchema, {
      baseAccount: base,
      name: account.module.name,
      permissions: account.module.permissions,
    });
    return create(AnySchema, { typeUrl: MODULE_ACCOUNT_TYPE_URL, value: toBinary(ModuleAccountSchema, moduleAccount) });
  }
  return create(AnySchema, { typeUrl: BASE_ACCOUNT_TYPE_URL, value: toBinary(BaseAccountSchema, base) });
}

/** Reads an account from its Any; `address` (when known from the store key) skips bech32 decoding. */
export function accountFromAny(any: Any, address?: Uint8Array): Account {
  if (any.typeUrl === BASE_ACCOUNT_TYPE_URL || any.typeUrl === "/cosmos.auth.v1beta1.BaseAccount") {
    return fromBase(fromBinary(BaseAccountSchema, any.value), address);
  }
  if (any.typeUrl === MODULE_ACCOUNT_TYPE_URL || any.typeUrl === "/cosmos.auth.v1beta1.ModuleAccount") {
    const moduleAccount = fromBinary(ModuleAccountSchema, any.value);
    if (moduleAccount.baseAccount === undefined) throw new AccountError("module account without base_account");
    return {
      ...fromBase(moduleAccount.baseAccount, address),
      module: { name: moduleAccount.name, permissions: [...moduleAccount.permissions] },
    };
  }
  throw new AccountError(`unknown account type ${any.typeUrl}`);
}

/** Encodes an account for the store. */
export function encodeAccount(account: Account): Uint8Array {
  if (account.module !== undefined) return toBinary(AnySchema, accountToAny(account));
  return encodeBaseAccountAny({
    typeUrl: BASE_ACCOUNT_TYPE_URL,
    address: accountBech32(account.address),
    pubKey:
      account.pubKey === undefined
        ? undefined
        : {
            typeUrl: account.pubKey.algorithm === "secp256k1" ? SECP256K1_PUBKEY_TYPE_URL : ED25519_PUBKEY_TYPE_URL,
            key: account.pubKey.key,
          },
    accountNumber: account.accountNumber,
    sequence: account.sequence,
  });
}

/** Decodes an account from the store. */
export function decodeAccount(bytes: Uint8Array, address?: Uint8Array): Account {
  return accountFromAny(fromBinary(AnySchema, bytes), address);
}

/** A new module account record for `name` (number assigned by the keeper). */
export function newModuleAccount(name: string, permissions: readonly string[], accountNumber: bigint): Account {
  return {
    address: moduleAddress(name),
    pubKey: undefined,
    accountNumber,
    sequence: 0n,
    module: { name, permissions: [...permissions] },
  };
}

/** Decodes a `chain1…` account address; throws the bech32 error (prefix, checksum, length). */
export function accountAddressFromBech32(text: string): Uint8Array {
  const decoded = decodeBech32Cached(text);
  const prefix = currentBech32Prefixes().acc;
  if (decoded.prefix === prefix && (decoded.data.length === 20 || decoded.data.length === 32)) {
    return decoded.data;
  }
  // Not an account address: let the strict decoder say exactly what is wrong.
  return decodeBech32WithPrefix(text, prefix, [20, 32]);
}

function fromBase(base: BaseAccount, address?: Uint8Array): Account {
  return {
    address: address ?? accountAddressFromBech32(base.address),
    pubKey: base.pubKey === undefined ? undefined : pubKeyFromAny(base.pubKey),
    accountNumber: base.accountNumber,
    sequence: base.sequence,
  };
}
