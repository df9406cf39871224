import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { create, fromBinary } from "@bufbuild/protobuf";
import type { Any } from "@bufbuild/protobuf/wkt";
import { addressToBech32, moduleAddress } from "../../crypto/index.ts";
import { MsgSendSchema } from "../../gen/chain/bank/v1beta1/tx_pb.js";
import { TxMsgDataSchema } from "../../gen/chain/base/abci/v1beta1/abci_pb.js";
import { ProposalStatus, VoteOption } from "../../gen/chain/gov/v1/gov_pb.js";
import { Query } from "../../gen/chain/gov/v1/query_pb.js";
import {
  MsgCancelProposalSchema,
  MsgDepositSchema,
  MsgSubmitProposalResponseSchema,
  MsgSubmitProposalSchema,
  MsgUpdateParamsSchema,
  MsgVoteSchema,
  MsgVoteWeightedSchema,
} from "../../gen/chain/gov/v1/tx_pb.js";
import {
  MsgDelegateSchema,
  MsgUpdateParamsSchema as StakingMsgUpdateParamsSchema,
} from "../../gen/chain/staking/v1beta1/tx_pb.js";
import type { ExecTxResult } from "../../gen/tendermint/abci/types_pb.js";
import { packAny, type TestKey } from "../../testing/app.ts";
import { createStakingTestChain, key, type StakingTestChain } from "../../testing/staking.ts";
import { captureLogger } from "../../testing/upgrade-context.ts";

const GOV = addressToBech32(moduleAddress("gov"));
const val1 = key("gov-val-1");
const val2 = key("gov-val-2");
const alice = key("gov-alice");
const bob = key("gov-bob");

const VOTING_PERIOD_MS = 20_000;
const DEPOSIT_PERIOD_MS = 10_000;

/** val1: 10M self-bonded (power 10), val2: 5M (power 5); alice and bob hold 100M each. */
async function newChain(govParams: Record<string, string | boolean> = {}): Promise<StakingTestChain> {
  const chain = await createStakingTestChain({
    accounts: [
      { key: val1, stake: 100_000_000n },
      { key: val2, stake: 100_000_000n },
      { key: alice, stake: 100_000_000n },
      { key: bob, stake: 100_000_000n },
    ],
    validators: [
      { key: val1, selfDelegation: 10_000_000n },
      { key: val2, selfDelegation: 5_000_000n },
    ],
    govParams: {
      max_deposit_period: `${DEPOSIT_PERIOD_MS / 1000}s`,
      voting_period: `${VOTING_PERIOD_MS / 1000}s`,
      expedited_voting_period: "5s",
      ...govParams,
    },
  });
  await chain.nextBlock();
  return chain;
}

type SubmitInit = { title?: string; summary?: string; metadata?: string; expedited?: boolean; proposer?: string };

function submitMsg(proposer: TestKey, messages: Any[], deposit: bigint | string, extra: SubmitInit = {}): Any {
  const initialDeposit =
    typeof deposit === "bigint"
      ? [{ denom: "stake", amount: deposit.toString() }]
      : [{ denom: deposit.replace(/^\d+/, ""), amount: deposit.match(/^\d+/)![0] }];
  return packAny(
    MsgSubmitProposalSchema,
    create(MsgSubmitProposalSchema, {
      messages,
      initialDeposit,
      proposer: proposer.bech32,
      title: "Title",
      summary: "Summary",
      ...extra,
    }),
  );
}

/** A gov MsgUpdateParams keeping the chain's params except `changes`. */
async function govParamsMsg(chain: StakingTestChain, changes: Record<string, unknown>): Promise<Any> {
  const { params } = await chain.query(Query.method.params, { paramsType: "" });
  return packAny(
    MsgUpdateParamsSchema,
    create(MsgUpdateParamsSchema, { authority: GOV, params: { ...params!, ...changes } }),
  );
}

async function submit(
  chain: StakingTestChain,
  proposer: TestKey,
  messages: Any[],
  deposit: bigint | string,
  extra: SubmitInit = {},
) {
  const { result } = await chain.deliver(proposer, [submitMsg(proposer, messages, deposit, extra)]);
  return result;
}

function proposalIdOf(result: ExecTxResult): bigint {
  assert.equal(result.code, 0, result.log);
  const data = fromBinary(TxMsgDataSchema, result.data);
  return fromBinary(MsgSubmitProposalResponseSchema, data.msgResponses[0].value).proposalId;
}

function voteMsg(voter: TestKey, id: bigint, option: VoteOption): Any {
  return packAny(MsgVoteSchema, create(MsgVoteSchema, { proposalId: id, voter: voter.bech32, option }));
}

async function vote(chain: StakingTestChain, voter: TestKey, id: bigint, option: VoteOption) {
  const { result } = await chain.deliver(voter, [voteMsg(voter, id, option)]);
  assert.equal(result.code, 0, result.log);
}

async function proposal(chain: StakingTestChain, id: bigint) {
  return (await chain.query(Query.method.proposal, { proposalId: id })).proposal!;
}

async function balance(chain: StakingTestChain, who: Uint8Array): Promise<bigint> {
  const ctx = await chain.app.createQueryContext();
  return (await chain.bankKeeper.getBalance(ctx, who, "stake")).amount;
}

async function supply(chain: StakingTestChain): Promise<bigint> {
  const ctx = await chain.app.createQueryContext();
  return (await chain.bankKeeper.getSupply(ctx, "stake")).amount;
}

/** Moves past the voting period and returns that block. */
async function endVoting(chain: StakingTestChain) {
  return chain.nextBlock(undefined, chain.timeMs() + VOTING_PERIOD_MS + 1000);
}

function attributes(events: readonly { type: string; attributes: { key: string; value: string }[] }[], type: string) {
  return events
    .filter((e) => e.type === type)
    .map((e) =>
      Object.fromEntries(
        e.attributes.filter((a) => a.key !== "mode" && a.key !== "msg_index").map((a) => [a.key, a.value]),
      ),
    );
}

function delegate(from: TestKey, to: TestKey, amount: bigint): Any {
  return packAny(
    MsgDelegateSchema,
    create(MsgDelegateSchema, {
      delegatorAddress: from.bech32,
      validatorAddress: addressToBech32(to.address, "val"),
      amount: { denom: "stake", amount: amount.toString() },
    }),
  );
}

describe("proposal outcomes", () => {
  test("passing: the messages run as the gov account, deposits are refunded, status PASSED", async () => {
    const chain = await newChain();
    const before = await balance(chain, alice.address);
    const result = await submit(
      chain,
      alice,
      [await govParamsMsg(chain, { quorum: "0.200000000000000000" })],
      10_000_000n,
    );
    const id = proposalIdOf(result);
    assert.deepEqual(attributes(result.events, "submit_proposal"), [
      { proposal_id: "1", proposal_proposer: alice.bech32, proposal_messages: ",/chain.gov.v1.MsgUpdateParams" },
      { voting_period_start: "1" },
    ]);
    assert.deepEqual(attributes(result.events, "proposal_deposit"), [
      { depositor: alice.bech32, amount: "10000000stake", proposal_id: "1" },
    ]);
    const voting = await proposal(chain, id);
    assert.equal(voting.status, ProposalStatus.VOTING_PERIOD);
    assert.equal(voting.votingEndTime!.seconds - voting.votingStartTime!.seconds, BigInt(VOTING_PERIOD_MS / 1000));

    await vote(chain, val1, id, VoteOption.YES);
    const live = await chain.query(Query.method.tallyResult, { proposalId: id });
    assert.equal(live.tally?.yesCount, "10000000");
    // The live tally ran on a scratch branch: the vote is still there.
    assert.equal((await chain.query(Query.method.votes, { proposalId: id })).votes.length, 1);

    const block = await endVoting(chain);
    assert.deepEqual(attributes(block.events, "active_proposal"), [
      { proposal_id: "1", proposal_result: "proposal_passed", proposal_log: "passed" },
    ]);
    const passed = await proposal(chain, id);
    assert.equal(passed.status, ProposalStatus.PASSED);
    assert.deepEqual(
      { ...passed.finalTallyResult, $typeName: undefined },
      { $typeName: undefined, yesCount: "10000000", abstainCount: "0", noCount: "0", noWithVetoCount: "0" },
    );
    assert.equal((await chain.query(Query.method.params, { paramsType: "" })).params?.quorum, "0.200000000000000000");
    assert.equal(await balance(chain, alice.address), before);
    // Votes exist only until the tally.
    assert.equal((await chain.query(Query.method.votes, { proposalId: id })).votes.length, 0);
  });

  test("failing quorum: REJECTED, deposits refunded", async () => {
    const chain = await newChain();
    const before = await balance(chain, alice.address);
    const id = proposalIdOf(await submit(chain, alice, [await govParamsMsg(chain, { quorum: "0.2" })], 10_000_000n));
    await vote(chain, val2, id, VoteOption.YES); // 5 of 15 bonded: 33.3% < 33.4%
    const block = await endVoting(chain);
    assert.equal(attributes(block.events, "active_proposal")[0].proposal_result, "proposal_rejected");
    const rejected = await proposal(chain, id);
    assert.equal(rejected.status, ProposalStatus.REJECTED);
    assert.equal(rejected.failedReason, "proposal did not get enough votes to pass");
    assert.equal(rejected.finalTallyResult?.yesCount, "5000000");
    assert.equal(await balance(chain, alice.address), before);
    assert.equal((await chain.query(Query.method.params, { paramsType: "" })).params?.quorum, "0.334000000000000000");
  });

  test("rejected: more no than yes, deposits refunded", async () => {
    const chain = await newChain();
    const before = await balance(chain, alice.address);
    const id = proposalIdOf(await submit(chain, alice, [await govParamsMsg(chain, { quorum: "0.2" })], 10_000_000n));
    await vote(chain, val1, id, VoteOption.NO);
    await vote(chain, val2, id, VoteOption.YES);
    await endVoting(chain);
    const rejected = await proposal(chain, id);
    assert.equal(rejected.status, ProposalStatus.REJECTED);
    assert.deepEqual(
      [rejected.finalTallyResult?.yesCount, rejected.finalTallyResult?.noCount],
      ["5000000", "10000000"],
    );
    assert.equal(await balance(chain, alice.address), before);
  });

  test("vetoed: REJECTED and the deposit is burned (supply decreases)", async () => {
    const chain = await newChain();
    const before = await balance(chain, alice.address);
    const supplyBefore = await supply(chain);
    const id = proposalIdOf(await submit(chain, alice, [await govParamsMsg(chain, { quorum: "0.2" })], 10_000_000n));
    await vote(chain, val1, id, VoteOption.NO_WITH_VETO);
    await vote(chain, val2, id, VoteOption.YES);
    const block = await endVoting(chain);
    assert.equal((await proposal(chain, id)).status, ProposalStatus.REJECTED);
    assert.equal(await balance(chain, alice.address), before - 10_000_000n);
    assert.equal(await supply(chain), supplyBefore - 10_000_000n);
    assert.equal(await balance(chain, moduleAddress("gov")), 0n);
    assert.deepEqual(
      attributes(block.events, "burn").map((e) => e.amount),
      ["10000000stake"],
    );
  });

  test("a failing second message: nothing applied, status FAILED with the reason", async () => {
    const chain = await newChain();
    // Fund the gov account so that the first message (a send from it) can succeed on its own.
    const fund = packAny(
      MsgSendSchema,
      create(MsgSendSchema, { fromAddress: bob.bech32, toAddress: GOV, amount: [{ denom: "stake", amount: "7000" }] }),
    );
    assert.equal((await chain.deliver(bob, [fund])).result.code, 0);
    const payout = packAny(
      MsgSendSchema,
      create(MsgSendSchema, { fromAddress: GOV, toAddress: bob.bech32, amount: [{ denom: "stake", amount: "7000" }] }),
    );
    const badStakingParams = packAny(
      StakingMsgUpdateParamsSchema,
      create(StakingMsgUpdateParamsSchema, {
        authority: GOV,
        params: {
          unbondingTime: { seconds: 10n },
          maxValidators: 0,
          maxEntries: 7,
          bondDenom: "stake",
          minCommissionRate: "0",
        },
      }),
    );
    const quorumChange = await govParamsMsg(chain, { quorum: "0.250000000000000000" });
    const id = proposalIdOf(await submit(chain, alice, [quorumChange, payout, badStakingParams], 10_000_000n));
    await vote(chain, val1, id, VoteOption.YES);
    const bobBefore = await balance(chain, bob.address);
    const block = await endVoting(chain);

    const failed = await proposal(chain, id);
    assert.equal(failed.status, ProposalStatus.FAILED);
    assert.equal(failed.failedReason, "max validators must be positive");
    assert.deepEqual(attributes(block.events, "active_proposal"), [
      {
        proposal_id: id.toString(),
        proposal_result: "proposal_failed",
        proposal_log:
          "passed, but msg 2 (/chain.staking.v1beta1.MsgUpdateParams) failed on execution: max validators must be positive",
      },
    ]);
    // Neither the param change nor the payout happened; the deposit was refunded (the tally passed).
    assert.equal((await chain.query(Query.method.params, { paramsType: "" })).params?.quorum, "0.334000000000000000");
    assert.equal(await balance(chain, bob.address), bobBefore);
    assert.equal(await balance(chain, moduleAddress("gov")), 7000n);
    assert.equal(attributes(block.events, "transfer").filter((t) => t.recipient === bob.bech32).length, 0);
  });

  test("exactly half yes does not pass (threshold is strict); everyone abstaining fails", async () => {
    const chain = await createStakingTestChain({
      accounts: [
        { key: val1, stake: 100_000_000n },
        { key: val2, stake: 100_000_000n },
        { key: alice, stake: 100_000_000n },
      ],
      validators: [
        { key: val1, selfDelegation: 10_000_000n },
        { key: val2, selfDelegation: 10_000_000n },
      ],
      govParams: { voting_period: "20s", expedited_voting_period: "5s" },
    });
    await chain.nextBlock();
    const half = proposalIdOf(await submit(chain, alice, [await govParamsMsg(chain, {})], 10_000_000n));
    const abstained = proposalIdOf(await submit(chain, alice, [await govParamsMsg(chain, {})], 10_000_000n));
    await vote(chain, val1, half, VoteOption.YES);
    await vote(chain, val2, half, VoteOption.NO);
    await vote(chain, val1, abstained, VoteOption.ABSTAIN);
    await vote(chain, val2, abstained, VoteOption.ABSTAIN);
    await endVoting(chain);
    assert.equal((await proposal(chain, half)).status, ProposalStatus.REJECTED);
    const all = await proposal(chain, abstained);
    assert.equal(all.status, ProposalStatus.REJECTED);
    assert.equal(all.finalTallyResult?.abstainCount, "20000000");
  });

  test("an expedited proposal that fails becomes a regular one and keeps voting", async () => {
    const chain = await newChain();
    const msgs = [await govParamsMsg(chain, { quorum: "0.2" })];
    const id = proposalIdOf(await submit(chain, alice, msgs, 50_000_000n, { expedited: true }));
    const started = await proposal(chain, id);
    assert.equal(started.votingEndTime!.seconds - started.votingStartTime!.seconds, 5n);
    await vote(chain, val1, id, VoteOption.YES);
    await vote(chain, val2, id, VoteOption.NO); // 66.6% yes < 66.7% expedited threshold
    const block = await chain.nextBlock(undefined, chain.timeMs() + 6000);
    assert.equal(attributes(block.events, "active_proposal")[0].proposal_result, "expedited_proposal_rejected");
    const regular = await proposal(chain, id);
    assert.equal(regular.status, ProposalStatus.VOTING_PERIOD);
    assert.equal(regular.expedited, false);
    assert.equal(regular.votingEndTime!.seconds - regular.votingStartTime!.seconds, BigInt(VOTING_PERIOD_MS / 1000));
    // Votes were consumed by the first tally; a new round of voting decides it.
    await vote(chain, val1, id, VoteOption.YES);
    await endVoting(chain);
    assert.equal((await proposal(chain, id)).status, ProposalStatus.PASSED);
  });
});

describe("deposits", () => {
  test("below the minimum the proposal stays in DEPOSIT_PERIOD; reaching it starts voting", async () => {
    const chain = await newChain();
    const id = proposalIdOf(await submit(chain, alice, [await govParamsMsg(chain, { quorum: "0.2" })], 1_000_000n));
    const waiting = await proposal(chain, id);
    assert.equal(waiting.status, ProposalStatus.DEPOSIT_PERIOD);
    assert.equal(waiting.votingStartTime, undefined);

    const deposit = (from: TestKey, amount: string) =>
      packAny(
        MsgDepositSchema,
        create(MsgDepositSchema, { proposalId: id, depositor: from.bech32, amount: [{ denom: "stake", amount }] }),
      );
    const small = await chain.deliver(bob, [deposit(bob, "4000000")]);
    assert.equal(small.result.code, 0, small.result.log);
    assert.equal((await proposal(chain, id)).status, ProposalStatus.DEPOSIT_PERIOD);
    assert.deepEqual(attributes(small.result.events, "proposal_deposit"), [
      { depositor: bob.bech32, amount: "4000000stake", proposal_id: id.toString() },
    ]);

    const tiny = await chain.deliver(bob, [deposit(bob, "99999")]);
    assert.equal(`${tiny.result.codespace}/${tiny.result.code}`, "gov/16");
    assert.match(
      tiny.result.log,
      /received 99999stake but need at least one of the following: 100000stake: minimum deposit is too small$/,
    );

    const enough = await chain.deliver(bob, [deposit(bob, "5000000")]);
    assert.equal(enough.result.code, 0, enough.result.log);
    assert.deepEqual(attributes(enough.result.events, "proposal_deposit").at(-1), {
      voting_period_start: id.toString(),
    });
    const active = await proposal(chain, id);
    assert.equal(active.status, ProposalStatus.VOTING_PERIOD);
    assert.ok(active.votingStartTime !== undefined && active.votingEndTime !== undefined);
    assert.deepEqual(
      active.totalDeposit.map((c) => c.amount),
      ["10000000"],
    );

    const { deposit: bobs } = await chain.query(Query.method.deposit, { proposalId: id, depositor: bob.bech32 });
    assert.deepEqual(
      bobs?.amount.map((c) => c.amount),
      ["9000000"],
    );
    assert.equal((await chain.query(Query.method.deposits, { proposalId: id })).deposits.length, 2);
  });

  test("a deposit period that ends without the minimum drops the proposal and refunds", async () => {
    const chain = await newChain();
    const before = await balance(chain, alice.address);
    const id = proposalIdOf(await submit(chain, alice, [await govParamsMsg(chain, {})], 1_000_000n));
    assert.equal(await balance(chain, alice.address), before - 1_000_000n);
    const block = await chain.nextBlock(undefined, chain.timeMs() + DEPOSIT_PERIOD_MS + 1000);
    assert.deepEqual(attributes(block.events, "inactive_proposal"), [
      { proposal_id: id.toString(), proposal_result: "proposal_dropped" },
    ]);
    assert.equal(await balance(chain, alice.address), before);
    await assert.rejects(chain.query(Query.method.proposal, { proposalId: id }), /proposal 1 doesn't exist/);
  });

  test("a dropped proposal's log line names its minimum and total deposit as coin text, as upstream logs them", async () => {
    const { chain, lines } = await chainLoggingTo({ max_deposit_period: `${DEPOSIT_PERIOD_MS / 1000}s` });
    const id = proposalIdOf(
      await submit(chain, alice, [await govParamsMsg(chain, {})], 1_000_000n, { expedited: true }),
    );
    await chain.nextBlock(undefined, chain.timeMs() + DEPOSIT_PERIOD_MS + 1000);
    const line = lines.find((l) => l.msg === "proposal did not meet minimum deposit; deleted") as
      | Record<string, unknown>
      | undefined;
    assert.ok(line, "the drop is logged");
    assert.equal(line.proposal, id.toString());
    assert.equal(line.expedited, true);
    assert.equal(line.min_deposit, "50000000stake", "an expedited proposal's minimum is the expedited one");
    assert.equal(line.total_deposit, "1000000stake");
  });

  test("a tallied proposal's log line names the status as upstream's enum name, with expedited and title", async () => {
    const { chain, lines } = await chainLoggingTo({ voting_period: `${VOTING_PERIOD_MS / 1000}s` });
    const id = proposalIdOf(await submit(chain, alice, [await govParamsMsg(chain, {})], 10_000_000n, { title: "t1" }));
    await chain.nextBlock(undefined, chain.timeMs() + VOTING_PERIOD_MS + 1000);
    const line = lines.find((l) => l.msg === "proposal tallied") as Record<string, unknown> | undefined;
    assert.ok(line, "the tally is logged");
    assert.deepEqual(
      [line.proposal, line.status, line.expedited, line.title, line.results],
      [id.toString(), "PROPOSAL_STATUS_REJECTED", false, "t1", "rejected"],
    );
  });

  test("deposit errors: wrong denom, inactive proposal, unknown proposal, empty amount", async () => {
    const chain = await newChain({ burn_vote_veto: true });
    const wrong = await submit(chain, alice, [await govParamsMsg(chain, {})], "1000000atom");
    assert.equal(`${wrong.codespace}/${wrong.code}`, "gov/23");
    assert.match(
      wrong.log,
      /deposited 1000000atom, but gov accepts only the following denom\(s\): \[stake\]: invalid deposit denom$/,
    );

    const id = proposalIdOf(await submit(chain, alice, [await govParamsMsg(chain, {})], 10_000_000n));
    await vote(chain, val1, id, VoteOption.NO);
    await endVoting(chain);
    const late = await chain.deliver(bob, [
      packAny(
        MsgDepositSchema,
        create(MsgDepositSchema, {
          proposalId: id,
          depositor: bob.bech32,
          amount: [{ denom: "stake", amount: "1000000" }],
        }),
      ),
    ]);
    assert.equal(`${late.result.codespace}/${late.result.code}`, "gov/3");
    assert.match(late.result.log, /message index: 0: 1: inactive proposal$/);

    const unknown = await chain.deliver(bob, [
      packAny(
        MsgDepositSchema,
        create(MsgDepositSchema, {
          proposalId: 42n,
          depositor: bob.bech32,
          amount: [{ denom: "stake", amount: "1000000" }],
        }),
      ),
    ]);
    assert.equal(`${unknown.result.codespace}/${unknown.result.code}`, "undefined/1");
    assert.match(unknown.result.log, /not found: key '42'/);

    const empty = await chain.deliver(bob, [
      packAny(MsgDepositSchema, create(MsgDepositSchema, { proposalId: id, depositor: bob.bech32, amount: [] })),
    ]);
    assert.equal(`${empty.result.codespace}/${empty.result.code}`, "sdk/10");
  });
});

describe("votes", () => {
  test("voting on a proposal outside its voting period is `inactive proposal` (gov 3)", async () => {
    const chain = await newChain();
    const id = proposalIdOf(await submit(chain, alice, [await govParamsMsg(chain, {})], 1_000_000n));
    const { result } = await chain.deliver(val1, [voteMsg(val1, id, VoteOption.YES)]);
    assert.equal(`${result.codespace}/${result.code}`, "gov/3");
    assert.equal(result.log, "failed to execute message; message index: 0: 1: inactive proposal");
    const missing = await chain.deliver(val1, [voteMsg(val1, 77n, VoteOption.YES)]);
    assert.equal(missing.result.log, "failed to execute message; message index: 0: 77: inactive proposal");
    const bad = await chain.deliver(val1, [voteMsg(val1, id, VoteOption.UNSPECIFIED)]);
    assert.equal(`${bad.result.codespace}/${bad.result.code}`, "gov/7");
    assert.match(bad.result.log, /VOTE_OPTION_UNSPECIFIED: invalid vote option$/);
  });

  test("weighted vote splits the voter's power; bad weights are refused", async () => {
    const chain = await newChain();
    const id = proposalIdOf(await submit(chain, alice, [await govParamsMsg(chain, {})], 10_000_000n));
    const weighted = (options: { option: VoteOption; weight: string }[]) =>
      packAny(MsgVoteWeightedSchema, create(MsgVoteWeightedSchema, { proposalId: id, voter: val1.bech32, options }));

    const overflow = await chain.deliver(val1, [
      weighted([
        { option: VoteOption.YES, weight: "0.7" },
        { option: VoteOption.NO, weight: "0.4" },
      ]),
    ]);
    assert.match(overflow.result.log, /total weight overflow 1.00: invalid vote option$/);
    const under = await chain.deliver(val1, [weighted([{ option: VoteOption.YES, weight: "0.5" }])]);
    assert.match(under.result.log, /total weight lower than 1.00: invalid vote option$/);
    const dup = await chain.deliver(val1, [
      weighted([
        { option: VoteOption.YES, weight: "0.5" },
        { option: VoteOption.YES, weight: "0.5" },
      ]),
    ]);
    assert.match(dup.result.log, /duplicated vote option: invalid vote option$/);
    const badWeight = await chain.deliver(val1, [weighted([{ option: VoteOption.YES, weight: "abc" }])]);
    assert.equal(`${badWeight.result.codespace}/${badWeight.result.code}`, "gov/7");
    // Upstream's LegacyNewDecFromStr refuses these forms of a weight too.
    for (const weight of [" 1", "1.", ".9", ""]) {
      const odd = await chain.deliver(val1, [weighted([{ option: VoteOption.YES, weight }])]);
      assert.equal(`${odd.result.codespace}/${odd.result.code}`, "gov/7", JSON.stringify(weight));
    }
    const none = await chain.deliver(val1, [weighted([])]);
    assert.equal(`${none.result.codespace}/${none.result.code}`, "sdk/18");

    const ok = await chain.deliver(val1, [
      weighted([
        { option: VoteOption.YES, weight: "0.6" },
        { option: VoteOption.NO, weight: "0.4" },
      ]),
    ]);
    assert.equal(ok.result.code, 0, ok.result.log);
    assert.deepEqual(attributes(ok.result.events, "proposal_vote"), [
      {
        voter: val1.bech32,
        option: 'option:VOTE_OPTION_YES weight:"0.6" \noption:VOTE_OPTION_NO weight:"0.4"',
        proposal_id: "1",
      },
    ]);
    const { vote: stored } = await chain.query(Query.method.vote, { proposalId: id, voter: val1.bech32 });
    assert.deepEqual(
      stored?.options.map((o) => [o.option, o.weight]),
      [
        [VoteOption.YES, "0.6"],
        [VoteOption.NO, "0.4"],
      ],
    );
    const { tally } = await chain.query(Query.method.tallyResult, { proposalId: id });
    assert.deepEqual([tally?.yesCount, tally?.noCount], ["6000000", "4000000"]);
  });

  test("delegators inherit their validator's vote unless they vote themselves", async () => {
    const chain = await newChain();
    assert.equal((await chain.deliver(alice, [delegate(alice, val1, 6_000_000n)])).result.code, 0);
    assert.equal((await chain.deliver(bob, [delegate(bob, val1, 4_000_000n)])).result.code, 0);
    const id = proposalIdOf(await submit(chain, alice, [await govParamsMsg(chain, {})], 10_000_000n));
    await vote(chain, val1, id, VoteOption.YES); // val1's 10M and bob's 4M (inherited)
    await vote(chain, alice, id, VoteOption.NO); // alice overrides for her 6M
    const { tally } = await chain.query(Query.method.tallyResult, { proposalId: id });
    assert.deepEqual([tally?.yesCount, tally?.noCount], ["14000000", "6000000"]);
    await endVoting(chain);
    assert.equal((await proposal(chain, id)).status, ProposalStatus.PASSED);

    // When the validator does not vote, only its delegators who voted count (alice's 6M is lost).
    const second = proposalIdOf(await submit(chain, alice, [await govParamsMsg(chain, {})], 10_000_000n));
    await vote(chain, val2, second, VoteOption.NO);
    await vote(chain, bob, second, VoteOption.YES);
    const t2 = (await chain.query(Query.method.tallyResult, { proposalId: second })).tally;
    assert.deepEqual([t2?.yesCount, t2?.noCount], ["4000000", "5000000"]);
  });
});

describe("submission checks", () => {
  test("validation errors carry upstream codes and texts", async () => {
    const chain = await newChain();
    const good = await govParamsMsg(chain, {});
    const fromAlice = packAny(
      MsgUpdateParamsSchema,
      create(MsgUpdateParamsSchema, {
        authority: alice.bech32,
        params: (await chain.query(Query.method.params, { paramsType: "" })).params,
      }),
    );
    const aliceSend = packAny(
      MsgSendSchema,
      create(MsgSendSchema, {
        fromAddress: alice.bech32,
        toAddress: bob.bech32,
        amount: [{ denom: "stake", amount: "1" }],
      }),
    );
    const cases: { msg: Any; expect: string; log: RegExp }[] = [
      {
        msg: submitMsg(alice, [good], 1_000_000n, { title: "" }),
        expect: "sdk/18",
        log: /proposal title cannot be empty: invalid request$/,
      },
      {
        msg: submitMsg(alice, [good], 1_000_000n, { summary: "" }),
        expect: "sdk/18",
        log: /proposal summary cannot be empty: invalid request$/,
      },
      {
        msg: submitMsg(alice, [], 1_000_000n),
        expect: "gov/11",
        log: /either metadata or Msgs length must be non-nil: no messages proposed$/,
      },
      {
        msg: submitMsg(alice, [aliceSend], 1_000_000n),
        expect: "gov/13",
        log: new RegExp(`${alice.bech32}: expected authority account as only signer for proposal message$`),
      },
      {
        msg: submitMsg(alice, [fromAlice], 1_000_000n),
        expect: "gov/13",
        log: /expected authority account as only signer for proposal message$/,
      },
      {
        msg: submitMsg(
          alice,
          [{ $typeName: "google.protobuf.Any", typeUrl: "/chain.gov.v1.Deposit", value: new Uint8Array() }],
          1_000_000n,
        ),
        expect: "gov/10",
        log: /\/chain.gov.v1.Deposit: proposal message not recognized by router$/,
      },
      {
        msg: submitMsg(alice, [good], 1_000_000n, { metadata: "m".repeat(256) }),
        expect: "gov/15",
        log: /got metadata with length 256: metadata too long$/,
      },
      {
        msg: submitMsg(alice, [good], 1_000_000n, { title: "t".repeat(256) }),
        expect: "gov/15",
        log: /got metadata with length 256: metadata too long$/,
      },
      {
        msg: submitMsg(alice, [good], 1_000_000n, { summary: "s".repeat(10_201) }),
        expect: "gov/22",
        log: /got summary with length 10201: summary too long$/,
      },
      {
        msg: submitMsg(alice, [good], 1_000_000n, { metadata: JSON.stringify({ title: "Other", summary: "Summary" }) }),
        expect: "gov/5",
        log: /metadata title 'Other' must equal proposal title 'Title': invalid proposal content$/,
      },
      {
        msg: submitMsg(alice, [good], 50_000n),
        expect: "gov/16",
        log: /received 50000stake but need at least one of the following: 100000stake: minimum deposit is too small$/,
      },
    ];
    for (const c of cases) {
      const { result } = await chain.deliver(alice, [c.msg]);
      assert.equal(`${result.codespace}/${result.code}`, c.expect, result.log);
      assert.match(result.log, c.log);
    }
    // Free-form metadata is accepted.
    const ok = await chain.deliver(alice, [submitMsg(alice, [good], 1_000_000n, { metadata: "ipfs://CID" })]);
    assert.equal(ok.result.code, 0, ok.result.log);
  });

  test("min_initial_deposit_ratio rejects a small initial deposit", async () => {
    const chain = await newChain({ min_initial_deposit_ratio: "0.500000000000000000" });
    const result = await submit(chain, alice, [await govParamsMsg(chain, {})], 1_000_000n);
    assert.equal(`${result.codespace}/${result.code}`, "gov/16");
    assert.match(result.log, /was \(1000000stake\), need \(5000000stake\): minimum deposit is too small$/);
  });

  test("MsgUpdateParams from a user fails with the authority error; invalid params are refused", async () => {
    const chain = await newChain();
    const { params } = await chain.query(Query.method.params, { paramsType: "" });
    const msg = packAny(MsgUpdateParamsSchema, create(MsgUpdateParamsSchema, { authority: alice.bech32, params }));
    const { result } = await chain.deliver(alice, [msg]);
    assert.equal(`${result.codespace}/${result.code}`, "gov/13");
    assert.match(result.log, new RegExp(`invalid authority; expected ${GOV}, got ${alice.bech32}: expected authority`));
  });
});

describe("cancel", () => {
  test("the proposer cancels: half the deposit burned, the rest refunded, proposal gone", async () => {
    const chain = await newChain();
    const before = await balance(chain, alice.address);
    const id = proposalIdOf(await submit(chain, alice, [await govParamsMsg(chain, {})], 1_000_000n));
    const cancel = (who: TestKey) =>
      packAny(MsgCancelProposalSchema, create(MsgCancelProposalSchema, { proposalId: id, proposer: who.bech32 }));
    const wrong = await chain.deliver(bob, [cancel(bob)]);
    assert.equal(`${wrong.result.codespace}/${wrong.result.code}`, "gov/18");
    assert.match(wrong.result.log, /invalid proposer .*: invalid proposer$/);
    const ok = await chain.deliver(alice, [cancel(alice)]);
    assert.equal(ok.result.code, 0, ok.result.log);
    assert.equal(await balance(chain, alice.address), before - 500_000n);
    await assert.rejects(chain.query(Query.method.proposal, { proposalId: id }), /doesn't exist/);
  });
});

describe("queries", () => {
  test("proposals grow with history: a limit above 100 gets a page of 100 and the key of the next", async () => {
    // Long deposit periods keep all 101 proposals (the deposit below the minimum leaves them there).
    const chain = await newChain({ max_deposit_period: "1000000s" });
    const msg = await govParamsMsg(chain, {});
    for (let i = 0; i < 101; i++) {
      const result = await submit(chain, alice, [msg], 100_000n);
      assert.equal(result.code, 0, result.log);
    }
    const page = await chain.query(Query.method.proposals, { pagination: { limit: 1_000_000n, countTotal: true } });
    assert.equal(page.proposals.length, 100);
    assert.equal(page.pagination?.total, 101n);
    assert.ok((page.pagination?.nextKey.length ?? 0) > 0, "no next_key after a capped page");
    const rest = await chain.query(Query.method.proposals, { pagination: { key: page.pagination!.nextKey } });
    assert.equal(rest.proposals.length, 1);
  });

  test("proposals with status, voter and depositor filters and pagination; params views; errors", async () => {
    const chain = await newChain();
    const a = proposalIdOf(await submit(chain, alice, [await govParamsMsg(chain, {})], 10_000_000n));
    const b = proposalIdOf(await submit(chain, bob, [await govParamsMsg(chain, {})], 1_000_000n));
    const c = proposalIdOf(await submit(chain, alice, [await govParamsMsg(chain, {})], 10_000_000n));
    await vote(chain, val1, c, VoteOption.YES);

    const ids = async (
      request: Parameters<
        typeof chain.query<typeof Query.method.proposals.input, typeof Query.method.proposals.output>
      >[1],
    ) => (await chain.query(Query.method.proposals, request)).proposals.map((p) => p.id);
    assert.deepEqual(await ids({}), [a, b, c]);
    assert.deepEqual(await ids({ proposalStatus: ProposalStatus.VOTING_PERIOD }), [a, c]);
    assert.deepEqual(await ids({ proposalStatus: ProposalStatus.DEPOSIT_PERIOD }), [b]);
    assert.deepEqual(await ids({ depositor: bob.bech32 }), [b]);
    assert.deepEqual(await ids({ voter: val1.bech32 }), [c]);
    const page = await chain.query(Query.method.proposals, { pagination: { limit: 2n, countTotal: true } });
    assert.deepEqual(
      page.proposals.map((p) => p.id),
      [a, b],
    );
    assert.equal(page.pagination?.total, 3n);
    const next = await chain.query(Query.method.proposals, {
      pagination: { key: page.pagination!.nextKey, limit: 2n },
    });
    assert.deepEqual(
      next.proposals.map((p) => p.id),
      [c],
    );

    const voting = await chain.query(Query.method.params, { paramsType: "voting" });
    assert.equal(voting.votingParams?.votingPeriod?.seconds, 20n);
    assert.ok(voting.params !== undefined);
    const tallying = await chain.query(Query.method.params, { paramsType: "tallying" });
    assert.equal(tallying.tallyParams?.quorum, "0.334000000000000000");
    const deposit = await chain.query(Query.method.params, { paramsType: "deposit" });
    assert.deepEqual(
      deposit.depositParams?.minDeposit.map((x) => x.amount),
      ["10000000"],
    );
    await assert.rejects(chain.query(Query.method.params, { paramsType: "bogus" }), /unknown params type: bogus/);
    await assert.rejects(chain.query(Query.method.proposal, { proposalId: 0n }), /proposal id can not be 0/);
    await assert.rejects(chain.query(Query.method.proposal, { proposalId: 9n }), /proposal 9 doesn't exist/);
    await assert.rejects(
      chain.query(Query.method.vote, { proposalId: a, voter: bob.bech32 }),
      /voter: .* not found for proposal: 1/,
    );
    await assert.rejects(
      chain.query(Query.method.deposit, { proposalId: a, depositor: bob.bech32 }),
      /depositer: .* not found for proposal: 1/,
    );
    assert.equal((await chain.query(Query.method.tallyResult, { proposalId: b })).tally?.yesCount, "0");
    assert.equal((await chain.query(Query.method.constitution, {})).constitution, "");
  });
});

/** Alice and one validator, gov params overridden (expedited voting 5 s), the app's log lines captured. */
async function chainLoggingTo(govParams: Record<string, string>) {
  const { logger, lines } = captureLogger();
  const chain = await createStakingTestChain({
    accounts: [
      { key: val1, stake: 100_000_000n },
      { key: alice, stake: 100_000_000n },
    ],
    validators: [{ key: val1, selfDelegation: 10_000_000n }],
    govParams: { ...govParams, expedited_voting_period: "5s" },
    logger,
  });
  await chain.nextBlock();
  return { chain, lines };
}
