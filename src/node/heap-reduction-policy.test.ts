import assert from "node:assert/strict";
import { test } from "node:test";
import { HeapReductionPolicy } from "./heap-reduction-policy.ts";

const MIB = 1024 * 1024;
const thresholds = { idleUtilisation: 0.15, idleChecks: 2, growthBytes: 16 * MIB };
const IDLE = 0.02;
const BUSY = 0.6;

/** Feeds one sample per check; returns at which checks (0-based) a reduction was due, reducing as the governor does. */
function run(policy: HeapReductionPolicy, samples: [utilisation: number, matureMiB: number, youngMiB: number][]) {
  const due: number[] = [];
  samples.forEach(([utilisation, mature, young], i) => {
    if (policy.check({ utilisation, matureBytes: mature * MIB, youngBytes: young * MIB })) {
      due.push(i);
      policy.reduced({ matureBytes: 30 * MIB, youngBytes: 1 * MIB });
    }
  });
  return due;
}

test("a young generation grown back to its cap by a busy period is reduced once the node is idle", () => {
  // The memory bench's second load: queries that leave the old generation under the growth mark, while the
  // young generation grows from its reduced 1 MiB back to 32 MiB.
  const policy = new HeapReductionPolicy(thresholds, { matureBytes: 30 * MIB, youngBytes: 1 * MIB });
  const due = run(policy, [
    [BUSY, 34, 16],
    [BUSY, 36, 32],
    [IDLE, 36, 32],
    [IDLE, 36, 32], // second idle check: due
    [IDLE, 30, 1],
    [IDLE, 30, 1],
    [IDLE, 30, 1],
  ]);
  assert.deepEqual(due, [3]);
});

test("without a busy period the young generation's size alone never makes a reduction due", () => {
  // A node whose young generation V8 left large, idle all along: reducing it again and again would cost a full GC
  // each time for nothing that grew.
  const policy = new HeapReductionPolicy(thresholds, { matureBytes: 30 * MIB, youngBytes: 1 * MIB });
  policy.reduced({ matureBytes: 30 * MIB, youngBytes: 1 * MIB });
  const idleOnly = Array.from({ length: 10 }, (): [number, number, number] => [IDLE, 31, 24]);
  assert.deepEqual(run(policy, idleOnly), []);
});

test("one reduction per busy period: after it, idle checks wait for the next busy interval", () => {
  const policy = new HeapReductionPolicy(thresholds, { matureBytes: 30 * MIB, youngBytes: 1 * MIB });
  const due = run(policy, [
    [BUSY, 30, 32],
    [IDLE, 30, 32],
    [IDLE, 30, 32], // due
    [IDLE, 30, 24], // V8 regrew it without any load: no second reduction
    [IDLE, 30, 24],
    [IDLE, 30, 24],
    [BUSY, 30, 32],
    [IDLE, 30, 32],
    [IDLE, 30, 32], // the next busy period's: due
  ]);
  assert.deepEqual(due, [2, 8]);
});

test("growth of the heap outside the young generation makes a reduction due, busy period or not", () => {
  const policy = new HeapReductionPolicy(thresholds, { matureBytes: 30 * MIB, youngBytes: 1 * MIB });
  assert.deepEqual(
    run(policy, [
      [IDLE, 40, 1],
      [IDLE, 47, 1], // 17 MiB above the start: due
    ]),
    [1],
  );
});

test("growth under the mark, or too few idle checks, is not due", () => {
  const policy = new HeapReductionPolicy(thresholds, { matureBytes: 30 * MIB, youngBytes: 1 * MIB });
  assert.deepEqual(
    run(policy, [
      [BUSY, 40, 12],
      [IDLE, 40, 12],
      [IDLE, 45, 16], // 15 MiB of each: under the 16 MiB mark
      [BUSY, 60, 32],
      [IDLE, 60, 32], // one idle check only
      [BUSY, 60, 32],
    ]),
    [],
  );
});

test("a heap that shrank on its own lowers the marks growth is measured from", () => {
  const policy = new HeapReductionPolicy(thresholds, { matureBytes: 40 * MIB, youngBytes: 8 * MIB });
  assert.deepEqual(
    run(policy, [
      [IDLE, 24, 1], // V8 collected by itself
      [IDLE, 24, 1],
      [IDLE, 41, 1], // 17 MiB above the lowered mark (1 MiB above the start)
    ]),
    [2],
  );
});
