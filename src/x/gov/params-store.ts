// The gov module's singletons in its store: params, the constitution and the next proposal id (upstream
// keeper.go's Params, Constitution and ProposalID collections). The params' defaults and validation live in
// params.ts.
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import type { Context } from "../../app/context.ts";
import { type Params, ParamsSchema } from "../../gen/chain/gov/v1/gov_pb.js";
import { fromUtf8, utf8 } from "../../store/bytes.ts";
import type { GovKeeper } from "./keeper.ts";
import { CONSTITUTION_KEY, idBytes, PARAMS_KEY, PROPOSAL_ID_KEY, readId } from "./keys.ts";
import { defaultGovParams } from "./params.ts";

/** The gov params (upstream defaults until set). */
export async function getParams(ctx: Context, keeper: GovKeeper): Promise<Params> {
  const bytes = await ctx.kvStore(keeper.storeKey).get(PARAMS_KEY);
  return bytes === undefined ? defaultGovParams() : fromBinary(ParamsSchema, bytes);
}

/** Stores the params (validate first with validateGovParams). */
export function setParams(ctx: Context, keeper: GovKeeper, params: Params): void {
  ctx.kvStore(keeper.storeKey).set(PARAMS_KEY, toBinary(ParamsSchema, create(ParamsSchema, params)));
}

/** The constitution text. */
export async function getConstitution(ctx: Context, keeper: GovKeeper): Promise<string> {
  const bytes = await ctx.kvStore(keeper.storeKey).get(CONSTITUTION_KEY);
  return bytes === undefined ? "" : fromUtf8(bytes);
}

/** Stores the constitution. */
export function setConstitution(ctx: Context, keeper: GovKeeper, constitution: string): void {
  ctx.kvStore(keeper.storeKey).set(CONSTITUTION_KEY, utf8(constitution));
}

/** The id the next proposal gets (starts at 1). */
export async function getNextProposalId(ctx: Context, keeper: GovKeeper): Promise<bigint> {
  const bytes = await ctx.kvStore(keeper.storeKey).get(PROPOSAL_ID_KEY);
  return bytes === undefined ? 1n : readId(bytes);
}

/** Sets the id the next proposal gets. */
export function setNextProposalId(ctx: Context, keeper: GovKeeper, id: bigint): void {
  ctx.kvStore(keeper.storeKey).set(PROPOSAL_ID_KEY, idBytes(id));
}
