// Timestamps as CometBFT handles them: nanosecond precision in blocks, RFC 3339 with trailing fractional zeros
// trimmed in JSON (Go's time.RFC3339Nano), and Go's zero time 0001-01-01T00:00:00Z for "no time".
import { UserError } from "../errors/user-error.ts";
import type { Timestamp } from "./types.ts";

/** Go's zero time (0001-01-01T00:00:00Z) as a protobuf Timestamp. */
export const ZERO_TIME: Timestamp = { seconds: -62135596800n, nanos: 0 };

/** Raised for an RFC 3339 string that cannot be read. */
export class TimeFormatError extends UserError {
  override name = "TimeFormatError";
}

/** A Timestamp from milliseconds since the Unix epoch. */
export function timestampFromMillis(ms: number): Timestamp {
  const whole = Math.floor(ms);
  const seconds = Math.floor(whole / 1000);
  return { seconds: BigInt(seconds), nanos: (whole - seconds * 1000) * 1_000_000 };
}

/** Milliseconds since the Unix epoch (sub-millisecond digits dropped). */
export function timestampToMillis(t: Timestamp): number {
  return Number(t.seconds) * 1000 + Math.floor(t.nanos / 1_000_000);
}

/** Total order on timestamps: negative, zero or positive like a comparator. */
export function compareTimestamps(a: Timestamp, b: Timestamp): number {
  if (a.seconds !== b.seconds) return a.seconds < b.seconds ? -1 : 1;
  return a.nanos - b.nanos;
}

/** `t` plus `ms` milliseconds. */
export function addMillis(t: Timestamp, ms: number): Timestamp {
  const totalNanos = BigInt(t.nanos) + BigInt(ms) * 1_000_000n;
  const carry = totalNanos >= 0n ? totalNanos / 1_000_000_000n : (totalNanos - 999_999_999n) / 1_000_000_000n;
  return { seconds: t.seconds + carry, nanos: Number(totalNanos - carry * 1_000_000_000n) };
}

/** RFC 3339 in UTC with the fraction's trailing zeros removed, as Go's RFC3339Nano prints it. */
export function formatRfc3339(t: Timestamp): string {
  const iso = new Date(Number(t.seconds) * 1000).toISOString(); // "YYYY-MM-DDTHH:MM:SS.000Z"
  const base = iso.slice(0, 19);
  if (t.nanos === 0) return `${base}Z`;
  const fraction = String(t.nanos).padStart(9, "0").replace(/0+$/, "");
  return `${base}.${fraction}Z`;
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

/** Parses an RFC 3339 time with up to nanosecond precision (e.g. a genesis_time). */
export function parseRfc3339(text: string): Timestamp {
  const m = RFC3339.exec(text);
  if (m === null) {
    throw new TimeFormatError(`"${text}" is not an RFC 3339 time (expected e.g. 2024-01-02T03:04:05.123456789Z)`);
  }
  const [, y, mo, d, h, mi, s, frac, z, sign, oh, om] = m;
  const ms = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  const check = new Date(ms);
  if (Number.isNaN(ms) || check.getUTCDate() !== Number(d) || check.getUTCMonth() !== Number(mo) - 1) {
    throw new TimeFormatError(`"${text}" is not a valid calendar time`);
  }
  // Date.UTC maps years 0–99 onto 1900–1999; setUTCFullYear puts them back.
  check.setUTCFullYear(Number(y));
  let seconds = BigInt(Math.floor(check.getTime() / 1000));
  if (z === undefined) {
    const offset = (Number(oh) * 60 + Number(om)) * 60;
    seconds -= BigInt(sign === "+" ? offset : -offset);
  }
  const nanos = frac === undefined ? 0 : Number(frac.padEnd(9, "0"));
  return { seconds, nanos };
}
