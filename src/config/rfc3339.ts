// Times as CometBFT writes them in JSON: RFC 3339 in UTC with up to nine fractional digits, trailing
// zeros trimmed ("2026-01-01T00:00:05.12Z"). JS Dates stop at milliseconds, and a block header hashes
// the exact nanoseconds of genesis_time, so times are kept as seconds + nanos.

/** A point in time with nanosecond precision (google.protobuf.Timestamp's shape). */
export interface Timestamp {
  /** Seconds since 1970-01-01T00:00:00Z (negative before). */
  seconds: bigint;
  /** 0 to 999,999,999. */
  nanos: number;
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

function daysInMonth(year: number, month: number): number {
  const date = new Date(0);
  date.setUTCFullYear(year, month, 0);
  return date.getUTCDate();
}

/** 0000-01-01T00:00:00Z and 9999-12-31T23:59:59Z, in seconds since 1970. */
const FIRST_SECOND = -62167219200n;
const LAST_SECOND = 253402300799n;

/**
 * Parses an RFC 3339 time (any offset, converted to UTC). Undefined when malformed or out of range (including a time
 * whose offset carries it outside years 0 to 9999 in UTC).
 */
export function parseRfc3339(text: string): Timestamp | undefined {
  const match = RFC3339.exec(text);
  if (match === null) return undefined;
  const [, y, mo, d, h, mi, s, fraction = "", , sign, offH, offM] = match;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  let offsetSeconds = 0;
  if (sign !== undefined) {
    if (Number(offH) > 23 || Number(offM) > 59) return undefined;
    offsetSeconds = (Number(offH) * 3600 + Number(offM) * 60) * (sign === "-" ? -1 : 1);
  }
  // setUTCFullYear keeps years 0-99 as written (Date.UTC would map them to 19xx).
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, 0);
  const seconds = BigInt(date.getTime() / 1000) - BigInt(offsetSeconds);
  // Go writes times of years 0 to 9999 only (in UTC); a time an offset carries beyond them could not be written back.
  if (seconds < FIRST_SECOND || seconds > LAST_SECOND) return undefined;
  return { seconds, nanos: Number(fraction.padEnd(9, "0")) };
}

/** Formats a time as CometBFT does: UTC, "Z", fraction without trailing zeros (none when zero). */
export function formatRfc3339(time: Timestamp): string {
  const date = new Date(Number(time.seconds) * 1000);
  const iso = date.toISOString(); // YYYY-MM-DDTHH:MM:SS.mmmZ for years 0-9999
  const base = iso.slice(0, 19);
  if (time.nanos === 0) return `${base}Z`;
  const fraction = String(time.nanos).padStart(9, "0").replace(/0+$/, "");
  return `${base}.${fraction}Z`;
}

/** The timestamp of a JS Date (millisecond precision). */
export function timestampFromDate(date: Date): Timestamp {
  const ms = BigInt(date.getTime());
  let seconds = ms / 1000n;
  let rest = ms % 1000n;
  if (rest < 0n) {
    rest += 1000n;
    seconds -= 1n;
  }
  return { seconds, nanos: Number(rest) * 1_000_000 };
}

/** A JS Date for a timestamp (nanoseconds below a millisecond are dropped). */
export function timestampToDate(time: Timestamp): Date {
  return new Date(Number(time.seconds) * 1000 + Math.floor(time.nanos / 1_000_000));
}

/** CometBFT's zero time, 0001-01-01T00:00:00Z. */
export const ZERO_TIME: Timestamp = { seconds: -62135596800n, nanos: 0 };
