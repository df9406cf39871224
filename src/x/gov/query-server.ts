// The gov Query service (upstream x/gov/keeper/grpc_query.go, v0.50): proposals with filters,
// votes, deposits, params (with the legacy params_type views), live or final tally, constitution.
import { create, fromBinary } from "@bufbuild/protobuf";
import type { Context } from "../../app/context.ts";
import { GrpcCode, grpcError } from "../../app/errors.ts";
import { filteredPaginate } from "../../app/filtered-page.ts";
import type { ServiceHandlers } from "../../app/module.ts";
import { capHistoryPage, paginate } from "../../app/pagination.ts";
import {
  DepositParamsSchema,
  DepositSchema,
  type Proposal,
  ProposalSchema,
  ProposalStatus,
  TallyParamsSchema,
  VoteSchema,
  VotingParamsSchema,
} from "../../gen/chain/gov/v1/gov_pb.js";
import type { Query } from "../../gen/chain/gov/v1/query_pb.js";
import { emptyTallyResult, type GovKeeper } from "./keeper.ts";
import { depositKey, depositsOfProposalPrefix, PROPOSALS_PREFIX, voteKey, votesOfProposalPrefix } from "./keys.ts";
import { tally } from "./tally.ts";

/** The Query service handlers of gov. */
export function govQueryServer(keeper: GovKeeper): ServiceHandlers<typeof Query> {
  return {
    constitution: async (_request, ctx) => ({ constitution: await keeper.getConstitution(ctx) }),

    proposal: async (request, ctx) => ({ proposal: await requireProposal(keeper, ctx, request.proposalId) }),

    proposals: async (request, ctx) => {
      const voter = request.voter === "" ? undefined : address(keeper, request.voter, "voter");
      const depositor = request.depositor === "" ? undefined : address(keeper, request.depositor, "depositor");
      const filterStatus =
        request.proposalStatus >= ProposalStatus.DEPOSIT_PERIOD && request.proposalStatus <= ProposalStatus.FAILED;
      const store = ctx.kvStore(keeper.storeKey);
      const page = await filteredPaginate(
        store,
        PROPOSALS_PREFIX,
        capHistoryPage(request.pagination),
        async (_key, value) => {
          const proposal = fromBinary(ProposalSchema, value);
          if (filterStatus && proposal.status !== request.proposalStatus) return undefined;
          if (voter !== undefined && !(await store.has(voteKey(proposal.id, voter)))) return undefined;
          if (depositor !== undefined && !(await store.has(depositKey(proposal.id, depositor)))) return undefined;
          return proposal;
        },
      );
      return { proposals: page.items, pagination: page.pagination };
    },

    vote: async (request, ctx) => {
      requireId(request.proposalId);
      if (request.voter === "") throw grpcError(GrpcCode.InvalidArgument, "empty voter address");
      const voter = address(keeper, request.voter, "voter");
      const vote = await keeper.getVote(ctx, request.proposalId, voter);
      if (vote === undefined) {
        throw grpcError(GrpcCode.NotFound, `voter: ${request.voter} not found for proposal: ${request.proposalId}`);
      }
      return { vote };
    },

    votes: async (request, ctx) => {
      requireId(request.proposalId);
      const page = await paginate(
        ctx.kvStore(keeper.storeKey),
        votesOfProposalPrefix(request.proposalId),
        capHistoryPage(request.pagination),
        (_key, value) => fromBinary(VoteSchema, value),
      );
      return { votes: page.items, pagination: page.pagination };
    },

    params: async (request, ctx) => {
      const params = await keeper.getParams(ctx);
      switch (request.paramsType) {
        case "deposit":
          return {
            params,
            depositParams: create(DepositParamsSchema, {
              minDeposit: params.minDeposit,
              maxDepositPeriod: params.maxDepositPeriod,
            }),
          };
        case "voting":
          return { params, votingParams: create(VotingParamsSchema, { votingPeriod: params.votingPeriod }) };
        case "tallying":
          return {
            params,
            tallyParams: create(TallyParamsSchema, {
              quorum: params.quorum,
              threshold: params.threshold,
              vetoThreshold: params.vetoThreshold,
            }),
          };
        case "":
          return { params };
        default:
          throw grpcError(GrpcCode.InvalidArgument, `unknown params type: ${request.paramsType}`);
      }
    },

    deposit: async (request, ctx) => {
      requireId(request.proposalId);
      if (request.depositor === "") throw grpcError(GrpcCode.InvalidArgument, "empty depositor address");
      const depositor = address(keeper, request.depositor, "depositor");
      const deposit = await keeper.getDeposit(ctx, request.proposalId, depositor);
      if (deposit === undefined) {
        // "depositer" is upstream's spelling.
        throw grpcError(
          GrpcCode.NotFound,
          `depositer: ${request.depositor} not found for proposal: ${request.proposalId}`,
        );
      }
      return { deposit };
    },

    deposits: async (request, ctx) => {
      requireId(request.proposalId);
      const page = await paginate(
        ctx.kvStore(keeper.storeKey),
        depositsOfProposalPrefix(request.proposalId),
        capHistoryPage(request.pagination),
        (_key, value) => fromBinary(DepositSchema, value),
      );
      return { deposits: page.items, pagination: page.pagination };
    },

    tallyResult: async (request, ctx) => {
      const proposal = await requireProposal(keeper, ctx, request.proposalId);
      switch (proposal.status) {
        case ProposalStatus.DEPOSIT_PERIOD:
          return { tally: emptyTallyResult() };
        case ProposalStatus.PASSED:
        case ProposalStatus.REJECTED:
        case ProposalStatus.FAILED:
          return { tally: proposal.finalTallyResult ?? emptyTallyResult() };
        default: {
          // The live tally deletes votes as it counts: run it on a branch that is never written.
          const { ctx: scratch } = ctx.branch();
          return { tally: (await tally(scratch, keeper, proposal)).tallyResult };
        }
      }
    },
  };
}

function requireId(id: bigint): void {
  if (id === 0n) throw grpcError(GrpcCode.InvalidArgument, "proposal id can not be 0");
}

async function requireProposal(keeper: GovKeeper, ctx: Context, id: bigint): Promise<Proposal> {
  requireId(id);
  const proposal = await keeper.getProposal(ctx, id);
  if (proposal === undefined) throw grpcError(GrpcCode.NotFound, `proposal ${id} doesn't exist`);
  return proposal;
}

function address(keeper: GovKeeper, text: string, role: string): Uint8Array {
  try {
    return keeper.accountKeeper.addressFromString(text);
  } catch (err) {
    throw grpcError(GrpcCode.InvalidArgument, `invalid ${role} address: ${(err as Error).message}`);
  }
}
