// Votes (upstream x/gov/keeper/vote.go, v0.50): the vote store and AddVote. Votes are deleted as they
// are tallied (tally.ts) and when their proposal is cancelled (proposals.ts).
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import type { Context } from "../../app/context.ts";
import { formatDecimal } from "../../app/dec.ts";
import { type Vote, VoteSchema, type WeightedVoteOption } from "../../gen/chain/gov/v1/gov_pb.js";
import { ErrInactiveProposal, ErrInvalidVote } from "./errors.ts";
import type { GovKeeper } from "./keeper.ts";
import { VOTES_PREFIX, voteKey, votesOfProposalPrefix } from "./keys.ts";
import { isValidWeightedOption, weightedOptionText } from "./vote-options.ts";

/** The vote of `voter` on proposal `id`, if any. */
export async function getVote(
  ctx: Context,
  keeper: GovKeeper,
  id: bigint,
  voter: Uint8Array,
): Promise<Vote | undefined> {
  const bytes = await ctx.kvStore(keeper.storeKey).get(voteKey(id, voter));
  return bytes === undefined ? undefined : fromBinary(VoteSchema, bytes);
}

/** Stores a vote (a second vote from the same voter overwrites the first). */
export function setVote(ctx: Context, keeper: GovKeeper, vote: Vote): void {
  const voter = keeper.accountKeeper.addressFromString(vote.voter);
  ctx.kvStore(keeper.storeKey).set(voteKey(vote.proposalId, voter), toBinary(VoteSchema, vote));
}

/** The votes on proposal `id`, by voter address. */
export async function getVotes(
  ctx: Context,
  keeper: GovKeeper,
  id: bigint,
): Promise<{ voter: Uint8Array; vote: Vote }[]> {
  const prefix = votesOfProposalPrefix(id);
  const out: { voter: Uint8Array; vote: Vote }[] = [];
  for await (const [key, value] of ctx.kvStore(keeper.storeKey).iterate({ prefix })) {
    out.push({ voter: key.slice(prefix.length), vote: fromBinary(VoteSchema, value) });
  }
  return out;
}

/** Every vote on every proposal. */
export async function* iterateAllVotes(ctx: Context, keeper: GovKeeper): AsyncIterable<Vote> {
  for await (const [, value] of ctx.kvStore(keeper.storeKey).iterate({ prefix: VOTES_PREFIX })) {
    yield fromBinary(VoteSchema, value);
  }
}

/** Deletes a vote. */
export function deleteVote(ctx: Context, keeper: GovKeeper, id: bigint, voter: Uint8Array): void {
  ctx.kvStore(keeper.storeKey).delete(voteKey(id, voter));
}

/** Upstream AddVote: voting period only (`<id>: inactive proposal` otherwise); re-voting overwrites. */
export async function addVote(
  ctx: Context,
  keeper: GovKeeper,
  id: bigint,
  voter: Uint8Array,
  options: readonly WeightedVoteOption[],
  metadata: string,
): Promise<void> {
  if (!(await keeper.isInVotingPeriod(ctx, id))) throw ErrInactiveProposal.wrap(id.toString());
  keeper.assertMetadataLength(metadata);
  for (const option of options) {
    if (!isValidWeightedOption(option)) throw ErrInvalidVote.wrap(weightedOptionText(option));
  }
  const voterText = keeper.accountKeeper.addressToString(voter);
  keeper.setVote(ctx, create(VoteSchema, { proposalId: id, voter: voterText, options: [...options], metadata }));
  ctx.events.emit("proposal_vote", {
    voter: voterText,
    option: options
      .map((option) => weightedOptionText(option))
      .join("\n")
      .trim(),
    proposal_id: id.toString(),
  });
}

/** The weight text of 1 (`1.000000000000000000`), as a non-split vote stores it. */
export const FULL_WEIGHT = formatDecimal(10n ** 18n);
