// The auth store layout (store key `acc`, as upstream names it), prefixes as upstream's collections.
import { concatBytes } from "../../bytes/concat.ts";

/** Module name. */
export const AUTH_MODULE_NAME = "auth";
/** Store key (upstream's `acc`). */
export const AUTH_STORE_KEY = "acc";

/** `0x00` → Params. */
export const PARAMS_KEY = new Uint8Array([0x00]);
/** `0x01 ‖ address` → account (an Any holding BaseAccount or ModuleAccount). */
export const ACCOUNTS_PREFIX = new Uint8Array([0x01]);
/** `0x02` → the next account number (8-byte big-endian). */
export const GLOBAL_ACCOUNT_NUMBER_KEY = new Uint8Array([0x02]);
/** `0x03 ‖ account number (8-byte big-endian)` → address. */
export const ACCOUNT_NUMBER_PREFIX = new Uint8Array([0x03]);

/** Store key of the account at `address`. */
export function accountKey(address: Uint8Array): Uint8Array {
  return concatBytes(ACCOUNTS_PREFIX, address);
}

/** Store key of the index entry for `accountNumber`. */
export function accountNumberKey(accountNumber: bigint): Uint8Array {
  return concatBytes(ACCOUNT_NUMBER_PREFIX, uint64BigEndian(accountNumber));
}

/** 8-byte big-endian encoding of an unsigned 64-bit integer. */
export function uint64BigEndian(value: bigint): Uint8Array {
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, value);
  return out;
}

/** Reads an 8-byte big-endian unsigned integer. */
export function readUint64BigEndian(bytes: Uint8Array): bigint {
  if (bytes.length !== 8) throw new Error(`expected 8 bytes for a big-endian uint64, got ${bytes.length}`);
  return new DataView(bytes.buffer, bytes.byteOffset, 8).getBigUint64(0);
}
