import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { cancellationWarning, earliestCancellableHeight, formatMs } from "./cancellation-timing.ts";

const params = { currentHeight: 100n, votingPeriodMs: 60_000, maxDepositPeriodMs: 120_000, averageBlockTimeMs: 1_000 };

test("earliest cancellable height: current + ceil((2 × (voting + deposit) + safety delta) / block time)", () => {
  // 2 × (60 s + 120 s) + 3600 s = 3960 s at 1 s per block.
  assert.equal(earliestCancellableHeight(params), 4060n);
  assert.equal(earliestCancellableHeight({ ...params, safetyDeltaMs: 0 }), 460n);
  // 360 s at 7 s per block = 51.4 → 52 blocks.
  assert.equal(earliestCancellableHeight({ ...params, safetyDeltaMs: 0, averageBlockTimeMs: 7_000 }), 152n);
  // Upstream default periods (48 h each) at 6 s blocks: 2 × 96 h + 1 h = 193 h = 115800 blocks.
  assert.equal(
    earliestCancellableHeight({
      currentHeight: 0n,
      votingPeriodMs: 172_800_000,
      maxDepositPeriodMs: 172_800_000,
      averageBlockTimeMs: 6_000,
    }),
    115_800n,
  );
});

test("bad inputs are refused with the parameter's name", () => {
  assert.throws(
    () => earliestCancellableHeight({ ...params, averageBlockTimeMs: 0 }),
    /averageBlockTimeMs must be a positive number, got 0/,
  );
  assert.throws(
    () => earliestCancellableHeight({ ...params, votingPeriodMs: -1 }),
    /votingPeriodMs must be a non-negative number, got -1/,
  );
  assert.throws(
    () => earliestCancellableHeight({ ...params, safetyDeltaMs: Number.NaN }),
    /safetyDeltaMs must be a non-negative number/,
  );
});

test("the warning: only below the earliest height, starts with 'warning:' and mentions cancellation", () => {
  assert.equal(cancellationWarning(4060n, params), undefined);
  assert.equal(cancellationWarning(5000n, params), undefined);
  const warning = cancellationWarning(4059n, params);
  assert.equal(
    warning,
    "warning: upgrade height 4059 may be too soon for a cancellation: a MsgCancelUpgrade proposal can only be sure to pass before the upgrade from height 4060 on (2 × (voting period 1m + max deposit period 2m) + safety delta 1h at 1s per block from height 100); the proposal is submitted anyway",
  );
});

test("property: the earliest height never decreases as any period grows", () => {
  fc.assert(
    fc.property(
      fc.nat(10_000_000),
      fc.nat(10_000_000),
      fc.nat(10_000_000),
      fc.integer({ min: 1, max: 60_000 }),
      (v, d, s, b) => {
        const base = {
          currentHeight: 10n,
          votingPeriodMs: v,
          maxDepositPeriodMs: d,
          safetyDeltaMs: s,
          averageBlockTimeMs: b,
        };
        const h = earliestCancellableHeight(base);
        assert.ok(h >= 10n);
        assert.ok(earliestCancellableHeight({ ...base, votingPeriodMs: v + 1 }) >= h);
        assert.ok(earliestCancellableHeight({ ...base, safetyDeltaMs: s + 1000 }) >= h);
        assert.ok(
          cancellationWarning(h, base) === undefined &&
            (h === 10n || cancellationWarning(h - 1n, base)?.startsWith("warning:")),
        );
      },
    ),
  );
});

test("formatMs", () => {
  assert.equal(formatMs(250), "250ms");
  assert.equal(formatMs(1_500), "1.5s");
  assert.equal(formatMs(3_600_000), "1h");
  assert.equal(formatMs(5_400_000), "1h30m");
  assert.equal(formatMs(172_800_000), "48h");
});
