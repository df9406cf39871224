// The staking store layout (store key `staking`). Prefix bytes follow upstream v0.50 so that a reader
// of upstream's docs finds the same tables; addresses inside keys are length-prefixed.
import type { Timestamp } from "@bufbuild/protobuf/wkt";
import { concatBytes } from "../../bytes/concat.ts";

/** The module name, store key and genesis key. */
export const STAKING_MODULE_NAME = "staking";
/** Store key of the staking module. */
export const STAKING_STORE_KEY = "staking";
/** Module account holding the tokens of bonded validators. */
export const BONDED_POOL_NAME = "bonded_tokens_pool";
/** Module account holding the tokens of unbonded and unbonding validators. */
export const NOT_BONDED_POOL_NAME = "not_bonded_tokens_pool";

/** 0x11 | lp(operator) → 8-byte big-endian consensus power of the last committed validator set. */
export const LAST_VALIDATOR_POWER_PREFIX = Uint8Array.of(0x11);
/** 0x12 → decimal text of the last total power. */
export const LAST_TOTAL_POWER_KEY = Uint8Array.of(0x12);
/** 0x21 | lp(operator) → Validator. */
export const VALIDATORS_PREFIX = Uint8Array.of(0x21);
/** 0x22 | lp(consensus address) → operator address. */
export const VALIDATORS_BY_CONS_ADDR_PREFIX = Uint8Array.of(0x22);
/** 0x23 | power (8 bytes BE) | len | ^operator → operator address (non-jailed validators). */
export const VALIDATORS_BY_POWER_PREFIX = Uint8Array.of(0x23);
/** 0x31 | lp(delegator) | lp(operator) → Delegation. */
export const DELEGATION_PREFIX = Uint8Array.of(0x31);
/** 0x43 | seconds (8 bytes BE) | nanos (4 bytes BE) | height (8 bytes BE) → ValAddresses (unbonding validators). */
export const VALIDATOR_QUEUE_PREFIX = Uint8Array.of(0x43);
/** 0x50 | height (8 bytes BE) → HistoricalInfo. */
export const HISTORICAL_INFO_PREFIX = Uint8Array.of(0x50);
/** 0x51 → Params. */
export const PARAMS_KEY = Uint8Array.of(0x51);
/** 0x71 | lp(operator) | lp(delegator) → empty (delegations by validator). */
export const DELEGATION_BY_VALIDATOR_PREFIX = Uint8Array.of(0x71);

/** `len(address) | address`. */
export function lengthPrefixed(address: Uint8Array): Uint8Array {
  if (address.length > 255) throw new RangeError(`address too long for a key: ${address.length} bytes`);
  return concatBytes(Uint8Array.of(address.length), address);
}

/** Splits `len | address | rest` into the address and the rest. */
export function readLengthPrefixed(bytes: Uint8Array, offset = 0): { address: Uint8Array; next: number } {
  const length = bytes[offset];
  if (length === undefined || offset + 1 + length > bytes.length) {
    throw new RangeError("malformed staking key: length prefix runs past the end");
  }
  return { address: bytes.slice(offset + 1, offset + 1 + length), next: offset + 1 + length };
}

/** Unsigned 64-bit big-endian. */
export function uint64BigEndian(value: bigint): Uint8Array {
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, BigInt.asUintN(64, value));
  return out;
}

/** Reads an unsigned 64-bit big-endian value. */
export function readUint64BigEndian(bytes: Uint8Array, offset = 0): bigint {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getBigUint64(offset);
}

/** Key of a validator record. */
export function validatorKey(operator: Uint8Array): Uint8Array {
  return concatBytes(VALIDATORS_PREFIX, lengthPrefixed(operator));
}

/** Key of the consensus-address index entry. */
export function validatorByConsAddrKey(consAddress: Uint8Array): Uint8Array {
  return concatBytes(VALIDATORS_BY_CONS_ADDR_PREFIX, lengthPrefixed(consAddress));
}

/**
 * Key of the power index: higher power sorts later, and for equal power the inverted operator bytes
 * make the lower address sort later, so a reverse scan yields upstream's order.
 */
export function validatorByPowerKey(power: bigint, operator: Uint8Array): Uint8Array {
  const inverted = operator.map((byte) => ~byte & 0xff);
  return concatBytes(VALIDATORS_BY_POWER_PREFIX, uint64BigEndian(power), Uint8Array.of(operator.length), inverted);
}

/** Key of the last committed power of a validator. */
export function lastValidatorPowerKey(operator: Uint8Array): Uint8Array {
  return concatBytes(LAST_VALIDATOR_POWER_PREFIX, lengthPrefixed(operator));
}

/** Prefix of every delegation of a delegator. */
export function delegationsOfDelegatorPrefix(delegator: Uint8Array): Uint8Array {
  return concatBytes(DELEGATION_PREFIX, lengthPrefixed(delegator));
}

/** Key of a delegation. */
export function delegationKey(delegator: Uint8Array, operator: Uint8Array): Uint8Array {
  return concatBytes(DELEGATION_PREFIX, lengthPrefixed(delegator), lengthPrefixed(operator));
}

/** Prefix of the by-validator index of one validator. */
export function delegationsOfValidatorPrefix(operator: Uint8Array): Uint8Array {
  return concatBytes(DELEGATION_BY_VALIDATOR_PREFIX, lengthPrefixed(operator));
}

/** Key of the by-validator index entry of a delegation. */
export function delegationByValidatorKey(operator: Uint8Array, delegator: Uint8Array): Uint8Array {
  return concatBytes(DELEGATION_BY_VALIDATOR_PREFIX, lengthPrefixed(operator), lengthPrefixed(delegator));
}

/** Key of an unbonding-validator queue slot. */
export function validatorQueueKey(time: Timestamp, height: bigint): Uint8Array {
  const nanos = new Uint8Array(4);
  new DataView(nanos.buffer).setUint32(0, time.nanos);
  return concatBytes(VALIDATOR_QUEUE_PREFIX, uint64BigEndian(time.seconds), nanos, uint64BigEndian(height));
}

/** Key of the historical info at `height`. */
export function historicalInfoKey(height: bigint): Uint8Array {
  return concatBytes(HISTORICAL_INFO_PREFIX, uint64BigEndian(height));
}
