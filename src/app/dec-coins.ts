// Decimal coins (upstream DecCoin with LegacyDec: 18 decimal places), used for gas prices such as
// app.toml's `minimum-gas-prices = "0.025stake"`. Amounts are bigint scaled by 10^18.
import { type Coin, CoinError, compareDenoms, validateDenom } from "./coins.ts";

/** Number of decimal places of a LegacyDec. */
export const DEC_PRECISION = 18;
/** 10^18: the scale of a decimal amount. */
export const DEC_ONE = 10n ** BigInt(DEC_PRECISION);

/** A decimal coin: `amount` is the value × 10^18. */
export interface DecCoin {
  denom: string;
  amount: bigint;
}

// Upstream's LegacyDec holds at most 256 + 60 bits (maxDecBitLen).
const MAX_DEC_BITS = 316;

/**
 * Parses a decimal such as `0.025` into a 10^18-scaled bigint, by upstream's LegacyNewDecFromStr rules: an
 * optional `-`, digits, then optionally `.` and 1 to 18 digits. Nothing else: no spaces, no bare `.5` or `5.`,
 * no empty string, and at most 316 bits (its range).
 */
export function parseDec(text: string): bigint {
  if (text === "") throw new CoinError('invalid decimal "": decimal string cannot be empty');
  const match = /^(-?)([0-9]+)(?:\.([0-9]+))?$/.exec(text);
  if (match === null) {
    throw new CoinError(`invalid decimal "${text}": expected digits with an optional fraction, such as 0.5`);
  }
  const fraction = match[3] ?? "";
  if (fraction.length > DEC_PRECISION) {
    throw new CoinError(`invalid decimal "${text}": too much precision, at most ${DEC_PRECISION} decimal places`);
  }
  const scaled = BigInt(match[2]) * DEC_ONE + BigInt((fraction + "0".repeat(DEC_PRECISION)).slice(0, DEC_PRECISION));
  if (scaled.toString(2).length > MAX_DEC_BITS) throw new CoinError(`invalid decimal "${text}": out of range`);
  return match[1] === "-" ? -scaled : scaled;
}

/** Upstream's LegacyDec text: always 18 decimals, e.g. `0.025000000000000000`. */
export function decToString(value: bigint): string {
  const negative = value < 0n;
  const abs = negative ? -value : value;
  const whole = abs / DEC_ONE;
  const fraction = (abs % DEC_ONE).toString().padStart(DEC_PRECISION, "0");
  return `${negative ? "-" : ""}${whole}.${fraction}`;
}

/** `0.025000000000000000stake` (upstream DecCoin.String). */
export function decCoinsToString(coins: readonly DecCoin[]): string {
  return coins.map((coin) => `${decToString(coin.amount)}${coin.denom}`).join(",");
}

/**
 * Parses `0.025stake,1uatom` (upstream ParseDecCoins): denoms validated, sorted, zero amounts kept
 * out, duplicates rejected. The empty string gives the empty list.
 */
export function parseDecCoins(text: string): DecCoin[] {
  const trimmed = text.trim();
  if (trimmed === "") return [];
  const coins: DecCoin[] = [];
  for (const part of trimmed.split(",")) {
    // Upstream's amount pattern: digits with an optional fraction of at least one digit (`0.stake` is refused).
    const match = /^\s*([0-9]+(?:\.[0-9]+)?)\s*([a-zA-Z][a-zA-Z0-9/:._-]{2,127})\s*$/.exec(part);
    if (match === null) throw new CoinError(`invalid decimal coin expression: ${part.trim()}`);
    validateDenom(match[2]);
    coins.push({ denom: match[2], amount: parseDec(match[1]) });
  }
  coins.sort((a, b) => compareDenoms(a.denom, b.denom));
  for (let i = 1; i < coins.length; i++) {
    if (coins[i].denom === coins[i - 1].denom) throw new CoinError(`duplicate denomination ${coins[i].denom}`);
  }
  return coins.filter((coin) => coin.amount !== 0n);
}

/** True when the list is empty or all amounts are zero. */
export function isZeroDecCoins(coins: readonly DecCoin[]): boolean {
  return coins.every((coin) => coin.amount === 0n);
}

/**
 * The fee each price asks for `gasLimit` gas: ceil(price × gas) per denom, in the prices' order
 * (upstream's required fees in the min-gas-price check).
 */
export function requiredFees(prices: readonly DecCoin[], gasLimit: bigint): Coin[] {
  return prices.map((price) => {
    const product = price.amount * gasLimit;
    const whole = product / DEC_ONE;
    return { denom: price.denom, amount: product % DEC_ONE === 0n ? whole : whole + 1n };
  });
}
