// The last validator set in the store (upstream LastValidatorPower and LastTotalPower): the powers handed
// to the consensus engine at the last update, against which the next update is diffed.
import type { Context } from "../../app/context.ts";
import { fromUtf8, utf8 } from "../../store/bytes.ts";
import type { StakingKeeper } from "./keeper.ts";
import {
  LAST_TOTAL_POWER_KEY,
  LAST_VALIDATOR_POWER_PREFIX,
  lastValidatorPowerKey,
  readLengthPrefixed,
  readUint64BigEndian,
  uint64BigEndian,
} from "./keys.ts";

/** The power `operator` had in the last validator set, if it was in it. */
export async function getLastValidatorPower(
  ctx: Context,
  keeper: StakingKeeper,
  operator: Uint8Array,
): Promise<bigint | undefined> {
  const bytes = await ctx.kvStore(keeper.storeKey).get(lastValidatorPowerKey(operator));
  return bytes === undefined ? undefined : readUint64BigEndian(bytes);
}

/** Records the power of a member of the validator set. */
export function setLastValidatorPower(ctx: Context, keeper: StakingKeeper, operator: Uint8Array, power: bigint): void {
  ctx.kvStore(keeper.storeKey).set(lastValidatorPowerKey(operator), uint64BigEndian(power));
}

/** Removes a validator from the last validator set. */
export function deleteLastValidatorPower(ctx: Context, keeper: StakingKeeper, operator: Uint8Array): void {
  ctx.kvStore(keeper.storeKey).delete(lastValidatorPowerKey(operator));
}

/** The last validator set: operator bytes and power, in operator order. */
export async function getLastValidatorPowers(
  ctx: Context,
  keeper: StakingKeeper,
): Promise<{ operator: Uint8Array; power: bigint }[]> {
  const out: { operator: Uint8Array; power: bigint }[] = [];
  const prefix = LAST_VALIDATOR_POWER_PREFIX;
  for await (const [key, value] of ctx.kvStore(keeper.storeKey).iterate({ prefix })) {
    out.push({ operator: readLengthPrefixed(key, prefix.length).address, power: readUint64BigEndian(value) });
  }
  return out;
}

/** The last total power (sum of the set's powers). */
export async function getLastTotalPower(ctx: Context, keeper: StakingKeeper): Promise<bigint> {
  const bytes = await ctx.kvStore(keeper.storeKey).get(LAST_TOTAL_POWER_KEY);
  return bytes === undefined ? 0n : BigInt(fromUtf8(bytes));
}

/** Stores the last total power. */
export function setLastTotalPower(ctx: Context, keeper: StakingKeeper, power: bigint): void {
  ctx.kvStore(keeper.storeKey).set(LAST_TOTAL_POWER_KEY, utf8(power.toString()));
}
