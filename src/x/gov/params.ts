// Gov params: upstream v0.50 defaults and Params.ValidateBasic (x/gov/types/v1/params.go).
import { create } from "@bufbuild/protobuf";
import { type Duration, DurationSchema } from "@bufbuild/protobuf/wkt";
import { type Coin, coinsFromProto, coinsToString, isAllGTE, isValidCoins } from "../../app/coins.ts";
import { DEC_ONE, formatDecimal, parseDecimalInput } from "../../app/dec.ts";
import { durationNanos } from "../../app/time.ts";
import { decodeBech32 } from "../../crypto/index.ts";
import { UserError } from "../../errors/user-error.ts";
import { type Params, ParamsSchema } from "../../gen/chain/gov/v1/gov_pb.js";

/** The denom of the default deposits (the default bond denom). */
export const DEFAULT_GOV_DENOM = "stake";

const HOURS_48 = 172_800n;
const HOURS_24 = 86_400n;

/** Module configuration upstream keeps outside params (x/gov config). */
export interface GovConfig {
  /** Longest metadata, title and vote/deposit metadata (bytes); default 255. */
  maxMetadataLen: number;
  /** Longest summary (bytes); default 40 × 255 = 10200. */
  maxSummaryLen: number;
}

/** Upstream's defaults. */
export const DEFAULT_GOV_CONFIG: Readonly<GovConfig> = Object.freeze({ maxMetadataLen: 255, maxSummaryLen: 10_200 });

/**
 * Upstream's default params: min deposit 10000000stake (expedited 50000000stake), 48 h deposit and
 * voting periods (24 h expedited), quorum 0.334, threshold 0.5 (0.667 expedited), veto 0.334,
 * min_deposit_ratio 0.01, vetoed deposits burned.
 */
export function defaultGovParams(denom = DEFAULT_GOV_DENOM): Params {
  return create(ParamsSchema, {
    minDeposit: [{ denom, amount: "10000000" }],
    maxDepositPeriod: create(DurationSchema, { seconds: HOURS_48 }),
    votingPeriod: create(DurationSchema, { seconds: HOURS_48 }),
    quorum: "0.334000000000000000",
    threshold: "0.500000000000000000",
    vetoThreshold: "0.334000000000000000",
    minInitialDepositRatio: "0.000000000000000000",
    proposalCancelRatio: "0.500000000000000000",
    proposalCancelDest: "",
    expeditedVotingPeriod: create(DurationSchema, { seconds: HOURS_24 }),
    expeditedThreshold: "0.667000000000000000",
    expeditedMinDeposit: [{ denom, amount: "50000000" }],
    burnVoteQuorum: false,
    burnProposalDepositPrevote: false,
    burnVoteVeto: true,
    minDepositRatio: "0.010000000000000000",
  });
}

/** Thrown by validateGovParams; the message is upstream's. */
export class GovParamsError extends UserError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "GovParamsError";
  }
}

/** Upstream Params.ValidateBasic, in upstream's order and with its texts. */
export function validateGovParams(params: Params): void {
  const minDeposit = safeCoins(params.minDeposit);
  if (minDeposit === undefined || minDeposit.length === 0 || !isValidCoins(minDeposit)) {
    throw new GovParamsError(`invalid minimum deposit: ${coinsText(params.minDeposit)}`);
  }
  const expedited = safeCoins(params.expeditedMinDeposit);
  if (expedited === undefined || expedited.length === 0 || !isValidCoins(expedited)) {
    throw new GovParamsError(`invalid expedited minimum deposit: ${coinsText(params.expeditedMinDeposit)}`);
  }
  if (isAllLTE(expedited, minDeposit)) {
    throw new GovParamsError(
      `expedited minimum deposit must be greater than minimum deposit: ${coinsToString(expedited)}`,
    );
  }
  if (params.maxDepositPeriod === undefined) throw new GovParamsError("maximum deposit period must not be nil: 0");
  if (durationNanos(params.maxDepositPeriod) <= 0n) {
    throw new GovParamsError(`maximum deposit period must be positive: ${durationText(params.maxDepositPeriod)}`);
  }

  const quorum = dec(params.quorum, "invalid quorum string");
  if (quorum < 0n) throw new GovParamsError(`quorom cannot be negative: ${formatDecimal(quorum)}`);
  if (quorum > DEC_ONE) throw new GovParamsError(`quorom too large: ${params.quorum}`);

  const threshold = dec(params.threshold, "invalid threshold string");
  if (threshold <= 0n) throw new GovParamsError(`vote threshold must be positive: ${formatDecimal(threshold)}`);
  if (threshold > DEC_ONE) throw new GovParamsError(`vote threshold too large: ${formatDecimal(threshold)}`);

  const expeditedThreshold = dec(params.expeditedThreshold, "invalid expedited threshold string");
  if (expeditedThreshold <= 0n) {
    throw new GovParamsError(`expedited vote threshold must be positive: ${formatDecimal(expeditedThreshold)}`);
  }
  if (expeditedThreshold > DEC_ONE) {
    throw new GovParamsError(`expedited vote threshold too large: ${formatDecimal(expeditedThreshold)}`);
  }
  if (expeditedThreshold <= threshold) {
    throw new GovParamsError(
      `expedited vote threshold ${formatDecimal(expeditedThreshold)}, must be greater than the regular threshold ${formatDecimal(threshold)}`,
    );
  }

  const veto = dec(params.vetoThreshold, "invalid vetoThreshold string");
  if (veto <= 0n) throw new GovParamsError(`veto threshold must be positive: ${formatDecimal(veto)}`);
  if (veto > DEC_ONE) throw new GovParamsError(`veto threshold too large: ${formatDecimal(veto)}`);

  if (params.votingPeriod === undefined) throw new GovParamsError("voting period must not be nil: 0");
  if (durationNanos(params.votingPeriod) <= 0n) {
    throw new GovParamsError(`voting period must be positive: ${durationText(params.votingPeriod)}`);
  }
  if (params.expeditedVotingPeriod === undefined)
    throw new GovParamsError("expedited voting period must not be nil: 0");
  if (durationNanos(params.expeditedVotingPeriod) <= 0n) {
    throw new GovParamsError(`expedited voting period must be positive: ${durationText(params.expeditedVotingPeriod)}`);
  }
  if (durationNanos(params.expeditedVotingPeriod) >= durationNanos(params.votingPeriod)) {
    throw new GovParamsError(
      `expedited voting period ${durationText(params.expeditedVotingPeriod)} must be strictly less that the regular voting period ${durationText(params.votingPeriod)}`,
    );
  }

  ratio(params.minInitialDepositRatio, "mininum initial deposit ratio of proposal");
  ratio(params.proposalCancelRatio, "burn rate of cancel proposal");
  if (params.proposalCancelDest !== "") {
    try {
      decodeBech32(params.proposalCancelDest);
    } catch {
      throw new GovParamsError(`deposits destination address is invalid: ${params.proposalCancelDest}`);
    }
  }
  ratio(params.minDepositRatio, "mininum deposit ratio of proposal");
}

/** The deposit that moves a proposal into voting: the expedited or the regular minimum. */
export function minDepositOf(params: Params, expedited: boolean): Coin[] {
  return coinsFromProto(expedited ? params.expeditedMinDeposit : params.minDeposit);
}

function ratio(text: string, what: string): void {
  let value: bigint;
  try {
    // "" stays 0: these ratios came in v0.50 and a genesis written before them leaves them out (an unset field).
    value = text === "" ? 0n : parseDecimalInput(text);
  } catch (err) {
    throw new GovParamsError(`invalid ${what}: ${(err as Error).message}`, { cause: err });
  }
  if (value < 0n) throw new GovParamsError(`${what} must be positive: ${formatDecimal(value)}`);
  if (value > DEC_ONE) throw new GovParamsError(`${what} is too large: ${formatDecimal(value)}`);
}

function dec(text: string, context: string): bigint {
  try {
    return parseDecimalInput(text);
  } catch (err) {
    throw new GovParamsError(`${context}: ${(err as Error).message}`, { cause: err });
  }
}

function safeCoins(coins: readonly { denom: string; amount: string }[]): Coin[] | undefined {
  try {
    return coinsFromProto(coins);
  } catch {
    return undefined;
  }
}

function coinsText(coins: readonly { denom: string; amount: string }[]): string {
  return coins.map((coin) => `${coin.amount}${coin.denom}`).join(",");
}

// Upstream Coins.IsAllLTE: every coin of `a` is ≤ the same denom in `b`.
function isAllLTE(a: readonly Coin[], b: readonly Coin[]): boolean {
  return isAllGTE(b, a);
}

function durationText(duration: Duration): string {
  const nanos = durationNanos(duration);
  return `${nanos / 1_000_000_000n}s`;
}
