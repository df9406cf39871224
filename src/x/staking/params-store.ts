// The staking params in the store (upstream x/staking/keeper/params.go). Defaults and validation live in
// params.ts.
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import type { Context } from "../../app/context.ts";
import { type Params, ParamsSchema } from "../../gen/chain/staking/v1beta1/staking_pb.js";
import type { StakingKeeper } from "./keeper.ts";
import { PARAMS_KEY } from "./keys.ts";
import { defaultStakingParams } from "./params.ts";

/** The staking params (upstream defaults until set). */
export async function getParams(ctx: Context, keeper: StakingKeeper): Promise<Params> {
  const bytes = await ctx.kvStore(keeper.storeKey).get(PARAMS_KEY);
  return bytes === undefined ? defaultStakingParams() : fromBinary(ParamsSchema, bytes);
}

/** Stores the params (validate first with validateStakingParams). */
export function setParams(ctx: Context, keeper: StakingKeeper, params: Params): void {
  ctx.kvStore(keeper.storeKey).set(PARAMS_KEY, toBinary(ParamsSchema, create(ParamsSchema, params)));
}

/** The bond denom. */
export async function bondDenom(ctx: Context, keeper: StakingKeeper): Promise<string> {
  return (await keeper.getParams(ctx)).bondDenom;
}
