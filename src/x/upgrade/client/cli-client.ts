// The upgrade commands' client (UpgradeCliClient, src/x/upgrade/client/cli.ts), implemented over the CLI plumbing
// (src/client/cli/): the node's consensus RPC and query transport, the keyring and the CLI's tx flow.
import { create, type JsonValue } from "@bufbuild/protobuf";
import type { Duration } from "@bufbuild/protobuf/wkt";
import { type CoinError, coinsToProto, parseCoins } from "../../../app/coins.ts";
import type { ClientContext } from "../../../client/cli/context.ts";
import { CliError } from "../../../client/cli/errors.ts";
import { readTxFlags } from "../../../client/cli/flags.ts";
import { runTx } from "../../../client/cli/tx-sender.ts";
import { type RpcBlockMeta, RpcError } from "../../../client/rpc/rpc-client.ts";
import { packAny } from "../../../client/tx/index.ts";
import { Query as GovQuery } from "../../../gen/chain/gov/v1/query_pb.js";
import { MsgSubmitProposalSchema } from "../../../gen/chain/gov/v1/tx_pb.js";
import type { BlockPace, GovTimingParams, ProposalSubmission, UpgradeCliClient } from "./cli.ts";

/** The upgrade commands' client: queries, block metas, gov params, block pace, proposal submission. */
export function upgradeCliClient(ctx: ClientContext): UpgradeCliClient {
  return {
    async query(methodPath, request, height) {
      return (await ctx.queries.query(methodPath, request, height ?? ctx.flags.height)).value;
    },
    async getBlockByHeight(height) {
      let metas: RpcBlockMeta[];
      try {
        ({ block_metas: metas } = await ctx.rpc.blockchain(height, height));
      } catch (err) {
        // A height above the node's latest (or below its pruned base) is "no such block", not a failure.
        if (err instanceof RpcError && /can't be greater than max height/.test(err.message)) return undefined;
        throw err;
      }
      const meta = metas.find((m) => m.header.height === height.toString());
      return meta === undefined ? undefined : (meta as unknown as JsonValue);
    },
    async broadcastProposal(proposal) {
      return runTx(ctx, readTxFlags(proposal.flags), [await submitProposalMsg(ctx, proposal)]);
    },
    async govParams() {
      const { params } = await ctx.query(GovQuery.method.params, { paramsType: "" });
      if (params === undefined) throw new CliError("the node answered the gov params query without params");
      return {
        votingPeriodMs: durationMs(params.votingPeriod),
        maxDepositPeriodMs: durationMs(params.maxDepositPeriod),
      } satisfies GovTimingParams;
    },
    async averageBlockTime() {
      const { last_height: last, block_metas: metas } = await ctx.rpc.blockchain(0n, 0n);
      return blockPace(BigInt(last), metas);
    },
  };
}

/** The gov v1 MsgSubmitProposal of an upgrade command, proposed by `--from`. */
async function submitProposalMsg(ctx: ClientContext, proposal: ProposalSubmission) {
  const flags = readTxFlags(proposal.flags);
  const proposer = await ctx.fromAddress(flags.from, flags.keyringBackend, flags.generateOnly);
  let deposit: ReturnType<typeof parseCoins>;
  try {
    deposit = parseCoins(proposal.deposit);
  } catch (err) {
    throw new CliError(`invalid deposit: ${(err as CoinError).message}`, { cause: err });
  }
  const msg = create(MsgSubmitProposalSchema, {
    messages: proposal.messages,
    initialDeposit: coinsToProto(deposit),
    proposer,
    metadata: proposal.metadata,
    title: proposal.title,
    summary: proposal.summary,
  });
  return packAny(MsgSubmitProposalSchema, msg);
}

/**
 * The chain's recent pace from block metas (newest first, as `blockchain` returns them): the mean time
 * between the oldest and the newest. Needs at least two blocks.
 */
export function blockPace(latestHeight: bigint, metas: readonly Pick<RpcBlockMeta, "header">[]): BlockPace {
  const times = metas.map((meta) => Date.parse(meta.header.time)).filter((t) => Number.isFinite(t));
  if (times.length < 2) {
    throw new CliError(`not enough blocks yet to measure the block time (the node has ${times.length})`);
  }
  const newest = Math.max(...times);
  const oldest = Math.min(...times);
  const averageBlockTimeMs = (newest - oldest) / (times.length - 1);
  if (averageBlockTimeMs <= 0) throw new CliError("the recent blocks all have the same time: cannot measure the pace");
  return { latestHeight, averageBlockTimeMs };
}

function durationMs(duration: Duration | undefined): number {
  if (duration === undefined) return 0;
  return Number(duration.seconds) * 1000 + duration.nanos / 1e6;
}
