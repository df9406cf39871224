import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { formatGoDuration, parseGoDuration } from "./go-duration.ts";

describe("parseGoDuration", () => {
  it("reads Go's notation, fractions and compound values", () => {
    assert.equal(parseGoDuration("300ms"), 300_000_000n);
    assert.equal(parseGoDuration("30s"), 30_000_000_000n);
    assert.equal(parseGoDuration("1m30s"), 90_000_000_000n);
    assert.equal(parseGoDuration("1.5h"), 5_400_000_000_000n);
    assert.equal(parseGoDuration(".5s"), 500_000_000n);
    assert.equal(parseGoDuration("10us"), 10_000n);
    assert.equal(parseGoDuration("10µs"), 10_000n);
    assert.equal(parseGoDuration("7ns"), 7n);
    assert.equal(parseGoDuration("0"), 0n);
    assert.equal(parseGoDuration("-3m"), -180_000_000_000n);
    assert.equal(parseGoDuration("+2s"), 2_000_000_000n);
  });

  it("fails with Go's own messages", () => {
    assert.throws(() => parseGoDuration("600"), { message: 'time: missing unit in duration "600"' });
    assert.throws(() => parseGoDuration("5q"), { message: 'time: unknown unit "q" in duration "5q"' });
    assert.throws(() => parseGoDuration(""), { message: 'time: invalid duration ""' });
    assert.throws(() => parseGoDuration("abc"), { message: 'time: invalid duration "abc"' });
    assert.throws(() => parseGoDuration(".s"), { message: 'time: invalid duration ".s"' });
    assert.throws(() => parseGoDuration("1s 2s"), { message: 'time: unknown unit "s " in duration "1s 2s"' });
    assert.throws(() => parseGoDuration("99999999999h"), { message: 'time: invalid duration "99999999999h"' });
  });

  it("round-trips whole milliseconds through the formatter", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10 * 24 * 3_600_000 }), (ms) => {
        assert.equal(parseGoDuration(formatGoDuration(ms)), BigInt(ms) * 1_000_000n);
      }),
    );
  });

  it("formats like Go's Duration.String", () => {
    assert.equal(formatGoDuration(0), "0s");
    assert.equal(formatGoDuration(300), "300ms");
    assert.equal(formatGoDuration(1500), "1.5s");
    assert.equal(formatGoDuration(90_000), "1m30s");
    assert.equal(formatGoDuration(3_600_000), "1h0m0s");
  });
});
