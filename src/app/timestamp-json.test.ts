// Timestamps print exactly as protobuf's own JSON mapping prints them, over the whole allowed range.
import assert from "node:assert/strict";
import { test } from "node:test";
import { create, toJson } from "@bufbuild/protobuf";
import { TimestampSchema } from "@bufbuild/protobuf/wkt";
import fc from "fast-check";
import { timestampJson } from "./timestamp-json.ts";

const MIN = -62_135_596_800n;
const MAX = 253_402_300_799n;

function reference(seconds: bigint, nanos: number): string {
  return toJson(TimestampSchema, create(TimestampSchema, { seconds, nanos })) as string;
}

test("the same text as toJson: range ends, the epoch, leap days, 0/3/6/9 fraction digits", () => {
  for (const [seconds, nanos] of [
    [MIN, 0],
    [MAX, 999_999_999],
    [0n, 0],
    [-1n, 1],
    [951_782_400n, 5_000], // 2000-02-29
    [4_107_542_399n, 120_000_000], // 2100-02-28T23:59:59
    [1_700_000_000n, 123_456_000],
  ] as const) {
    assert.equal(timestampJson(seconds, nanos), reference(seconds, nanos));
  }
  fc.assert(
    fc.property(fc.bigInt({ min: MIN, max: MAX }), fc.integer({ min: 0, max: 999_999_999 }), (seconds, nanos) => {
      assert.equal(timestampJson(seconds, nanos), reference(seconds, nanos));
    }),
    { numRuns: 2000 },
  );
});

test("outside the mapping's range: undefined, so that toJson raises its own error", () => {
  assert.equal(timestampJson(MIN - 1n, 0), undefined);
  assert.equal(timestampJson(MAX + 1n, 0), undefined);
  assert.equal(timestampJson(0n, -1), undefined);
  assert.equal(timestampJson(0n, 1_000_000_000), undefined);
});
