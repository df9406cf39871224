import assert from "node:assert/strict";
import { test } from "node:test";
import { toHex } from "../bytes/hex.ts";
import { bytesToBinaryString } from "../bytes/text.ts";
import type { PendingWrite } from "./cache-layer.ts";
import { putChangeRows } from "./commit-rows.ts";
import type { KVBatch } from "./kv-backend.ts";
import { DROPPED_ROWS } from "./part-writer.ts";
import { ChangelogWriter } from "./records.ts";
import { StagedChanges } from "./staged-changes.ts";

/** A batch that records its operations as hex (the rows' buffers are reused, so they are copied here). */
function recordingBatch(): { batch: KVBatch; ops: string[] } {
  const ops: string[] = [];
  return {
    ops,
    batch: {
      put: (key, value) => ops.push(`put ${toHex(key)} ${toHex(value)}`),
      del: (key) => ops.push(`del ${toHex(key)}`),
      write: async () => {},
      close: async () => {},
    },
  };
}

function write(text: string, value: string | null): PendingWrite {
  const key = new TextEncoder().encode(text);
  return { sk: bytesToBinaryString(key), key, value: value === null ? null : new TextEncoder().encode(value) };
}

test("StagedChanges puts each change's rows as putChangeRows does, skips the writes that changed nothing", () => {
  const writes = [
    write("a", "1"), // a set
    write("b", "2"), // a set of a key deleted before (its deleted row goes)
    write("c", null), // a delete
    write("d", null), // a delete of a key the tree does not hold: no change
    write("e", "5"), // a set superseding an imported write 1 (its history row 1 is written)
    write("f", null), // a delete superseding an imported write 1
  ];
  const first = new TextEncoder().encode("imported");
  const changes = new StagedChanges(writes);
  changes.set(0, 3, 7, false);
  changes.set(1, 5, 2 ** 40, true);
  changes.delete(2, 2 ** 45, 9);
  changes.set(4, 2, 1, false);
  changes.setFirstValue(4, first);
  changes.delete(5, 2, 1);
  changes.setFirstValue(5, first);

  const expected = recordingBatch();
  const expectedLog = new ChangelogWriter();
  const direct: [number, number, number, boolean, Uint8Array | undefined][] = [
    [0, 3, 7, false, undefined],
    [1, 5, 2 ** 40, true, undefined],
    [2, 2 ** 45, 9, false, undefined],
    [4, 2, 1, false, first],
    [5, 2, 1, false, first],
  ];
  /** What putChangeRows puts for every change of `direct`: rows into `rows`, history and updates into their sinks. */
  const putDirect = (rows: KVBatch, history: KVBatch, updates: KVBatch, log: ChangelogWriter) => {
    for (const [i, writeNo, prev, clears, firstValue] of direct) {
      const w = writes[i];
      putChangeRows(rows, history, 7, 12, w.key, w.value, writeNo, prev, clears, firstValue, log, updates);
    }
  };
  putDirect(expected.batch, expected.batch, expected.batch, expectedLog);

  // At stage, one change at a time (a skipped write puts nothing) ...
  const staged = recordingBatch();
  const stagedLog = new ChangelogWriter();
  for (let i = 0; i < writes.length; i++) changes.putRows(i, staged.batch, staged.batch, 7, 12, stagedLog);
  assert.deepEqual(staged.ops, expected.ops);
  assert.deepEqual(stagedLog.finish([]), expectedLog.finish([]));
  // ... and again, all of them, for a retried commit's fresh batch.
  const retried = recordingBatch();
  const retriedLog = new ChangelogWriter();
  changes.putAllRows(retried.batch, retried.batch, 7, 12, retriedLog);
  assert.deepEqual(retried.ops, expected.ops);
  assert.deepEqual(retriedLog.finish([]), expectedLog.finish([]));

  // A large version's history rows go elsewhere (the parts written before its commit point): the same rows, split by
  // table, each in its order; a retry of such a version drops them (they are on disk).
  const rows = recordingBatch();
  const history = recordingBatch();
  const splitLog = new ChangelogWriter();
  for (let i = 0; i < writes.length; i++) changes.putRows(i, rows.batch, history.batch, 7, 12, splitLog);
  const isHistory = (op: string) => op.startsWith("put 68");
  assert.ok(history.ops.length >= 5);
  assert.deepEqual(history.ops, expected.ops.filter(isHistory));
  assert.deepEqual(
    rows.ops,
    expected.ops.filter((op) => !isHistory(op)),
  );
  assert.deepEqual(splitLog.finish([]), expectedLog.finish([]));
  const retriedRows = recordingBatch();
  changes.putAllRows(retriedRows.batch, DROPPED_ROWS, 7, 12, new ChangelogWriter());
  assert.deepEqual(retriedRows.ops, rows.ops);

  // Step B: an update's latest row goes with the history rows too (a set over a set: writes 0 and 4 here), in the
  // change's order; inserts, deletes and a set clearing a deleted row keep theirs in the batch.
  const early = recordingBatch();
  const kept = recordingBatch();
  for (let i = 0; i < writes.length; i++)
    changes.putRows(i, kept.batch, early.batch, 7, 12, new ChangelogWriter(), early.batch);
  const expectedEarly = recordingBatch();
  const expectedKept = recordingBatch();
  putDirect(expectedKept.batch, expectedEarly.batch, expectedEarly.batch, new ChangelogWriter());
  assert.deepEqual(early.ops, expectedEarly.ops);
  assert.deepEqual(kept.ops, expectedKept.ops);
  const isLatest = (op: string) => op.startsWith("put 6c");
  assert.equal(early.ops.filter(isLatest).length, 2, "the two updates' latest rows");
  assert.equal(kept.ops.filter(isLatest).length, 1, "the set clearing a deleted row keeps its latest row in the batch");
  assert.deepEqual(
    [...early.ops.filter(isLatest), ...kept.ops.filter(isLatest)].sort(),
    expected.ops.filter(isLatest).sort(),
  );

  assert.deepEqual([...changes.changedKeys()], ["a", "b", "c", "e", "f"]);
});
