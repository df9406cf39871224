// The collector's decision (fake heaps), V8's full collection itself, and the app asking it after the work behind a
// commit is over — never once a next block has started.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { getHeapStatistics } from "node:v8";
import { create } from "@bufbuild/protobuf";
import { RequestFinalizeBlockSchema } from "../gen/tendermint/abci/types_pb.js";
import { createTestApp } from "../testing/app.ts";
import { type HeapControl, IdleCollector, reduceHeapNow, v8Heap } from "./idle-collection.ts";

const MiB = 2 ** 20;

/** A heap whose size the test sets; a collection brings it down to `live`. */
function fakeHeap(used: number, live: number): HeapControl & { used: number; live: number; collections: number } {
  const heap = {
    used,
    live,
    collections: 0,
    heapUsed: () => heap.used,
    collect: () => {
      heap.collections++;
      heap.used = heap.live;
    },
  };
  return heap;
}

describe("IdleCollector", () => {
  it("collects once the heap has doubled since the last collection and grown by the minimum", () => {
    const heap = fakeHeap(150 * MiB, 150 * MiB);
    const collector = new IdleCollector(heap, { growthFactor: 2, minGrowthBytes: 128 * MiB });
    assert.equal(collector.collectIfDue(), false, "the first look only measures");
    heap.used = 299 * MiB;
    assert.equal(collector.collectIfDue(), false, "below twice the baseline");
    heap.used = 300 * MiB;
    assert.equal(collector.collectIfDue(), true);
    assert.equal(heap.collections, 1);
    heap.used = 299 * MiB;
    assert.equal(collector.collectIfDue(), false, "the baseline is what the collection left (150 MiB)");
    heap.used = 301 * MiB;
    assert.equal(collector.collectIfDue(), true);
    assert.equal(collector.collections, 2);
  });

  it("does not collect a small heap that doubled by less than the minimum growth", () => {
    const heap = fakeHeap(20 * MiB, 20 * MiB);
    const collector = new IdleCollector(heap, { growthFactor: 2, minGrowthBytes: 128 * MiB });
    collector.collectIfDue();
    heap.used = 140 * MiB; // 7x, but 120 MiB more
    assert.equal(collector.collectIfDue(), false);
    heap.used = 149 * MiB;
    assert.equal(collector.collectIfDue(), true);
  });

  it("measures growth from a heap V8 collected on its own", () => {
    const heap = fakeHeap(400 * MiB, 100 * MiB);
    const collector = new IdleCollector(heap, { growthFactor: 2, minGrowthBytes: 0 });
    collector.collectIfDue();
    heap.used = 100 * MiB; // V8 collected in between
    assert.equal(collector.collectIfDue(), false);
    heap.used = 199 * MiB;
    assert.equal(collector.collectIfDue(), false, "twice 100 MiB, not twice 400, is the new mark");
    heap.used = 200 * MiB;
    assert.equal(collector.collectIfDue(), true);
  });

  it("refuses a policy that would collect after every commit or never grow", () => {
    const heap = fakeHeap(0, 0);
    assert.throws(() => new IdleCollector(heap, { growthFactor: 1, minGrowthBytes: 0 }), /growthFactor must be > 1/);
    assert.throws(() => new IdleCollector(heap, { growthFactor: Number.NaN, minGrowthBytes: 0 }), /got NaN/);
    assert.throws(() => new IdleCollector(heap, { growthFactor: 2, minGrowthBytes: -1 }), /minGrowthBytes >= 0/);
  });

  it("V8's full collection frees what nothing references any more", () => {
    const heap = v8Heap();
    let garbage: number[][] | undefined = Array.from({ length: 200 }, () =>
      Array.from({ length: 20_000 }, (_, i) => i),
    );
    const withGarbage = heap.heapUsed();
    assert.equal(garbage.length, 200);
    garbage = undefined;
    heap.collect();
    // ~200 × 20,000 small integers in arrays: ~30 MiB that were reachable when measured.
    assert.ok(heap.heapUsed() < withGarbage - 20 * MiB, `${withGarbage} → ${heap.heapUsed()} bytes in use`);
    assert.equal(typeof (globalThis as { gc?: unknown }).gc, "undefined", "no global gc in the node's context");
  });

  it("reduceHeapNow (before a large stage) frees the garbage and gives V8's pages back", () => {
    let garbage: number[][] | undefined = Array.from({ length: 200 }, () =>
      Array.from({ length: 20_000 }, (_, i) => i),
    );
    const before = getHeapStatistics();
    assert.equal(garbage.length, 200);
    garbage = undefined;
    reduceHeapNow();
    const after = getHeapStatistics();
    assert.ok(after.used_heap_size < before.used_heap_size - 20 * MiB, "the garbage is collected");
    // The heap V8 holds shrinks with it (a plain full collection keeps its pages: docs/PERFORMANCE.md, "Step C").
    assert.ok(after.total_heap_size < before.total_heap_size - 20 * MiB, "the pages go back");
  });
});

describe("App: the work behind a commit", () => {
  it("collects after the commit listeners' work is over, not once a next block has started", async () => {
    const heap = fakeHeap(100 * MiB, 100 * MiB);
    const collector = new IdleCollector(heap, { growthFactor: 2, minGrowthBytes: 0 });
    const t = await createTestApp({ idleCollection: collector });
    let finishAhead: (() => void) | undefined;
    t.app.onCommit(() => new Promise<void>((resolve) => (finishAhead = resolve)));

    await t.nextBlock(); // the first look: the baseline is 100 MiB
    finishAhead?.();
    await t.app.settledAfterCommit();
    assert.equal(heap.collections, 0);

    heap.used = 250 * MiB;
    await t.nextBlock();
    let settled = false;
    const after = t.app.settledAfterCommit().then(() => (settled = true));
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(settled, false, "the listener's work is part of the work behind the commit");
    assert.equal(heap.collections, 0, "nothing collected while that work runs");
    finishAhead?.();
    await after;
    assert.equal(heap.collections, 1, "collected once it was over");

    heap.used = 250 * MiB;
    await t.nextBlock();
    const behind = t.app.settledAfterCommit();
    const release = finishAhead;
    // The next block starts before the work behind the last commit is over: the node is no longer idle.
    await t.app.finalizeBlock(create(RequestFinalizeBlockSchema, { height: t.app.lastBlockHeight() + 1n }));
    release?.();
    await behind;
    assert.equal(heap.collections, 1, "no collection once FinalizeBlock of the next block had started");
  });
});
