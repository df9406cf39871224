// The bank store layout (store key `bank`), byte for byte as upstream's collections lay it out.
import { concatBytes } from "../../bytes/concat.ts";
import { utf8 } from "../../bytes/text.ts";

/** Module name and store key. */
export const BANK_MODULE_NAME = "bank";
/** Store key. */
export const BANK_STORE_KEY = "bank";

/** `0x00 ‖ denom` → total supply (decimal string). */
export const SUPPLY_PREFIX = new Uint8Array([0x00]);
/** `0x01 ‖ denom` → Metadata. */
export const DENOM_METADATA_PREFIX = new Uint8Array([0x01]);
/** `0x02 ‖ len(address) ‖ address ‖ denom` → balance (decimal string). */
export const BALANCES_PREFIX = new Uint8Array([0x02]);
/** `0x03 ‖ denom ‖ 0x00 ‖ address` → empty (who holds a denom). */
export const DENOM_ADDRESS_PREFIX = new Uint8Array([0x03]);
/** `0x04 ‖ denom` → send enabled (one byte, 0 or 1). */
export const SEND_ENABLED_PREFIX = new Uint8Array([0x04]);
/** `0x05` → Params. */
export const PARAMS_KEY = new Uint8Array([0x05]);

/** Prefix of every balance of `address`. */
export function addressBalancesPrefix(address: Uint8Array): Uint8Array {
  // One array (every balances query builds it): not a length array and a concatenation.
  const prefix = new Uint8Array(2 + address.length);
  prefix[0] = BALANCES_PREFIX[0];
  prefix[1] = address.length;
  prefix.set(address, 2);
  return prefix;
}

/** Key of `address`'s balance in `denom`. */
export function balanceKey(address: Uint8Array, denom: string): Uint8Array {
  // Built in one array when the denom is ASCII (a bank send reads and writes ~16 balances per tx, in CheckTx
  // and the block). Keys get their own exact-size array, never a slice of a shared pool: the store's tree
  // keeps them for as long as the node lives.
  if (!isAscii(denom)) return concatBytes(addressBalancesPrefix(address), utf8(denom));
  const key = new Uint8Array(2 + address.length + denom.length);
  key[0] = BALANCES_PREFIX[0];
  key[1] = address.length;
  key.set(address, 2);
  writeAscii(key, 2 + address.length, denom);
  return key;
}

/** Key of the supply of `denom`. */
export function supplyKey(denom: string): Uint8Array {
  return concatBytes(SUPPLY_PREFIX, utf8(denom));
}

/** Key of the metadata of `denom`. */
export function denomMetadataKey(denom: string): Uint8Array {
  return concatBytes(DENOM_METADATA_PREFIX, utf8(denom));
}

/** Prefix of the holders of `denom`. */
export function denomOwnersPrefix(denom: string): Uint8Array {
  return concatBytes(DENOM_ADDRESS_PREFIX, utf8(denom), new Uint8Array([0]));
}

/** Key of the index entry (denom, address). */
export function denomOwnerKey(denom: string, address: Uint8Array): Uint8Array {
  if (!isAscii(denom)) return concatBytes(denomOwnersPrefix(denom), address);
  const key = new Uint8Array(2 + denom.length + address.length);
  key[0] = DENOM_ADDRESS_PREFIX[0];
  writeAscii(key, 1, denom);
  key[1 + denom.length] = 0;
  key.set(address, 2 + denom.length);
  return key;
}

function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return false;
  return true;
}

function writeAscii(out: Uint8Array, at: number, text: string): void {
  for (let i = 0; i < text.length; i++) out[at + i] = text.charCodeAt(i);
}

/** Key of the send-enabled flag of `denom`. */
export function sendEnabledKey(denom: string): Uint8Array {
  return concatBytes(SEND_ENABLED_PREFIX, utf8(denom));
}
