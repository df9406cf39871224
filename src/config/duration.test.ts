import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import { formatDuration, parseDurationMs, parseDurationNanos } from "./duration.ts";

describe("parseDurationNanos", () => {
  test("reads every form CometBFT writes", () => {
    assert.equal(parseDurationMs("1s"), 1000);
    assert.equal(parseDurationMs("500ms"), 500);
    assert.equal(parseDurationMs("0s"), 0);
    assert.equal(parseDurationMs("0"), 0);
    assert.equal(parseDurationMs("168h0m0s"), 168 * 3600 * 1000);
    assert.equal(parseDurationMs("1h30m"), 90 * 60 * 1000);
    assert.equal(parseDurationMs("1.5s"), 1500);
    assert.equal(parseDurationMs(".5s"), 500);
    assert.equal(parseDurationMs("10us"), 0.01);
    assert.equal(parseDurationNanos("1\u00b5s"), 1000n);
    assert.equal(parseDurationNanos("-2ms"), -2_000_000n);
    assert.equal(parseDurationNanos("1ns"), 1n);
  });

  test("refuses what Go refuses", () => {
    for (const bad of ["", "1", "10", "s", "1x", "1 s", "1s ", ".s", "1.s.", "--1s", "9999999999h"]) {
      assert.equal(parseDurationNanos(bad), undefined, bad);
    }
  });

  test("formatDuration writes what Go writes, and parses back", () => {
    assert.equal(formatDuration(0n), "0s");
    assert.equal(formatDuration(1_000_000_000n), "1s");
    assert.equal(formatDuration(500_000_000n), "500ms");
    assert.equal(formatDuration(168n * 3_600_000_000_000n), "168h0m0s");
    assert.equal(formatDuration(1_500_000_000n), "1.5s");
    assert.equal(formatDuration(90n * 60_000_000_000n), "1h30m0s");
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 18n), max: 10n ** 18n }), (nanos) => {
        assert.equal(parseDurationNanos(formatDuration(nanos)), nanos);
      }),
    );
  });
});
