// Staking params: upstream v0.50 defaults and validation (x/staking/types/params.go).
import { create } from "@bufbuild/protobuf";
import { DurationSchema } from "@bufbuild/protobuf/wkt";
import { isValidDenom } from "../../app/coins.ts";
import { DEC_ONE, formatDecimal, parseDecimalInput } from "../../app/dec.ts";
import { durationNanos } from "../../app/time.ts";
import { UserError } from "../../errors/user-error.ts";
import { type Params, ParamsSchema } from "../../gen/chain/staking/v1beta1/staking_pb.js";

/** The default bond denom (docs/CONTRACT.md §1). */
export const DEFAULT_BOND_DENOM = "stake";
/** Tokens per unit of consensus power (upstream DefaultPowerReduction). */
export const DEFAULT_POWER_REDUCTION = 1_000_000n;

/** Upstream's defaults: 21 days unbonding, 100 validators, 7 entries, 10000 historical entries, bond denom `stake`. */
export function defaultStakingParams(): Params {
  return create(ParamsSchema, {
    unbondingTime: create(DurationSchema, { seconds: 1_814_400n, nanos: 0 }),
    maxValidators: 100,
    maxEntries: 7,
    historicalEntries: 10_000,
    bondDenom: DEFAULT_BOND_DENOM,
    minCommissionRate: formatDecimal(0n),
  });
}

/** Throws an Error saying which param is wrong (upstream Params.Validate texts). */
export function validateStakingParams(params: Params): void {
  if (durationNanos(params.unbondingTime) <= 0n) {
    throw new StakingParamsError(`unbonding time must be positive: ${durationNanos(params.unbondingTime)}`);
  }
  if (params.maxValidators === 0) throw new StakingParamsError("max validators must be positive");
  if (params.maxEntries === 0) throw new StakingParamsError("max entries must be positive");
  if (params.bondDenom.trim() === "") throw new StakingParamsError("bond denom cannot be blank");
  if (!isValidDenom(params.bondDenom)) throw new StakingParamsError(`invalid denom: ${params.bondDenom}`);
  // Checked as the sender or the genesis wrote it; "" is an unset LegacyDec (binary-decoded: zero, as upstream's).
  const rate =
    params.minCommissionRate === "" ? 0n : parseDecimalInput(params.minCommissionRate, "minimum commission rate");
  if (rate < 0n)
    throw new StakingParamsError(`minimum commission rate cannot be negative: ${params.minCommissionRate}`);
  if (rate > DEC_ONE) {
    throw new StakingParamsError(`minimum commission rate cannot be greater than 100%: ${params.minCommissionRate}`);
  }
}

/** Thrown for staking params that break upstream's rules (genesis or MsgUpdateParams); the message says what is wrong (a user error: one line, no stack). */
export class StakingParamsError extends UserError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "StakingParamsError";
  }
}
