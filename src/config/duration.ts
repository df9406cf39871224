// Durations as CometBFT writes them in config.toml ("1s", "500ms", "1h30m", "168h0m0s"): Go's
// time.ParseDuration grammar, so a file written by either program reads the same in both.

const UNIT_NANOS: Record<string, bigint> = {
  ns: 1n,
  us: 1_000n,
  "\u00b5s": 1_000n, // micro sign
  "\u03bcs": 1_000n, // Greek mu
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};

const MAX_INT64 = (1n << 63n) - 1n;

/** The `expected` text of every message about a duration. */
export const DURATION_EXPECTED = 'a duration such as "1s", "500ms" or "1h30m"';

/**
 * Parses a Go duration string into nanoseconds: a sign, then one or more `<decimal><unit>` parts with
 * units ns, us (µs), ms, s, m, h; the lone "0" needs no unit. Undefined when malformed or beyond int64.
 */
export function parseDurationNanos(text: string): bigint | undefined {
  let rest = text;
  let negative = false;
  if (rest.startsWith("-") || rest.startsWith("+")) {
    negative = rest.startsWith("-");
    rest = rest.slice(1);
  }
  if (rest === "0") return 0n;
  if (rest === "") return undefined;
  let total = 0n;
  const part = /^([0-9]*)(?:\.([0-9]*))?([a-z\u00b5\u03bc]+)/;
  while (rest !== "") {
    const match = part.exec(rest);
    if (match === null) return undefined;
    const [whole, intText, fracText = "", unitText] = match;
    if (intText === "" && fracText === "") return undefined;
    const unit = UNIT_NANOS[unitText];
    if (unit === undefined) return undefined;
    let nanos = BigInt(intText === "" ? "0" : intText) * unit;
    if (fracText !== "") {
      // Exact fraction of the unit, truncated toward zero as Go does.
      nanos += (BigInt(fracText) * unit) / 10n ** BigInt(fracText.length);
    }
    total += nanos;
    if (total > MAX_INT64 + (negative ? 1n : 0n)) return undefined;
    rest = rest.slice(whole.length);
  }
  return negative ? -total : total;
}

/** Parses a Go duration string into milliseconds (fractional below 1 ms). Undefined when malformed. */
export function parseDurationMs(text: string): number | undefined {
  const nanos = parseDurationNanos(text);
  return nanos === undefined ? undefined : Number(nanos) / 1e6;
}

/** Formats nanoseconds the way Go's Duration.String does ("1s", "500ms", "168h0m0s", "0s"). */
export function formatDuration(nanos: bigint): string {
  if (nanos === 0n) return "0s";
  const sign = nanos < 0n ? "-" : "";
  const abs = nanos < 0n ? -nanos : nanos;
  if (abs < 1_000_000_000n) {
    for (const [unit, size] of [
      ["ms", 1_000_000n],
      ["\u00b5s", 1_000n],
      ["ns", 1n],
    ] as const) {
      if (abs >= size) return `${sign}${fraction(abs, size)}${unit}`;
    }
  }
  const hours = abs / 3_600_000_000_000n;
  const minutes = (abs / 60_000_000_000n) % 60n;
  const seconds = fraction(abs % 60_000_000_000n, 1_000_000_000n);
  if (hours > 0n) return `${sign}${hours}h${minutes}m${seconds}s`;
  if (minutes > 0n) return `${sign}${minutes}m${seconds}s`;
  return `${sign}${seconds}s`;
}

function fraction(value: bigint, unit: bigint): string {
  const whole = value / unit;
  const rest = value % unit;
  if (rest === 0n) return whole.toString();
  const digits = unit.toString().length - 1;
  return `${whole}.${rest.toString().padStart(digits, "0").replace(/0+$/, "")}`;
}
