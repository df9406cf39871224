// Coins as upstream's types/coin.go defines them: a denom matching [a-zA-Z][a-zA-Z0-9/:._-]{2,127}, a
// non-negative integer amount of at most 256 bits, and lists sorted by denom with positive amounts
// and no duplicates. Amounts are bigint; the wire form (chain.base.v1beta1.Coin) carries strings.
import { UserError } from "../errors/user-error.ts";

/** One coin: an amount of a denomination. */
export interface Coin {
  denom: string;
  amount: bigint;
}

/** Any object with the wire shape of a Coin (`{denom, amount: "<integer>"}`), e.g. a generated message. */
export interface CoinLike {
  denom: string;
  amount: string;
}

/** Thrown for a malformed coin, denom or coin list. */
export class CoinError extends UserError {
  constructor(message: string) {
    super(message);
    this.name = "CoinError";
  }
}

const DENOM_PATTERN = /^[a-zA-Z][a-zA-Z0-9/:._-]{2,127}$/;
const MAX_AMOUNT_BITS = 256;
const MAX_AMOUNT = (1n << BigInt(MAX_AMOUNT_BITS)) - 1n;

/** Throws `invalid denom: <denom>` unless `denom` matches upstream's pattern. */
export function validateDenom(denom: string): void {
  if (!DENOM_PATTERN.test(denom)) throw new CoinError(`invalid denom: ${denom}`);
}

/** True when `denom` matches upstream's pattern. */
export function isValidDenom(denom: string): boolean {
  return DENOM_PATTERN.test(denom);
}

/** `<amount><denom>`, e.g. `10stake`. */
export function coinToString(coin: Coin): string {
  return `${coin.amount}${coin.denom}`;
}

/** `10stake,5uatom`; the empty list prints as "". */
export function coinsToString(coins: readonly Coin[]): string {
  return coins.map(coinToString).join(",");
}

/** Parses a wire amount: a base-10 integer of at most 256 bits (negative allowed, as upstream's Int). */
export function parseAmount(text: string): bigint {
  if (!/^-?[0-9]+$/.test(text)) throw new CoinError(`invalid coin amount "${text}": expected a base-10 integer`);
  const value = BigInt(text);
  if (value > MAX_AMOUNT || -value > MAX_AMOUNT) {
    throw new CoinError(`invalid coin amount "${text}": larger than ${MAX_AMOUNT_BITS} bits`);
  }
  return value;
}

/** A Coin from its wire shape; throws CoinError for an unparseable amount. */
export function coinFromProto(coin: CoinLike): Coin {
  return { denom: coin.denom, amount: parseAmount(coin.amount) };
}

/** Coins from their wire shape, in the order given (validate separately with validateCoins). */
export function coinsFromProto(coins: readonly CoinLike[]): Coin[] {
  return coins.map(coinFromProto);
}

/** The wire shape of a coin. */
export function coinToProto(coin: Coin): CoinLike {
  return { denom: coin.denom, amount: coin.amount.toString() };
}

/** The wire shape of a coin list. */
export function coinsToProto(coins: readonly Coin[]): CoinLike[] {
  return coins.map(coinToProto);
}

/**
 * Checks a coin list as upstream's `Coins.Validate`: every denom valid, every amount positive,
 * denoms strictly ascending. Throws CoinError naming the first problem.
 */
export function validateCoins(coins: readonly Coin[]): void {
  for (let i = 0; i < coins.length; i++) {
    const coin = coins[i];
    validateDenom(coin.denom);
    if (coin.amount <= 0n) throw new CoinError(`coin ${coinToString(coin)} amount is not positive`);
    if (coin.amount > MAX_AMOUNT) throw new CoinError(`coin ${coin.denom} amount is larger than 256 bits`);
    if (i > 0) {
      const previous = coins[i - 1].denom;
      if (coin.denom === previous) throw new CoinError(`duplicate denomination ${coin.denom}`);
      if (coin.denom < previous) throw new CoinError(`denomination ${coin.denom} is not sorted`);
    }
  }
}

/** True when `validateCoins` would pass. */
export function isValidCoins(coins: readonly Coin[]): boolean {
  try {
    validateCoins(coins);
    return true;
  } catch {
    return false;
  }
}

/** True when any amount is below zero. */
export function isAnyNegative(coins: readonly Coin[]): boolean {
  return coins.some((coin) => coin.amount < 0n);
}

/**
 * Upstream's `NewCoins`: drops zero amounts, sorts by denom; throws on an invalid denom, a negative
 * amount or a duplicate denom.
 */
export function normalizeCoins(coins: readonly Coin[]): Coin[] {
  const kept = coins.filter((coin) => coin.amount !== 0n).map((coin) => ({ denom: coin.denom, amount: coin.amount }));
  kept.sort((a, b) => compareDenoms(a.denom, b.denom));
  validateCoins(kept);
  return kept;
}

/** Bytewise comparison of denoms (Go's string order, which is what upstream sorts by). */
export function compareDenoms(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The amount of `denom` in `coins` (0 when absent). */
export function amountOf(coins: readonly Coin[], denom: string): bigint {
  for (const coin of coins) if (coin.denom === denom) return coin.amount;
  return 0n;
}

/** Sum of two sorted coin lists, sorted, zero amounts dropped. */
export function addCoins(a: readonly Coin[], b: readonly Coin[]): Coin[] {
  const sums = new Map<string, bigint>();
  for (const coin of a) sums.set(coin.denom, (sums.get(coin.denom) ?? 0n) + coin.amount);
  for (const coin of b) sums.set(coin.denom, (sums.get(coin.denom) ?? 0n) + coin.amount);
  return sortedNonZero(sums);
}

/**
 * `a − b` per denom, sorted, zero amounts dropped. `negative` is true when any result is below
 * zero (upstream's SafeSub); the negative entries are kept in `coins` so callers can report them.
 */
export function subCoins(a: readonly Coin[], b: readonly Coin[]): { coins: Coin[]; negative: boolean } {
  const diffs = new Map<string, bigint>();
  for (const coin of a) diffs.set(coin.denom, (diffs.get(coin.denom) ?? 0n) + coin.amount);
  for (const coin of b) diffs.set(coin.denom, (diffs.get(coin.denom) ?? 0n) - coin.amount);
  const coins = sortedNonZero(diffs);
  return { coins, negative: coins.some((coin) => coin.amount < 0n) };
}

/** True when every denom of `b` is present in `a` with at least the same amount (upstream IsAllGTE). */
export function isAllGTE(a: readonly Coin[], b: readonly Coin[]): boolean {
  if (b.length === 0) return true;
  for (const coin of b) if (amountOf(a, coin.denom) < coin.amount) return false;
  return true;
}

/**
 * Upstream's `IsAnyGTE`: true when some coin of `a` is ≥ the non-zero amount `b` holds in the same
 * denom. False when `b` is empty.
 */
export function isAnyGTE(a: readonly Coin[], b: readonly Coin[]): boolean {
  if (b.length === 0) return false;
  for (const coin of a) {
    const required = amountOf(b, coin.denom);
    if (required !== 0n && coin.amount >= required) return true;
  }
  return false;
}

/** True when the list is empty or every amount is zero. */
export function isZeroCoins(coins: readonly Coin[]): boolean {
  return coins.every((coin) => coin.amount === 0n);
}

/**
 * Parses `10stake`, `10 stake`, `10stake,5uatom` (upstream ParseCoinsNormalized): decimal amounts are
 * truncated, zero amounts dropped, the result sorted. The empty string gives the empty list.
 */
export function parseCoins(text: string): Coin[] {
  const trimmed = text.trim();
  if (trimmed === "") return [];
  const coins: Coin[] = [];
  for (const part of trimmed.split(",")) {
    const match = /^\s*([0-9]+(?:\.[0-9]*)?)\s*([a-zA-Z][a-zA-Z0-9/:._-]{2,127})\s*$/.exec(part);
    if (match === null) throw new CoinError(`invalid decimal coin expression: ${part.trim()}`);
    const [whole] = match[1].split(".");
    coins.push({ denom: match[2], amount: BigInt(whole) });
  }
  try {
    return normalizeCoins(coins);
  } catch (err) {
    throw new CoinError(`invalid coins "${text}": ${(err as Error).message}`);
  }
}

/** Parses exactly one coin (`10stake`), keeping a zero amount. */
export function parseCoin(text: string): Coin {
  const match = /^\s*([0-9]+)\s*([a-zA-Z][a-zA-Z0-9/:._-]{2,127})\s*$/.exec(text);
  if (match === null) throw new CoinError(`invalid coin expression: ${text}`);
  return { denom: match[2], amount: BigInt(match[1]) };
}

function sortedNonZero(amounts: Map<string, bigint>): Coin[] {
  const out: Coin[] = [];
  for (const [denom, amount] of amounts) if (amount !== 0n) out.push({ denom, amount });
  out.sort((x, y) => compareDenoms(x.denom, y.denom));
  return out;
}
