// Durations in Go's notation (`300ms`, `1m30s`, `1.5h`), because cosmovisor's environment variables take them and
// operators copy their settings over unchanged. The error texts are Go's own, which cosmovisor embeds in its messages.

const NANOS_PER_UNIT: ReadonlyMap<string, bigint> = new Map([
  ["ns", 1n],
  ["us", 1_000n],
  ["\u00b5s", 1_000n], // micro sign
  ["\u03bcs", 1_000n], // Greek small letter mu
  ["ms", 1_000_000n],
  ["s", 1_000_000_000n],
  ["m", 60_000_000_000n],
  ["h", 3_600_000_000_000n],
]);

const MAX_NANOS = (1n << 63n) - 1n;

/** A Go duration that did not parse; the message is the one Go's time.ParseDuration gives. */
export class DurationSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "DurationSyntaxError";
  }
}

const quote = (text: string) => JSON.stringify(text);
const isDigit = (c: string) => c >= "0" && c <= "9";

/**
 * Parses a Go duration string into nanoseconds (negative values allowed, as in Go).
 * @example parseGoDuration("1m30s") === 90_000_000_000n
 */
export function parseGoDuration(text: string): bigint {
  const invalid = () => new DurationSyntaxError(`time: invalid duration ${quote(text)}`);
  let rest = text;
  let negative = false;
  if (rest.startsWith("-") || rest.startsWith("+")) {
    negative = rest[0] === "-";
    rest = rest.slice(1);
  }
  if (rest === "0") return 0n;
  if (rest === "") throw invalid();
  let total = 0n;
  while (rest !== "") {
    if (!(rest[0] === "." || isDigit(rest[0]))) throw invalid();
    let i = 0;
    while (i < rest.length && isDigit(rest[i])) i++;
    const whole = rest.slice(0, i);
    rest = rest.slice(i);
    let fraction = "";
    let hasFraction = false;
    if (rest.startsWith(".")) {
      rest = rest.slice(1);
      let j = 0;
      while (j < rest.length && isDigit(rest[j])) j++;
      fraction = rest.slice(0, j);
      hasFraction = j > 0;
      rest = rest.slice(j);
    }
    if (whole === "" && !hasFraction) throw invalid();
    let k = 0;
    while (k < rest.length && rest[k] !== "." && !isDigit(rest[k])) k++;
    if (k === 0) throw new DurationSyntaxError(`time: missing unit in duration ${quote(text)}`);
    const unitName = rest.slice(0, k);
    rest = rest.slice(k);
    const unit = NANOS_PER_UNIT.get(unitName);
    if (unit === undefined) {
      throw new DurationSyntaxError(`time: unknown unit ${quote(unitName)} in duration ${quote(text)}`);
    }
    let value = BigInt(whole === "" ? "0" : whole) * unit;
    if (fraction !== "") value += BigInt(Math.floor(Number(`0.${fraction}`) * Number(unit)));
    total += value;
    if (total > MAX_NANOS + 1n) throw invalid();
  }
  if (!negative && total > MAX_NANOS) throw invalid();
  return negative ? -total : total;
}

/**
 * Formats milliseconds the way Go prints a time.Duration (`300ms`, `5s`, `1m30s`, `0s`), for logs and status.
 * @example formatGoDuration(90_000) === "1m30s"
 */
export function formatGoDuration(milliseconds: number): string {
  if (milliseconds === 0) return "0s";
  const sign = milliseconds < 0 ? "-" : "";
  let ms = Math.abs(milliseconds);
  if (ms < 1000) return `${sign}${trim(ms)}ms`;
  const hours = Math.floor(ms / 3_600_000);
  ms -= hours * 3_600_000;
  const minutes = Math.floor(ms / 60_000);
  ms -= minutes * 60_000;
  const seconds = `${trim(ms / 1000)}s`;
  if (hours > 0) return `${sign}${hours}h${minutes}m${seconds}`;
  if (minutes > 0) return `${sign}${minutes}m${seconds}`;
  return `${sign}${seconds}`;
}

function trim(value: number): string {
  return String(Number(value.toFixed(6)));
}
