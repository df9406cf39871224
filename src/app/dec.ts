// The decimal arithmetic of upstream LegacyDec (18 decimal places, a bigint scaled by 10^18) that
// staking (shares, commission rates) and gov (tally powers, weights, thresholds) share.
import { UserError } from "../errors/user-error.ts";
import { DEC_ONE, decToString, parseDec } from "./dec-coins.ts";

export { DEC_ONE };

/** Thrown for decimal text that is not a LegacyDec. */
export class DecimalError extends UserError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "DecimalError";
  }
}

/** Parses decimal text (`0.1`, `1000000.000000000000000000`) into a 10^18-scaled bigint; `""` is 0. */
export function parseDecimal(text: string, what = "decimal"): bigint {
  if (text === "") return 0n;
  try {
    return parseDec(text);
  } catch (err) {
    throw new DecimalError(`invalid ${what} "${text}": expected a decimal number with at most 18 decimal places`, {
      cause: err,
    });
  }
}

/** Upstream's LegacyDec text: always 18 decimals. */
export function formatDecimal(value: bigint): string {
  return decToString(value);
}

/** A decimal of a whole number. */
export function decFromInt(value: bigint): bigint {
  return value * DEC_ONE;
}

/**
 * Removes the 18 extra decimal places of a product, rounding half to even (upstream's
 * chopPrecisionAndRound, used by Mul and Quo).
 */
export function chopPrecisionAndRound(value: bigint): bigint {
  if (value < 0n) return -chopPrecisionAndRound(-value);
  const quotient = value / DEC_ONE;
  const remainder = value % DEC_ONE;
  const half = DEC_ONE / 2n;
  if (remainder < half) return quotient;
  if (remainder > half) return quotient + 1n;
  return quotient % 2n === 0n ? quotient : quotient + 1n;
}

/** a × b for two decimals (rounded half to even at the 18th place). */
export function mulDec(a: bigint, b: bigint): bigint {
  return chopPrecisionAndRound(a * b);
}

/** a ÷ b for two decimals (upstream Quo: truncating division at 36 places, then rounding). */
export function quoDec(a: bigint, b: bigint): bigint {
  if (b === 0n) throw new DecimalError("division by zero");
  return chopPrecisionAndRound((a * DEC_ONE * DEC_ONE) / b);
}

/** The integer part of a decimal (truncated toward zero). */
export function truncateDec(value: bigint): bigint {
  return value / DEC_ONE;
}
