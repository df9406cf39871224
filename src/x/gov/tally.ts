// The tally (upstream x/gov/keeper/tally.go, v0.50): bonded validators' power, votes weighted by
// delegated shares, validators' votes inherited by the delegators who did not vote, then quorum,
// veto and threshold. Votes are deleted as they are counted (run it on a branch to peek).
import { create } from "@bufbuild/protobuf";
import type { Context } from "../../app/context.ts";
import { DEC_ONE, mulDec, parseDecimal, quoDec, truncateDec } from "../../app/dec.ts";
import { toHex } from "../../bytes/hex.ts";
import {
  type Proposal,
  type TallyResult,
  TallyResultSchema,
  VoteOption,
  type WeightedVoteOption,
} from "../../gen/chain/gov/v1/gov_pb.js";
import type { GovKeeper } from "./keeper.ts";

/** What the tally decides. */
export interface TallyOutcome {
  passes: boolean;
  /** Whether the deposits are burned (veto, or quorum failure with burn_vote_quorum). */
  burnDeposits: boolean;
  tallyResult: TallyResult;
}

interface ValidatorGovInfo {
  bondedTokens: bigint;
  delegatorShares: bigint;
  deductions: bigint;
  vote: readonly WeightedVoteOption[];
}

/** Tallies `proposal` (see the file comment); deletes its votes from `ctx`'s state. */
export async function tally(ctx: Context, keeper: GovKeeper, proposal: Proposal): Promise<TallyOutcome> {
  const validators = new Map<string, ValidatorGovInfo>();
  for await (const validator of keeper.stakingKeeper.iterateBondedValidatorsByPower(ctx)) {
    validators.set(toHex(validator.operator), {
      bondedTokens: validator.bondedTokens,
      delegatorShares: validator.delegatorShares,
      deductions: 0n,
      vote: [],
    });
  }

  const results = new Map<number, bigint>([
    [VoteOption.YES, 0n],
    [VoteOption.ABSTAIN, 0n],
    [VoteOption.NO, 0n],
    [VoteOption.NO_WITH_VETO, 0n],
  ]);
  let totalVotingPower = 0n;
  const addWeighted = (power: bigint, options: readonly WeightedVoteOption[]): void => {
    for (const option of options) {
      const weighted = mulDec(power, parseDecimal(option.weight));
      results.set(option.option, (results.get(option.option) ?? 0n) + weighted);
    }
  };

  for (const { voter, vote } of await keeper.getVotes(ctx, proposal.id)) {
    // A voter whose 20 bytes are a bonded validator's operator address votes for that validator.
    const asValidator = validators.get(toHex(voter));
    if (asValidator !== undefined) asValidator.vote = vote.options;

    for await (const delegation of keeper.stakingKeeper.iterateDelegations(ctx, voter)) {
      const validator = validators.get(toHex(delegation.validator));
      if (validator === undefined) continue;
      validator.deductions += delegation.shares;
      const power = sharePower(delegation.shares, validator);
      addWeighted(power, vote.options);
      totalVotingPower += power;
    }
    keeper.deleteVote(ctx, proposal.id, voter);
  }

  // Validators that voted carry the shares of every delegator that did not vote itself.
  for (const validator of validators.values()) {
    if (validator.vote.length === 0) continue;
    const power = sharePower(validator.delegatorShares - validator.deductions, validator);
    addWeighted(power, validator.vote);
    totalVotingPower += power;
  }

  const params = await keeper.getParams(ctx);
  const tallyResult = create(TallyResultSchema, {
    yesCount: truncateDec(results.get(VoteOption.YES) ?? 0n).toString(),
    abstainCount: truncateDec(results.get(VoteOption.ABSTAIN) ?? 0n).toString(),
    noCount: truncateDec(results.get(VoteOption.NO) ?? 0n).toString(),
    noWithVetoCount: truncateDec(results.get(VoteOption.NO_WITH_VETO) ?? 0n).toString(),
  });

  const totalBonded = await keeper.stakingKeeper.totalBondedTokens(ctx);
  if (totalBonded === 0n) return { passes: false, burnDeposits: false, tallyResult };

  const percentVoting = quoDec(totalVotingPower, totalBonded * DEC_ONE);
  if (percentVoting < parseDecimal(params.quorum)) {
    return { passes: false, burnDeposits: params.burnVoteQuorum, tallyResult };
  }
  const abstain = results.get(VoteOption.ABSTAIN) ?? 0n;
  if (totalVotingPower - abstain === 0n) return { passes: false, burnDeposits: false, tallyResult };

  const veto = results.get(VoteOption.NO_WITH_VETO) ?? 0n;
  if (quoDec(veto, totalVotingPower) > parseDecimal(params.vetoThreshold)) {
    return { passes: false, burnDeposits: params.burnVoteVeto, tallyResult };
  }
  const threshold = parseDecimal(proposal.expedited ? params.expeditedThreshold : params.threshold);
  const yes = results.get(VoteOption.YES) ?? 0n;
  if (quoDec(yes, totalVotingPower - abstain) > threshold) return { passes: true, burnDeposits: false, tallyResult };
  return { passes: false, burnDeposits: false, tallyResult };
}

// shares × bonded tokens / delegator shares (upstream: MulInt then Quo).
function sharePower(shares: bigint, validator: ValidatorGovInfo): bigint {
  if (validator.delegatorShares === 0n) return 0n;
  return quoDec(shares * validator.bondedTokens, validator.delegatorShares);
}
