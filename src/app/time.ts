// Timestamp arithmetic in exact nanoseconds (Go's time.Time.Add and Before, without float rounding).
import { create } from "@bufbuild/protobuf";
import { type Duration, type Timestamp, TimestampSchema } from "@bufbuild/protobuf/wkt";

const NANOS_PER_SECOND = 1_000_000_000n;

/** Nanoseconds since the epoch of a timestamp. */
export function timestampNanos(time: Timestamp): bigint {
  return time.seconds * NANOS_PER_SECOND + BigInt(time.nanos);
}

/** A timestamp from nanoseconds since the epoch. */
export function timestampFromNanos(nanos: bigint): Timestamp {
  let seconds = nanos / NANOS_PER_SECOND;
  let rest = nanos % NANOS_PER_SECOND;
  if (rest < 0n) {
    seconds -= 1n;
    rest += NANOS_PER_SECOND;
  }
  return create(TimestampSchema, { seconds, nanos: Number(rest) });
}

/** Nanoseconds of a duration. */
export function durationNanos(duration: Duration | undefined): bigint {
  if (duration === undefined) return 0n;
  return BigInt(duration.seconds ?? 0n) * NANOS_PER_SECOND + BigInt(duration.nanos ?? 0);
}

/** `time + duration`. */
export function addDuration(time: Timestamp, duration: Duration | undefined): Timestamp {
  return timestampFromNanos(timestampNanos(time) + durationNanos(duration));
}

/** Negative when a < b, zero when equal, positive when a > b. */
export function compareTimestamps(a: Timestamp, b: Timestamp): number {
  const diff = timestampNanos(a) - timestampNanos(b);
  return diff < 0n ? -1 : diff > 0n ? 1 : 0;
}
