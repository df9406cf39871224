// Historical info (upstream x/staking/keeper/historical_info.go): each block's header and validator set,
// kept for historical_entries blocks (what IBC light clients of this chain would read).
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import type { Context } from "../../app/context.ts";
import {
  type HistoricalInfo,
  HistoricalInfoSchema,
  type Validator,
} from "../../gen/chain/staking/v1beta1/staking_pb.js";
import { HeaderSchema } from "../../gen/tendermint/types/types_pb.js";
import { compareBytes } from "../../store/bytes.ts";
import type { StakingKeeper } from "./keeper.ts";
import { historicalInfoKey } from "./keys.ts";
import { consensusAddress, consensusPower } from "./validator.ts";

/**
 * Records this block's header and validator set (upstream TrackHistoricalInfo) and prunes entries
 * older than historical_entries blocks.
 */
export async function trackHistoricalInfo(ctx: Context, keeper: StakingKeeper): Promise<void> {
  const { historicalEntries } = await keeper.getParams(ctx);
  const store = ctx.kvStore(keeper.storeKey);
  for (let height = ctx.blockHeight - BigInt(historicalEntries); height >= 0n; height--) {
    const key = historicalInfoKey(height);
    if (!(await store.has(key))) break;
    store.delete(key);
  }
  if (historicalEntries === 0) return;
  const valset: Validator[] = [];
  for (const { operator } of await keeper.getLastValidatorPowers(ctx)) {
    const validator = await keeper.getValidator(ctx, operator);
    if (validator !== undefined) valset.push(validator);
  }
  valset.sort((a, b) => {
    const byPower = consensusPower(b, keeper.powerReduction) - consensusPower(a, keeper.powerReduction);
    if (byPower !== 0n) return byPower < 0n ? -1 : 1;
    return compareBytes(consensusAddress(a), consensusAddress(b));
  });
  const header = create(HeaderSchema, {
    chainId: ctx.chainId,
    height: ctx.blockHeight,
    time: ctx.blockTime,
    appHash: ctx.header.lastAppHash,
    proposerAddress: ctx.header.proposerAddress,
  });
  const info = create(HistoricalInfoSchema, { header, valset });
  store.set(historicalInfoKey(ctx.blockHeight), toBinary(HistoricalInfoSchema, info));
}

/** The historical info recorded at `height`, if kept. */
export async function getHistoricalInfo(
  ctx: Context,
  keeper: StakingKeeper,
  height: bigint,
): Promise<HistoricalInfo | undefined> {
  const bytes = await ctx.kvStore(keeper.storeKey).get(historicalInfoKey(height));
  return bytes === undefined ? undefined : fromBinary(HistoricalInfoSchema, bytes);
}
