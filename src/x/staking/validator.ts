// Validator records: creation, token/share arithmetic, status, consensus power and the consensus
// key. Records are the generated `Validator` message; amounts are read from and written to its
// string fields here so the keeper never parses them by hand.
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import type { Any } from "@bufbuild/protobuf/wkt";
import { DEC_ONE, decFromInt, formatDecimal, parseDecimal, quoDec } from "../../app/dec.ts";
import { ErrInvalidAddress } from "../../app/errors.ts";
import type { ValidatorUpdate } from "../../app/module.ts";
import { timestampFromNanos } from "../../app/time.ts";
import {
  addressFromBech32,
  addressToBech32,
  consAddressFromEd25519PubKey,
  ED25519_PUBKEY_TYPE_URL,
  pubKeyAlgorithmOfTypeUrl,
} from "../../crypto/index.ts";
import { PubKeySchema as Ed25519PubKeySchema } from "../../gen/chain/crypto/ed25519/keys_pb.js";
import {
  BondStatus,
  type Commission,
  type CommissionRates,
  type Description,
  DescriptionSchema,
  type Validator,
  ValidatorSchema,
} from "../../gen/chain/staking/v1beta1/staking_pb.js";
import { ErrInsufficientShares, ErrValidatorPubKeyTypeNotSupported } from "./errors.ts";

/** Decodes a stored validator. */
export function decodeValidator(bytes: Uint8Array): Validator {
  return fromBinary(ValidatorSchema, bytes);
}

/**
 * Freezes a decoded record and the messages it holds (not their byte arrays, which cannot be frozen), for a record
 * several readers share (the keeper's decoded records): change a copy (`create(ValidatorSchema, { ...v, ... })`).
 */
export function freezeValidator(validator: Validator): Readonly<Validator> {
  if (validator.consensusPubkey !== undefined) Object.freeze(validator.consensusPubkey);
  if (validator.description !== undefined) Object.freeze(validator.description);
  if (validator.unbondingTime !== undefined) Object.freeze(validator.unbondingTime);
  const commission = validator.commission;
  if (commission !== undefined) {
    if (commission.commissionRates !== undefined) Object.freeze(commission.commissionRates);
    if (commission.updateTime !== undefined) Object.freeze(commission.updateTime);
    Object.freeze(commission);
  }
  Object.freeze(validator.unbondingIds);
  return Object.freeze(validator);
}

/** Encodes a validator for the store. */
export function encodeValidator(validator: Validator): Uint8Array {
  return toBinary(ValidatorSchema, validator);
}

/** The operator address bytes of a validator record. */
export function operatorBytes(validator: Validator): Uint8Array {
  return valAddressFromBech32(validator.operatorAddress);
}

/** Bytes of a `chainvaloper1…` address; sdk 7 `invalid validator address: …` otherwise. */
export function valAddressFromBech32(address: string, what = "validator"): Uint8Array {
  if (address === "") throw ErrInvalidAddress.wrap(`invalid ${what} address: empty address string is not allowed`);
  try {
    return addressFromBech32(address, "val");
  } catch (err) {
    throw ErrInvalidAddress.wrap(`invalid ${what} address: ${(err as Error).message}`, { cause: err });
  }
}

/** `chainvaloper1…` of operator bytes. */
export function valAddressToBech32(address: Uint8Array): string {
  return addressToBech32(address, "val");
}

/** Tokens of a validator (bond denom units). */
export function validatorTokens(validator: Validator): bigint {
  return validator.tokens === "" ? 0n : BigInt(validator.tokens);
}

/** Delegator shares of a validator (10^18-scaled decimal). */
export function validatorShares(validator: Validator): bigint {
  return parseDecimal(validator.delegatorShares, "delegator shares");
}

/** True when the validator is bonded. */
export function isBonded(validator: Validator): boolean {
  return validator.status === BondStatus.BONDED;
}

/** Tokens that count as bonded (all tokens of a bonded validator, none otherwise). */
export function bondedTokens(validator: Validator): bigint {
  return isBonded(validator) ? validatorTokens(validator) : 0n;
}

/** Power the validator would have if bonded: tokens / power reduction. */
export function potentialConsensusPower(validator: Validator, powerReduction: bigint): bigint {
  return validatorTokens(validator) / powerReduction;
}

/** Consensus power: potential power when bonded, 0 otherwise. */
export function consensusPower(validator: Validator, powerReduction: bigint): bigint {
  return isBonded(validator) ? potentialConsensusPower(validator, powerReduction) : 0n;
}

/** Upstream InvalidExRate: the validator has shares but no tokens (only after slashing to zero). */
export function hasInvalidExchangeRate(validator: Validator): boolean {
  return validatorTokens(validator) === 0n && validatorShares(validator) > 0n;
}

/** Shares worth `amount` tokens at the validator's exchange rate (MulInt then truncating QuoInt). */
export function sharesFromTokens(validator: Validator, amount: bigint): bigint {
  const tokens = validatorTokens(validator);
  if (tokens === 0n) throw ErrInsufficientShares.error();
  return (validatorShares(validator) * amount) / tokens;
}

/** Tokens (as a decimal) worth `shares` at the validator's exchange rate (MulInt then Quo). */
export function tokensFromShares(validator: Validator, shares: bigint): bigint {
  const total = validatorShares(validator);
  if (total === 0n) return 0n;
  return quoDec(shares * validatorTokens(validator), total);
}

/**
 * Adds delegated tokens (upstream AddTokensFromDel): the first delegation issues shares 1:1, later
 * ones at the current exchange rate. Returns the updated record and the issued shares.
 */
export function addTokensFromDelegation(
  validator: Validator,
  amount: bigint,
): { validator: Validator; issued: bigint } {
  const shares = validatorShares(validator);
  const issued = shares === 0n ? decFromInt(amount) : sharesFromTokens(validator, amount);
  const updated = create(ValidatorSchema, {
    ...validator,
    tokens: (validatorTokens(validator) + amount).toString(),
    delegatorShares: formatDecimal(shares + issued),
  });
  return { validator: updated, issued };
}

/** A copy with another status. */
export function withStatus(validator: Validator, status: BondStatus): Validator {
  return create(ValidatorSchema, { ...validator, status });
}

/** The consensus key of a validator: ed25519 bytes, checked. */
export function consensusPubKey(validator: Validator): Uint8Array {
  return decodeConsensusPubKey(validator.consensusPubkey);
}

/**
 * Reads an ed25519 consensus key Any (`/chain.crypto.ed25519.PubKey`, or the Cosmos alias).
 * Other key types → staking 6 `got: <type>, expected: [ed25519]: validator pubkey type is not supported`.
 */
export function decodeConsensusPubKey(any: Any | undefined): Uint8Array {
  if (any === undefined) throw ErrValidatorPubKeyTypeNotSupported.wrap("got: none, expected: [ed25519]");
  const algorithm = pubKeyAlgorithmOfTypeUrl(any.typeUrl);
  if (algorithm !== "ed25519") {
    throw ErrValidatorPubKeyTypeNotSupported.wrap(`got: ${algorithm ?? any.typeUrl}, expected: [ed25519]`);
  }
  let key: Uint8Array;
  try {
    key = fromBinary(Ed25519PubKeySchema, any.value).key;
  } catch (err) {
    throw ErrValidatorPubKeyTypeNotSupported.wrap(`cannot decode ed25519 key: ${(err as Error).message}`, {
      cause: err,
    });
  }
  if (key.length !== 32) {
    throw ErrValidatorPubKeyTypeNotSupported.wrap(`ed25519 key has ${key.length} bytes, expected 32`);
  }
  return key;
}

/** The consensus address (20 bytes) of a validator. */
export function consensusAddress(validator: Validator): Uint8Array {
  return consAddressFromEd25519PubKey(consensusPubKey(validator));
}

/** The consensus address (20 bytes) of an ed25519 consensus key. */
export function consAddressOfKey(key: Uint8Array): Uint8Array {
  return consAddressFromEd25519PubKey(key);
}

/** The Any of an ed25519 consensus key, under this chain's type URL. */
export function ed25519PubKeyAny(key: Uint8Array): Any {
  return {
    $typeName: "google.protobuf.Any",
    typeUrl: ED25519_PUBKEY_TYPE_URL,
    value: toBinary(Ed25519PubKeySchema, create(Ed25519PubKeySchema, { key })),
  };
}

/** The engine update carrying the validator's current power. */
export function validatorUpdate(validator: Validator, powerReduction: bigint): ValidatorUpdate {
  return {
    pubKey: { type: "ed25519", key: consensusPubKey(validator) },
    power: consensusPower(validator, powerReduction),
  };
}

/** The engine update removing the validator (power 0). */
export function validatorUpdateZero(validator: Validator): ValidatorUpdate {
  return { pubKey: { type: "ed25519", key: consensusPubKey(validator) }, power: 0n };
}

/** Parameters of newValidator. */
export interface NewValidatorParameters {
  operatorAddress: string;
  consensusPubkey: Any;
  description: Description | undefined;
  commission: Commission;
  minSelfDelegation: bigint;
}

/** An unbonded validator without tokens (upstream NewValidator + SetInitialCommission). */
export function newValidator(parameters: NewValidatorParameters): Validator {
  return create(ValidatorSchema, {
    operatorAddress: parameters.operatorAddress,
    consensusPubkey: parameters.consensusPubkey,
    jailed: false,
    status: BondStatus.UNBONDED,
    tokens: "0",
    delegatorShares: formatDecimal(0n),
    description: parameters.description ?? create(DescriptionSchema),
    unbondingHeight: 0n,
    unbondingTime: timestampFromNanos(0n),
    commission: parameters.commission,
    minSelfDelegation: parameters.minSelfDelegation.toString(),
  });
}

/** The parsed commission rates of a validator (decimals). */
export function parseCommissionRates(rates: CommissionRates | undefined): {
  rate: bigint;
  maxRate: bigint;
  maxChangeRate: bigint;
} {
  return {
    rate: parseDecimal(rates?.rate ?? "", "commission rate"),
    maxRate: parseDecimal(rates?.maxRate ?? "", "commission max rate"),
    maxChangeRate: parseDecimal(rates?.maxChangeRate ?? "", "commission max change rate"),
  };
}

/** One as a decimal (for comparisons with rates). */
export const ONE_DEC = DEC_ONE;
