// Vote options: validity (upstream ValidVoteOption / ValidWeightedVoteOption) and the text forms
// upstream prints in errors and in the proposal_vote event (Go's compact proto text).

import { DEC_ONE, parseDecimalInput } from "../../app/dec.ts";
import { VoteOption, VoteOptionSchema, type WeightedVoteOption } from "../../gen/chain/gov/v1/gov_pb.js";

/** `VOTE_OPTION_YES`, or the bare number for a value outside the enum (as Go prints it). */
export function voteOptionName(option: number): string {
  const value = VoteOptionSchema.values.find((v) => v.number === option);
  return value === undefined ? String(option) : value.name;
}

/** True for YES, ABSTAIN, NO and NO_WITH_VETO. */
export function isValidVoteOption(option: number): boolean {
  return (
    option === VoteOption.YES ||
    option === VoteOption.ABSTAIN ||
    option === VoteOption.NO ||
    option === VoteOption.NO_WITH_VETO
  );
}

/** A valid option with a decimal weight in (0, 1]. */
export function isValidWeightedOption(option: WeightedVoteOption): boolean {
  let weight: bigint;
  try {
    // A vote's weight is the sender's text (a plain string field): upstream's strict parse, "" refused.
    weight = parseDecimalInput(option.weight);
  } catch {
    return false;
  }
  if (weight <= 0n || weight > DEC_ONE) return false;
  return isValidVoteOption(option.option);
}

/** `option:VOTE_OPTION_YES weight:"0.5" ` — upstream's WeightedVoteOption.String() (trailing space included). */
export function weightedOptionText(option: WeightedVoteOption): string {
  return `option:${voteOptionName(option.option)} weight:${JSON.stringify(option.weight)} `;
}

/**
 * Parses `yes`, `no`, `abstain`, `no_with_veto` (or `VOTE_OPTION_YES` …), case-insensitively; also upstream CLI's
 * other spellings of no_with_veto, `NoWithVeto` and `no-with-veto`.
 */
export function parseVoteOption(text: string): VoteOption | undefined {
  let normalized = text.trim().toUpperCase().replaceAll("-", "_");
  if (normalized === "NOWITHVETO") normalized = "NO_WITH_VETO";
  const name = normalized.startsWith("VOTE_OPTION_") ? normalized : `VOTE_OPTION_${normalized}`;
  const value = VoteOptionSchema.values.find((v) => v.name === name);
  if (value === undefined || !isValidVoteOption(value.number)) return undefined;
  return value.number as VoteOption;
}
