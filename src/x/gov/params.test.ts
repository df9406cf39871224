import assert from "node:assert/strict";
import { test } from "node:test";
import { create } from "@bufbuild/protobuf";
import { ParamsSchema, VoteOption, WeightedVoteOptionSchema } from "../../gen/chain/gov/v1/gov_pb.js";
import { defaultGovParams, validateGovParams } from "./params.ts";
import { parseVoteOption, weightedOptionText } from "./vote-options.ts";

test("the default params are upstream's and valid", () => {
  const params = defaultGovParams();
  validateGovParams(params);
  assert.deepEqual(
    {
      minDeposit: params.minDeposit.map((c) => `${c.amount}${c.denom}`),
      maxDepositPeriod: params.maxDepositPeriod?.seconds,
      votingPeriod: params.votingPeriod?.seconds,
      quorum: params.quorum,
      threshold: params.threshold,
      veto: params.vetoThreshold,
      burnVoteVeto: params.burnVoteVeto,
      burnPrevote: params.burnProposalDepositPrevote,
      minInitialDepositRatio: params.minInitialDepositRatio,
      expedited: params.expeditedMinDeposit.map((c) => `${c.amount}${c.denom}`),
    },
    {
      minDeposit: ["10000000stake"],
      maxDepositPeriod: 172800n,
      votingPeriod: 172800n,
      quorum: "0.334000000000000000",
      threshold: "0.500000000000000000",
      veto: "0.334000000000000000",
      burnVoteVeto: true,
      burnPrevote: false,
      minInitialDepositRatio: "0.000000000000000000",
      expedited: ["50000000stake"],
    },
  );
});

test("invalid params are refused with upstream's texts", () => {
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ minDeposit: [] }, /^invalid minimum deposit: $/],
    [
      { expeditedMinDeposit: [{ denom: "stake", amount: "10" }] },
      /expedited minimum deposit must be greater than minimum deposit: 10stake/,
    ],
    [{ quorum: "1.5" }, /^quorom too large: 1.5$/],
    [{ quorum: "abc" }, /^invalid quorum string: /],
    [{ threshold: "0" }, /^vote threshold must be positive: 0.000000000000000000$/],
    [
      { expeditedThreshold: "0.4" },
      /expedited vote threshold 0.400000000000000000, must be greater than the regular threshold 0.500000000000000000/,
    ],
    [{ vetoThreshold: "0" }, /^veto threshold must be positive/],
    [{ votingPeriod: { seconds: 0n } }, /^voting period must be positive: 0s$/],
    [{ expeditedVotingPeriod: { seconds: 172800n } }, /must be strictly less that the regular voting period 172800s$/],
    [{ proposalCancelDest: "nope" }, /^deposits destination address is invalid: nope$/],
    [{ minDepositRatio: "2" }, /mininum deposit ratio of proposal is too large/],
  ];
  for (const [change, expected] of cases) {
    const params = create(ParamsSchema, { ...defaultGovParams(), ...change });
    assert.throws(
      () => validateGovParams(params),
      { message: expected },
      JSON.stringify(change, (_k, v) => (typeof v === "bigint" ? `${v}` : v)),
    );
  }
});

test("vote option texts and parsing", () => {
  assert.equal(
    weightedOptionText(create(WeightedVoteOptionSchema, { option: VoteOption.YES, weight: "0.5" })),
    'option:VOTE_OPTION_YES weight:"0.5" ',
  );
  assert.equal(
    weightedOptionText(create(WeightedVoteOptionSchema, { option: 9 as VoteOption, weight: "1" })),
    'option:9 weight:"1" ',
  );
  assert.equal(parseVoteOption("yes"), VoteOption.YES);
  assert.equal(parseVoteOption("No_With_Veto"), VoteOption.NO_WITH_VETO);
  assert.equal(parseVoteOption("VOTE_OPTION_ABSTAIN"), VoteOption.ABSTAIN);
  // Upstream's CLI (NormalizeVoteOption) also takes these spellings of no_with_veto.
  assert.equal(parseVoteOption("NoWithVeto"), VoteOption.NO_WITH_VETO);
  assert.equal(parseVoteOption("no-with-veto"), VoteOption.NO_WITH_VETO);
  assert.equal(parseVoteOption("unspecified"), undefined);
  assert.equal(parseVoteOption("maybe"), undefined);
});
