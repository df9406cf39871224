// The upgrade store layout (store key `upgrade`), exactly as docs/CONTRACT.md §2.2 gives it:
//   0x00               → the current Plan (binary protobuf), absent when none
//   0x01 ‖ name        → block height at which that plan was applied (8-byte big-endian)
//   0x02 ‖ module name → the module's consensus version (8-byte big-endian uint64)
//   0x03               → the protocol version (8-byte big-endian uint64), absent at genesis
// and, added by readiness (the four keys above stay exactly as they are):
//   0x04 ‖ consensus address → the validator's latest readiness signal: height (8-byte big-endian) ‖ plan name
//   0x05               → the height from which vote extensions are on (8-byte big-endian), absent when off
//   0x06               → the module's Params (binary protobuf), absent while they are the defaults
//   0x07               → how many times the scheduled plan was postponed (8-byte big-endian), absent when never
import { concatBytes } from "../../bytes/concat.ts";
import { utf8 } from "../../bytes/text.ts";

/** Module name (also its genesis key). */
export const UPGRADE_MODULE_NAME = "upgrade";
/** Store key of the module's KV store. */
export const UPGRADE_STORE_KEY = "upgrade";

/** `0x00` → current Plan. */
export const PLAN_KEY = new Uint8Array([0x00]);
/** `0x01 ‖ name` → height at which the named plan was applied. */
export const DONE_PREFIX = new Uint8Array([0x01]);
/** `0x02 ‖ module` → consensus version of the module. */
export const VERSION_MAP_PREFIX = new Uint8Array([0x02]);
/** `0x03` → protocol version. */
export const PROTOCOL_VERSION_KEY = new Uint8Array([0x03]);

/** `0x04 ‖ consensus address` → the validator's latest readiness signal (height ‖ plan name). */
export const READINESS_SIGNAL_PREFIX = new Uint8Array([0x04]);
/** `0x05` → the vote extensions' enable height. */
export const VOTE_EXTENSIONS_ENABLE_HEIGHT_KEY = new Uint8Array([0x05]);

/** `0x06` → the module's Params. */
export const PARAMS_KEY = new Uint8Array([0x06]);
/** `0x07` → the scheduled plan's postponement count. */
export const POSTPONEMENTS_KEY = new Uint8Array([0x07]);

/** Store key of the readiness signal of the validator with consensus address `address`. */
export function readinessSignalKey(address: Uint8Array): Uint8Array {
  return concatBytes(READINESS_SIGNAL_PREFIX, address);
}

/** Store key of the done record of plan `name`. */
export function doneKey(name: string): Uint8Array {
  return concatBytes(DONE_PREFIX, utf8(name));
}

/** Store key of the version of module `moduleName`. */
export function moduleVersionKey(moduleName: string): Uint8Array {
  return concatBytes(VERSION_MAP_PREFIX, utf8(moduleName));
}

/** 8-byte big-endian encoding of an unsigned 64-bit integer; throws outside [0, 2^64). */
export function encodeUint64(value: bigint): Uint8Array {
  if (value < 0n || value >= 1n << 64n) throw new RangeError(`${value} does not fit an unsigned 64-bit integer`);
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, value);
  return out;
}

/** Reads an 8-byte big-endian unsigned integer; `what` names the value in the error for a wrong length. */
export function decodeUint64(bytes: Uint8Array, what: string): bigint {
  if (bytes.length !== 8) {
    throw new Error(
      `corrupt upgrade store: ${what} holds ${bytes.length} bytes, expected an 8-byte big-endian integer`,
    );
  }
  return new DataView(bytes.buffer, bytes.byteOffset, 8).getBigUint64(0);
}
