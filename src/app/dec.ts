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

/**
 * Parses user input (a CLI flag, a message's field, genesis, a REST/gRPC request) as upstream's LegacyNewDecFromStr
 * does: `0.5`, `-1`, `1.000000000000000000`; refuses `" 0.5"`, `"0."`, `".5"` and `""` (src/app/dec-coins.ts parseDec).
 */
export function parseDecimalInput(text: string, what = "decimal"): bigint {
  try {
    return parseDec(text);
  } catch (err) {
    throw new DecimalError(`invalid ${what} "${text}": expected a decimal number with at most 18 decimal places`, {
      cause: err,
    });
  }
}

/**
 * Parses a decimal read back from state or from a decoded proto message; `""` (an unset field) is 0. Kept lenient
 * as it always was (surrounding spaces and a trailing `.` accepted) so that no stored value that once parsed stops
 * parsing, which would change how a chain executes: what users send goes through {@link parseDecimalInput} first.
 */
export function parseDecimal(text: string, what = "decimal"): bigint {
  if (text === "") return 0n;
  const match = /^(-?)([0-9]+)(?:\.([0-9]{0,18}))?$/.exec(text.trim());
  if (match === null) {
    throw new DecimalError(`invalid ${what} "${text}": expected a decimal number with at most 18 decimal places`);
  }
  const scaled = BigInt(match[2]) * DEC_ONE + BigInt((match[3] ?? "").padEnd(18, "0"));
  return match[1] === "-" ? -scaled : scaled;
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
