// The gov EndBlocker (upstream x/gov/abci.go, v0.50): drops proposals whose deposit period ended
// without reaching the minimum, and tallies proposals whose voting period ended. A passed proposal's
// messages run in order, as the gov module account, on one branch: all of them take effect or none.
import { create } from "@bufbuild/protobuf";
import type { Context } from "../../app/context.ts";
import { ErrUnknownRequest } from "../../app/errors.ts";
import { addDuration } from "../../app/time.ts";
import { type Proposal, ProposalSchema, ProposalStatus } from "../../gen/chain/gov/v1/gov_pb.js";
import { decodeProposalMessage, type GovKeeper } from "./keeper.ts";
import { ACTIVE_QUEUE_PREFIX, INACTIVE_QUEUE_PREFIX } from "./keys.ts";
import { minDepositOf } from "./params.ts";
import { tally } from "./tally.ts";

/** `proposal_result` values of the inactive_proposal / active_proposal events. */
export const ProposalResult = {
  dropped: "proposal_dropped",
  passed: "proposal_passed",
  rejected: "proposal_rejected",
  failed: "proposal_failed",
  expeditedRejected: "expedited_proposal_rejected",
} as const;

/** Processes the inactive queue, then the active queue, for everything due at the block time. */
export async function govEndBlocker(ctx: Context, keeper: GovKeeper): Promise<void> {
  const now = ctx.blockTime;

  for (const id of await keeper.queuedUntil(ctx, INACTIVE_QUEUE_PREFIX, now)) {
    const proposal = await keeper.mustGetProposal(ctx, id);
    await keeper.deleteProposal(ctx, id);
    const params = await keeper.getParams(ctx);
    if (params.burnProposalDepositPrevote) await keeper.deleteAndBurnDeposits(ctx, id);
    else await keeper.refundAndDeleteDeposits(ctx, id);
    ctx.events.emit("inactive_proposal", { proposal_id: id.toString(), proposal_result: ProposalResult.dropped });
    // Upstream's fields, the coins as coin text (`10000000stake`); the minimum is the expedited one when it applies.
    ctx.logger.info(
      {
        module: "x/gov",
        proposal: id.toString(),
        expedited: proposal.expedited,
        title: proposal.title,
        min_deposit: coinsText(minDepositOf(params, proposal.expedited)),
        total_deposit: coinsText(proposal.totalDeposit),
      },
      "proposal did not meet minimum deposit; deleted",
    );
  }

  for (const id of await keeper.queuedUntil(ctx, ACTIVE_QUEUE_PREFIX, now)) {
    const proposal = await keeper.mustGetProposal(ctx, id);
    const outcome = await tally(ctx, keeper, proposal);

    // A failing expedited proposal becomes a regular one and keeps its deposits for the second round.
    if (!(proposal.expedited && !outcome.passes)) {
      if (outcome.burnDeposits) await keeper.deleteAndBurnDeposits(ctx, id);
      else await keeper.refundAndDeleteDeposits(ctx, id);
    }
    keeper.removeActiveQueue(ctx, id, proposal.votingEndTime!);

    let updated: Proposal;
    let result: string;
    let log: string;
    if (outcome.passes) {
      const execution = await executeProposalMessages(ctx, keeper, proposal);
      if (execution.error === undefined) {
        updated = create(ProposalSchema, { ...proposal, status: ProposalStatus.PASSED });
        result = ProposalResult.passed;
        log = "passed";
      } else {
        updated = create(ProposalSchema, {
          ...proposal,
          status: ProposalStatus.FAILED,
          failedReason: execution.error.message,
        });
        result = ProposalResult.failed;
        log = `passed, but msg ${execution.index} (${execution.typeUrl}) failed on execution: ${execution.error.message}`;
      }
    } else if (proposal.expedited) {
      const params = await keeper.getParams(ctx);
      const votingEndTime = addDuration(proposal.votingStartTime!, params.votingPeriod);
      updated = create(ProposalSchema, { ...proposal, expedited: false, votingEndTime });
      keeper.insertActiveQueue(ctx, id, votingEndTime);
      result = ProposalResult.expeditedRejected;
      log = "expedited proposal converted to regular";
    } else {
      updated = create(ProposalSchema, {
        ...proposal,
        status: ProposalStatus.REJECTED,
        failedReason: "proposal did not get enough votes to pass",
      });
      result = ProposalResult.rejected;
      log = "rejected";
    }

    updated.finalTallyResult = outcome.tallyResult;
    keeper.setProposal(ctx, updated);
    ctx.logger.info(
      {
        module: "x/gov",
        proposal: id.toString(),
        // Upstream logs the enum's name (PROPOSAL_STATUS_PASSED), the expedited flag and the title too.
        status: `PROPOSAL_STATUS_${ProposalStatus[updated.status]}`,
        expedited: updated.expedited,
        title: updated.title,
        results: log,
      },
      "proposal tallied",
    );
    ctx.events.emit("active_proposal", { proposal_id: id.toString(), proposal_result: result, proposal_log: log });
  }
}

/** The outcome of running a passed proposal's messages. */
export interface ExecutionOutcome {
  /** The first failure, if any (then nothing was applied). */
  error: Error | undefined;
  /** Index and type URL of the failing message. */
  index: number;
  typeUrl: string;
}

/**
 * Runs the messages in order on one branch of `ctx` (upstream CacheContext): if every handler
 * succeeds the branch and its events are written; the first failure discards everything.
 */
export async function executeProposalMessages(
  ctx: Context,
  keeper: GovKeeper,
  proposal: Proposal,
): Promise<ExecutionOutcome> {
  const branch = ctx.branch();
  for (let index = 0; index < proposal.messages.length; index++) {
    const any = proposal.messages[index];
    try {
      const route = keeper.router().route(any.typeUrl);
      if (route === undefined) throw ErrUnknownRequest.wrap(`no message handler found for ${any.typeUrl}`);
      await route.handler(decodeProposalMessage(route, any), branch.ctx);
    } catch (err) {
      const error = err instanceof Error ? err : new Error(String(err));
      return { error, index, typeUrl: any.typeUrl };
    }
  }
  branch.write();
  return { error: undefined, index: -1, typeUrl: "" };
}

/** `10000000stake,5atom`: coins as upstream's Coins.String() prints them (in their stored order). */
function coinsText(coins: readonly { denom: string; amount: string | bigint }[]): string {
  return coins.map((coin) => `${coin.amount}${coin.denom}`).join(",");
}
