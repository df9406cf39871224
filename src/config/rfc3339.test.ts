import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import { formatRfc3339, parseRfc3339, timestampFromDate, timestampToDate, ZERO_TIME } from "./rfc3339.ts";

describe("RFC 3339 times", () => {
  test("keeps nanoseconds and trims trailing zeros as CometBFT does", () => {
    const time = parseRfc3339("2026-01-01T00:00:05.120000000Z");
    assert.deepEqual(time, { seconds: 1767225605n, nanos: 120000000 });
    assert.equal(formatRfc3339(time!), "2026-01-01T00:00:05.12Z");
    assert.equal(formatRfc3339(parseRfc3339("2024-02-29T23:59:59.000000001Z")!), "2024-02-29T23:59:59.000000001Z");
    assert.equal(formatRfc3339(parseRfc3339("2024-02-29T23:59:59Z")!), "2024-02-29T23:59:59Z");
  });

  test("converts offsets to UTC", () => {
    assert.deepEqual(parseRfc3339("2024-01-01T02:00:00+02:00"), parseRfc3339("2024-01-01T00:00:00Z"));
    assert.deepEqual(parseRfc3339("2023-12-31T19:30:00-04:30"), parseRfc3339("2024-01-01T00:00:00Z"));
  });

  test("the zero time", () => {
    assert.deepEqual(parseRfc3339("0001-01-01T00:00:00Z"), ZERO_TIME);
    assert.equal(formatRfc3339(ZERO_TIME), "0001-01-01T00:00:00Z");
  });

  test("refuses malformed and impossible times", () => {
    for (const bad of [
      "",
      "yesterday",
      "2024-01-01",
      "2024-01-01T00:00:00",
      "2024-13-01T00:00:00Z",
      "2023-02-29T00:00:00Z",
      "2024-01-01T24:00:00Z",
      "2024-01-01T00:00:60Z",
      "2024-01-01T00:00:00.1234567890Z",
      "2024-01-01 00:00:00Z",
    ]) {
      assert.equal(parseRfc3339(bad), undefined, bad);
    }
  });

  test("refuses an offset that carries the instant outside years 0 to 9999 (it could not be written back)", () => {
    for (const bad of ["9999-12-31T23:59:59-01:00", "0000-01-01T00:00:00+00:01", "9999-12-31T00:10:00-23:50"]) {
      assert.equal(parseRfc3339(bad), undefined, bad);
    }
    assert.equal(formatRfc3339(parseRfc3339("9999-12-31T23:59:59.999999999Z")!), "9999-12-31T23:59:59.999999999Z");
    assert.equal(formatRfc3339(parseRfc3339("0000-01-01T00:00:00Z")!), "0000-01-01T00:00:00Z");
    assert.equal(formatRfc3339(parseRfc3339("0000-01-01T01:00:00+01:00")!), "0000-01-01T00:00:00Z");
  });

  test("format then parse is the identity", () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: -62135596800n, max: 253402300799n }),
        fc.integer({ min: 0, max: 999_999_999 }),
        (seconds, nanos) => {
          assert.deepEqual(parseRfc3339(formatRfc3339({ seconds, nanos })), { seconds, nanos });
        },
      ),
    );
  });

  test("Date conversions", () => {
    const date = new Date("2025-06-01T12:34:56.789Z");
    assert.deepEqual(timestampToDate(timestampFromDate(date)), date);
    assert.deepEqual(timestampFromDate(new Date(-1)), { seconds: -1n, nanos: 999_000_000 });
  });
});
