// The readiness state in the upgrade store (keys.ts): each validator's latest signal under 0x04 ‖ consensus address,
// and the vote extensions' enable height under 0x05. Written in PreBlock from the extended commit the block carries.
import type { Context } from "../../app/context.ts";
import { concatBytes } from "../../bytes/concat.ts";
import { fromUtf8, utf8 } from "../../bytes/text.ts";
import type { KVStore } from "../../store/types.ts";
import {
  decodeUint64,
  encodeUint64,
  READINESS_SIGNAL_PREFIX,
  readinessSignalKey,
  UPGRADE_STORE_KEY,
  VOTE_EXTENSIONS_ENABLE_HEIGHT_KEY,
} from "./keys.ts";

/** A validator's latest recorded signal: the plan it was ready for ("" = none) in its precommit of `height`. */
export interface ReadinessSignal {
  plan: string;
  height: bigint;
}

const storeOf = (ctx: Context, storeKey: string): KVStore => ctx.kvStore(storeKey);

/** Records the signal of the validator with consensus address `address`. */
export function setReadinessSignal(
  ctx: Context,
  address: Uint8Array,
  signal: ReadinessSignal,
  storeKey = UPGRADE_STORE_KEY,
): void {
  storeOf(ctx, storeKey).set(readinessSignalKey(address), concatBytes(encodeUint64(signal.height), utf8(signal.plan)));
}

/** Every recorded signal, by consensus address (hex, upper case). */
export async function readinessSignals(
  ctx: Context,
  storeKey = UPGRADE_STORE_KEY,
): Promise<Map<string, ReadinessSignal>> {
  const out = new Map<string, ReadinessSignal>();
  for await (const [key, value] of storeOf(ctx, storeKey).iterate({ prefix: READINESS_SIGNAL_PREFIX })) {
    if (value.length < 8) {
      throw new Error(`corrupt upgrade store: a readiness signal holds ${value.length} bytes, expected at least 8`);
    }
    const address = Buffer.from(key.subarray(READINESS_SIGNAL_PREFIX.length)).toString("hex").toUpperCase();
    out.set(address, {
      height: decodeUint64(value.subarray(0, 8), "a readiness signal's height"),
      plan: fromUtf8(value.subarray(8)),
    });
  }
  return out;
}

/** The height from which vote extensions are on (0 = off). */
export async function voteExtensionsEnableHeight(ctx: Context, storeKey = UPGRADE_STORE_KEY): Promise<bigint> {
  const value = await storeOf(ctx, storeKey).get(VOTE_EXTENSIONS_ENABLE_HEIGHT_KEY);
  return value === undefined ? 0n : decodeUint64(value, "the vote extensions' enable height");
}

/**
 * Records the enable height. 0 (off) deletes the key, so a chain without vote extensions keeps the upgrade store,
 * and so its app hash, exactly as before readiness existed.
 */
export async function setVoteExtensionsEnableHeight(
  ctx: Context,
  height: bigint,
  storeKey = UPGRADE_STORE_KEY,
): Promise<void> {
  const store = storeOf(ctx, storeKey);
  if (height > 0n) store.set(VOTE_EXTENSIONS_ENABLE_HEIGHT_KEY, encodeUint64(height));
  else if (await store.has(VOTE_EXTENSIONS_ENABLE_HEIGHT_KEY)) store.delete(VOTE_EXTENSIONS_ENABLE_HEIGHT_KEY);
}
