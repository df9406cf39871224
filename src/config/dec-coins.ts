// The `minimum-gas-prices` value: decimal coins such as "0.025stake" or "0.25token1,0.0001token2".

/** One decimal coin: the amount stays a canonical decimal string so no precision is lost. */
export interface GasPrice {
  denom: string;
  /** Canonical decimal: no leading zeros, no trailing fractional zeros ("0.25", "1", "0"). */
  amount: string;
}

/** The `expected` text of every message about gas prices. */
export const DEC_COINS_EXPECTED = 'gas prices such as "0.025stake" or "0.25token1,0.0001token2"';

// Upstream's denom rule: a letter, then 2 to 127 of letters, digits and / : . _ -
const DENOM = /^[a-zA-Z][a-zA-Z0-9/:._-]{2,127}$/;
const DEC_COIN = /^([0-9]+(?:\.[0-9]+)?|\.[0-9]+)\s*([a-zA-Z][a-zA-Z0-9/:._-]*)$/;
/** Decimals carry 18 fractional digits upstream; more cannot be represented. */
const MAX_FRACTION_DIGITS = 18;

/**
 * Parses a list of decimal coins separated by "," (upstream's parser) or ";" (the separator upstream's
 * own app.toml comment shows). "" is the empty list. The result is sorted by denom; zero amounts are
 * kept (they name a denom accepted for free). Returns a reason string instead when malformed.
 */
export function parseDecCoins(text: string): GasPrice[] | { reason: string } {
  const trimmed = text.trim();
  if (trimmed === "") return [];
  const coins: GasPrice[] = [];
  for (const part of trimmed.split(/[,;]/)) {
    const item = part.trim();
    const match = DEC_COIN.exec(item);
    if (match === null) return { reason: `"${item}" is not <amount><denom>` };
    const [, amountText, denom] = match;
    if (!DENOM.test(denom))
      return { reason: `"${denom}" is not a valid denom (3 to 128 characters, starting with a letter)` };
    const fraction = amountText.split(".")[1] ?? "";
    if (fraction.length > MAX_FRACTION_DIGITS) {
      return { reason: `"${item}" has more than ${MAX_FRACTION_DIGITS} decimal places` };
    }
    if (coins.some((coin) => coin.denom === denom)) return { reason: `denom "${denom}" appears twice` };
    coins.push({ denom, amount: canonicalDecimal(amountText) });
  }
  return coins.sort((a, b) => (a.denom < b.denom ? -1 : a.denom > b.denom ? 1 : 0));
}

function canonicalDecimal(text: string): string {
  const [intPart, fracPart = ""] = text.split(".");
  const whole = intPart.replace(/^0+/, "") || "0";
  const fraction = fracPart.replace(/0+$/, "");
  return fraction === "" ? whole : `${whole}.${fraction}`;
}

/** Formats coins back into the app.toml form ("0.25token1,0.0001token2"). */
export function formatDecCoins(coins: readonly GasPrice[]): string {
  return coins.map((coin) => `${coin.amount}${coin.denom}`).join(",");
}
