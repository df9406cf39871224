import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { addMillis, formatRfc3339, parseRfc3339, TimeFormatError, ZERO_TIME } from "./time.ts";

describe("RFC 3339 times as CometBFT prints them", () => {
  it("trims the fraction's trailing zeros and prints Go's zero time", () => {
    assert.equal(formatRfc3339({ seconds: 1767225605n, nanos: 120000000 }), "2026-01-01T00:00:05.12Z");
    assert.equal(formatRfc3339({ seconds: 1767225605n, nanos: 0 }), "2026-01-01T00:00:05Z");
    assert.equal(formatRfc3339({ seconds: 0n, nanos: 1 }), "1970-01-01T00:00:00.000000001Z");
    assert.equal(formatRfc3339(ZERO_TIME), "0001-01-01T00:00:00Z");
  });

  it("parses offsets, nanoseconds and round-trips", () => {
    assert.deepEqual(parseRfc3339("2019-10-13T18:14:44+02:00"), { seconds: 1570983284n, nanos: 0 });
    assert.deepEqual(parseRfc3339("0001-01-01T00:00:00Z"), ZERO_TIME);
    fc.assert(
      fc.property(
        fc.bigInt({ min: -62135596800n, max: 253402300799n }),
        fc.integer({ min: 0, max: 999999999 }),
        (seconds, nanos) => {
          assert.deepEqual(parseRfc3339(formatRfc3339({ seconds, nanos })), { seconds, nanos });
        },
      ),
    );
  });

  it("says what a bad time looks like", () => {
    assert.throws(() => parseRfc3339("2024-02-30T00:00:00Z"), TimeFormatError);
    assert.throws(
      () => parseRfc3339("noon"),
      /"noon" is not an RFC 3339 time \(expected e.g. 2024-01-02T03:04:05.123456789Z\)/,
    );
  });

  it("adds milliseconds across second boundaries", () => {
    assert.deepEqual(addMillis({ seconds: 1n, nanos: 999_500_000 }, 1), { seconds: 2n, nanos: 500_000 });
  });
});
