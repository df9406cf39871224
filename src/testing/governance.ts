// Scheduling an upgrade the way a chain does it — a gov proposal carrying MsgSoftwareUpgrade, then a yes vote —
// for tests that drive a running chain whose voting power a single test key holds (a dev chain's validator).
import { create } from "@bufbuild/protobuf";
import { packAny } from "../client/tx/any.ts";
import type { Coin } from "../gen/chain/base/v1beta1/coin_pb.js";
import { VoteOption } from "../gen/chain/gov/v1/gov_pb.js";
import { MsgSubmitProposalSchema, MsgVoteSchema } from "../gen/chain/gov/v1/tx_pb.js";
import { MsgSoftwareUpgradeSchema } from "../gen/chain/upgrade/v1beta1/tx_pb.js";
import { defaultUpgradeAuthority } from "../x/upgrade/keeper.ts";
import { type BroadcastAndWaitParameters, broadcastAndWait } from "./broadcast.ts";

/** Parameters of {@link scheduleUpgradeByVote}. */
export interface ScheduleUpgradeByVoteParameters
  extends Omit<BroadcastAndWaitParameters<typeof MsgVoteSchema>, "schema" | "message"> {
  /** The plan's name (the release's upgrade name). */
  name: string;
  /** The plan's height. */
  height: bigint;
  /** The plan's info (default empty). */
  info?: string;
  /** The upgrade authority (default: the gov module account). */
  authority?: string;
  /** The proposal's initial deposit (default 10000000stake, upstream's minimum). */
  deposit?: Coin[];
  title?: string;
  summary?: string;
}

/**
 * Submits a software-upgrade proposal from `address` and votes yes on it with the same key; resolves with the
 * proposal's id once both txs are committed. Whether it passes is up to the chain's tally and voting period.
 *
 * @example
 * const id = await scheduleUpgradeByVote({ rpc, rest, home, chainId, keyName: "validator", address, name: "v2", height: 120n });
 */
export async function scheduleUpgradeByVote(parameters: ScheduleUpgradeByVoteParameters): Promise<bigint> {
  const { name, height, info, authority, deposit, title, summary, ...signing } = parameters;
  const upgrade = create(MsgSoftwareUpgradeSchema, {
    authority: authority ?? defaultUpgradeAuthority(),
    plan: { name, height, info: info ?? "" },
  });
  const submitted = await broadcastAndWait({
    ...signing,
    schema: MsgSubmitProposalSchema,
    message: create(MsgSubmitProposalSchema, {
      messages: [packAny(MsgSoftwareUpgradeSchema, upgrade)],
      initialDeposit: deposit ?? [{ denom: "stake", amount: "10000000" }],
      proposer: signing.address,
      title: title ?? `upgrade to ${name}`,
      summary: summary ?? `schedules the upgrade ${name} at height ${height}`,
    }),
  });
  const idText = submitted.events
    .find((event) => event.type === "submit_proposal")
    ?.attributes.find((attribute) => attribute.key === "proposal_id")?.value;
  if (idText === undefined) throw new Error("the proposal's tx has no submit_proposal event with a proposal_id");
  const proposalId = BigInt(idText);
  await broadcastAndWait({
    ...signing,
    schema: MsgVoteSchema,
    message: create(MsgVoteSchema, { proposalId, voter: signing.address, option: VoteOption.YES }),
  });
  return proposalId;
}
