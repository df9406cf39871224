// The bank store layout (store key `bank`), byte for byte as upstream's collections lay it out.
import { concatBytes, utf8 } from "../../store/bytes.ts";

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
  return concatBytes(BALANCES_PREFIX, new Uint8Array([address.length]), address);
}

/** Key of `address`'s balance in `denom`. */
export function balanceKey(address: Uint8Array, denom: string): Uint8Array {
  return concatBytes(addressBalancesPrefix(address), utf8(denom));
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
  return concatBytes(denomOwnersPrefix(denom), address);
}

/** Key of the send-enabled flag of `denom`. */
export function sendEnabledKey(denom: string): Uint8Array {
  return concatBytes(SEND_ENABLED_PREFIX, utf8(denom));
}
