// Proposals (upstream x/gov/keeper/proposal.go, v0.50): the proposal store and the voting-period set kept in
// step with it, submission (checks of each message, the new proposal in DEPOSIT_PERIOD with its inactive-queue
// entry), the move into the voting period, and cancellation by the proposer.
import { create, fromBinary, type Message, toBinary } from "@bufbuild/protobuf";
import type { Any } from "@bufbuild/protobuf/wkt";
import type { Context } from "../../app/context.ts";
import { parseDecimal } from "../../app/dec.ts";
import { ErrInvalidRequest } from "../../app/errors.ts";
import { decodeSignerAddress, signerAddresses } from "../../app/signers.ts";
import { addDuration, compareTimestamps } from "../../app/time.ts";
import { fromWireBinary } from "../../app/wire-decimals.ts";
import { type Proposal, ProposalSchema, ProposalStatus, TallyResultSchema } from "../../gen/chain/gov/v1/gov_pb.js";
import { MsgExecLegacyContentSchema } from "../../gen/chain/gov/v1/tx_pb.js";
import { equalBytes } from "../../store/bytes.ts";
import { chargeDeposit } from "./deposits.ts";
import {
  ErrInvalidProposal,
  ErrInvalidProposalContent,
  ErrInvalidProposer,
  ErrInvalidSigner,
  ErrNoProposalHandlerExists,
  ErrUnroutableProposalMsg,
  ErrVotingPeriodEnded,
} from "./errors.ts";
import type { GovMsgRoute } from "./expected-keepers.ts";
import type { GovKeeper } from "./keeper.ts";
import {
  ACTIVE_QUEUE_PREFIX,
  INACTIVE_QUEUE_PREFIX,
  PROPOSALS_PREFIX,
  proposalKey,
  queueKey,
  votingPeriodKey,
} from "./keys.ts";

/** The proposal `id`, if it exists. */
export async function getProposal(ctx: Context, keeper: GovKeeper, id: bigint): Promise<Proposal | undefined> {
  const bytes = await ctx.kvStore(keeper.storeKey).get(proposalKey(id));
  return bytes === undefined ? undefined : fromBinary(ProposalSchema, bytes);
}

/**
 * The proposal `id`; a missing one is upstream's unregistered collections error (codespace
 * `undefined`, code 1).
 */
export async function mustGetProposal(ctx: Context, keeper: GovKeeper, id: bigint): Promise<Proposal> {
  const proposal = await keeper.getProposal(ctx, id);
  if (proposal === undefined) throw new Error(`collections: not found: key '${id}' of type ${ProposalSchema.typeName}`);
  return proposal;
}

/** Stores a proposal and keeps the voting-period set in step with its status (upstream SetProposal). */
export function setProposal(ctx: Context, keeper: GovKeeper, proposal: Proposal): void {
  const store = ctx.kvStore(keeper.storeKey);
  if (proposal.status === ProposalStatus.VOTING_PERIOD) store.set(votingPeriodKey(proposal.id), Uint8Array.of(1));
  else store.delete(votingPeriodKey(proposal.id));
  store.set(proposalKey(proposal.id), toBinary(ProposalSchema, proposal));
}

/** Deletes a proposal and its queue entries (upstream DeleteProposal). */
export async function deleteProposal(ctx: Context, keeper: GovKeeper, id: bigint): Promise<void> {
  const proposal = await keeper.mustGetProposal(ctx, id);
  const store = ctx.kvStore(keeper.storeKey);
  if (proposal.depositEndTime !== undefined) store.delete(queueKey(INACTIVE_QUEUE_PREFIX, proposal.depositEndTime, id));
  if (proposal.votingEndTime !== undefined) {
    store.delete(queueKey(ACTIVE_QUEUE_PREFIX, proposal.votingEndTime, id));
    store.delete(votingPeriodKey(id));
  }
  store.delete(proposalKey(id));
}

/** Every proposal, by id. */
export async function* iterateProposals(ctx: Context, keeper: GovKeeper): AsyncIterable<Proposal> {
  for await (const [, value] of ctx.kvStore(keeper.storeKey).iterate({ prefix: PROPOSALS_PREFIX })) {
    yield fromBinary(ProposalSchema, value);
  }
}

/** True when the proposal is in its voting period (upstream VotingPeriodProposals.Has). */
export async function isInVotingPeriod(ctx: Context, keeper: GovKeeper, id: bigint): Promise<boolean> {
  return ctx.kvStore(keeper.storeKey).has(votingPeriodKey(id));
}

/**
 * Upstream Keeper.SubmitProposal: length checks, then for each message a route, exactly one
 * signer and that signer the gov account; stores the proposal in DEPOSIT_PERIOD with the
 * inactive-queue entry; emits submit_proposal. Messages are not executed here.
 */
export async function submitProposal(
  ctx: Context,
  keeper: GovKeeper,
  messages: readonly Any[],
  metadata: string,
  title: string,
  summary: string,
  proposer: Uint8Array,
  expedited: boolean,
): Promise<Proposal> {
  keeper.assertMetadataLength(metadata);
  keeper.assertSummaryLength(summary);
  keeper.assertMetadataLength(title);

  let typeUrls = "";
  const govAddress = keeper.moduleAddress();
  for (const any of messages) {
    typeUrls += `,${any.typeUrl}`;
    const route = keeper.router().route(any.typeUrl);
    if (route === undefined) throw ErrUnroutableProposalMsg.wrap(any.typeUrl);
    const msg = decodeProposalMessage(route, any);
    const signers = signerAddresses(route.input, msg).map((address) =>
      decodeSignerAddress(address, route.input.typeName),
    );
    if (signers.length !== 1) throw ErrInvalidSigner.error();
    if (!equalBytes(signers[0], govAddress)) {
      throw ErrInvalidSigner.wrap(keeper.accountKeeper.addressToString(signers[0]));
    }
    // Legacy content is dry-run in a throwaway branch, as upstream does; other messages run only
    // once the proposal passes.
    if (route.input.typeName === MsgExecLegacyContentSchema.typeName) {
      const { ctx: dryRun } = ctx.branch();
      try {
        await route.handler(msg, dryRun);
      } catch (err) {
        if (ErrNoProposalHandlerExists.is(err)) throw err;
        throw ErrInvalidProposalContent.wrap((err as Error).message, { cause: err });
      }
    }
  }

  const id = await keeper.getNextProposalId(ctx);
  keeper.setNextProposalId(ctx, id + 1n);
  const params = await keeper.getParams(ctx);
  const submitTime = ctx.blockTime;
  const proposal = create(ProposalSchema, {
    id,
    messages: [...messages],
    status: ProposalStatus.DEPOSIT_PERIOD,
    finalTallyResult: emptyTallyResult(),
    submitTime,
    depositEndTime: addDuration(submitTime, params.maxDepositPeriod),
    totalDeposit: [],
    metadata,
    title,
    summary,
    proposer: keeper.accountKeeper.addressToString(proposer),
    expedited,
    failedReason: "",
  });
  keeper.setProposal(ctx, proposal);
  keeper.insertInactiveQueue(ctx, id, proposal.depositEndTime!);
  ctx.events.emit("submit_proposal", {
    proposal_id: id.toString(),
    proposal_proposer: keeper.accountKeeper.addressToString(proposer),
    proposal_messages: typeUrls,
  });
  return proposal;
}

/** Moves a proposal into its voting period (upstream ActivateVotingPeriod). */
export async function activateVotingPeriod(ctx: Context, keeper: GovKeeper, proposal: Proposal): Promise<void> {
  const params = await keeper.getParams(ctx);
  const start = ctx.blockTime;
  const end = addDuration(start, proposal.expedited ? params.expeditedVotingPeriod : params.votingPeriod);
  const active = create(ProposalSchema, {
    ...proposal,
    votingStartTime: start,
    votingEndTime: end,
    status: ProposalStatus.VOTING_PERIOD,
  });
  keeper.setProposal(ctx, active);
  ctx.kvStore(keeper.storeKey).delete(queueKey(INACTIVE_QUEUE_PREFIX, proposal.depositEndTime!, proposal.id));
  keeper.insertActiveQueue(ctx, proposal.id, end);
}

/**
 * Upstream CancelProposal: only the proposer, only before voting ends; charges
 * proposal_cancel_ratio of every deposit (burned, or sent to proposal_cancel_dest), refunds the
 * rest, deletes votes and the proposal.
 */
export async function cancelProposal(ctx: Context, keeper: GovKeeper, id: bigint, proposer: string): Promise<void> {
  const proposal = await keeper.mustGetProposal(ctx, id);
  if (proposal.proposer === "") {
    throw ErrInvalidProposal.wrap(`proposal ${id} doesn't have proposer ${proposer}, so cannot be canceled`);
  }
  if (proposal.proposer !== proposer) throw ErrInvalidProposer.wrap(`invalid proposer ${proposer}`);
  if (proposal.status !== ProposalStatus.DEPOSIT_PERIOD && proposal.status !== ProposalStatus.VOTING_PERIOD) {
    throw ErrInvalidProposal.wrap("proposal should be in the deposit or voting period");
  }
  if (proposal.votingEndTime !== undefined && compareTimestamps(proposal.votingEndTime, ctx.blockTime) < 0) {
    throw ErrVotingPeriodEnded.wrap(`voting period is already ended for this proposal ${id}`);
  }
  const params = await keeper.getParams(ctx);
  await chargeDeposit(ctx, keeper, id, params.proposalCancelDest, parseDecimal(params.proposalCancelRatio));
  if (proposal.votingStartTime !== undefined) {
    for (const { voter } of await keeper.getVotes(ctx, id)) keeper.deleteVote(ctx, id, voter);
  }
  await keeper.deleteProposal(ctx, id);
}

/** All-zero tally counts. */
export function emptyTallyResult() {
  return create(TallyResultSchema, { yesCount: "0", abstainCount: "0", noCount: "0", noWithVetoCount: "0" });
}

/** Decodes a proposal message for its route; undecodable bytes → sdk 18. */
export function decodeProposalMessage(route: GovMsgRoute, any: Any): Message {
  try {
    return fromWireBinary(route.input, any.value);
  } catch (err) {
    throw ErrInvalidRequest.wrap(`cannot decode proposal message ${any.typeUrl}: ${(err as Error).message}`, {
      cause: err,
    });
  }
}
