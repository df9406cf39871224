// google.protobuf.Timestamp as RFC 3339 text, as protobuf's JSON mapping prints it: UTC, "Z", and 0, 3, 6
// or 9 fraction digits. Written with integer arithmetic (days → civil date) instead of going through
// toJson's reflection and a Date: every current_plan answer prints one, so it is on the REST hot path.

const SECONDS_PER_DAY = 86_400;
/** 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z in unix seconds: the range the mapping allows. */
const MIN_SECONDS = -62_135_596_800;
const MAX_SECONDS = 253_402_300_799;

/**
 * The JSON text of a Timestamp, or undefined when it is outside what the JSON mapping allows
 * (before year 1, after year 9999, nanos outside 0..999,999,999): the caller then lets protobuf's
 * own toJson raise its error.
 *
 * @example timestampJson(-62135596800n, 0) // "0001-01-01T00:00:00Z"
 */
export function timestampJson(seconds: bigint, nanos: number): string | undefined {
  const total = Number(seconds);
  if (total < MIN_SECONDS || total > MAX_SECONDS || !(nanos >= 0 && nanos <= 999_999_999)) return undefined;
  const days = Math.floor(total / SECONDS_PER_DAY);
  const secondOfDay = total - days * SECONDS_PER_DAY;
  const [year, month, day] = civilFromDays(days);
  const hour = Math.floor(secondOfDay / 3600);
  const minute = Math.floor((secondOfDay % 3600) / 60);
  const second = secondOfDay % 60;
  return `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}T${pad(hour, 2)}:${pad(minute, 2)}:${pad(second, 2)}${fraction(nanos)}Z`;
}

function fraction(nanos: number): string {
  if (nanos === 0) return "";
  const digits = String(nanos + 1_000_000_000).slice(1);
  if (digits.endsWith("000000")) return `.${digits.slice(0, 3)}`;
  if (digits.endsWith("000")) return `.${digits.slice(0, 6)}`;
  return `.${digits}`;
}

function pad(value: number, width: number): string {
  return String(value).padStart(width, "0");
}

// Days since 1970-01-01 to a proleptic Gregorian (year, month, day): the era-based algorithm
// (400-year eras of 146,097 days, years starting in March so the leap day comes last).
function civilFromDays(days: number): [number, number, number] {
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = Math.floor(
    (dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365,
  );
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const shifted = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * shifted + 2) / 5) + 1;
  const month = shifted < 10 ? shifted + 3 : shifted - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  return [year, month, day];
}
