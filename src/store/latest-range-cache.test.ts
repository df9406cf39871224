// Short ranges of the latest state remembered whole (latest-range-cache.ts): a range is served from memory only
// while no commit has written inside it, a scan stopped early or overtaken by a commit is not kept, and over
// random histories the blocks' scans read what a store with the cache off reads.
import assert from "node:assert/strict";
import { test } from "node:test";
import { b, cacheOf, commitWrites, entries, KEEP_ALL, tempDir } from "../../test/support/store/helpers.ts";
import { LatestRangeCache, MAX_RANGE_ENTRIES } from "./latest-range-cache.ts";
import { type MultiStore, openMultiStore } from "./multistore.ts";
import type { IterateOptions } from "./types.ts";

/** A block's scan: a fresh branch of the latest state, as the blockers read it. */
function scan(store: MultiStore, options: IterateOptions): Promise<[string, string][]> {
  return entries(store.branch().store("bank").iterate(options));
}

test("a range read whole is kept until a commit writes inside it; writes outside it keep it", async () => {
  const dir = await tempDir();
  const store = await openMultiStore({ path: dir.path, storeNames: ["bank"], pruning: KEEP_ALL });
  try {
    const ranges = cacheOf(store).ranges;
    await commitWrites(store, [
      ["q/1", "a"],
      ["q/2", "b"],
      ["z/1", "other"],
    ]);
    const queue = { prefix: b("q/") };
    assert.deepEqual(await scan(store, queue), [
      ["q/1", "a"],
      ["q/2", "b"],
    ]);
    assert.equal(ranges.size, 1);
    assert.deepEqual(await scan(store, { ...queue, reverse: true }), [
      ["q/2", "b"],
      ["q/1", "a"],
    ]);
    assert.equal(ranges.size, 2, "the reverse scan is its own range");

    await commitWrites(store, [["z/2", "outside"]]);
    assert.equal(ranges.size, 2, "a write outside the range keeps it");
    assert.deepEqual(await scan(store, queue), [
      ["q/1", "a"],
      ["q/2", "b"],
    ]);

    await commitWrites(store, [
      ["q/3", "c"],
      ["q/1", null],
    ]);
    assert.equal(ranges.size, 0, "writes inside drop both directions");
    assert.deepEqual(await scan(store, queue), [
      ["q/2", "b"],
      ["q/3", "c"],
    ]);
    // The branch's own writes lie over the remembered range, as over LevelDB's.
    const branch = store.branch();
    branch.store("bank").set(b("q/0"), b("pending"));
    branch.store("bank").delete(b("q/3"));
    assert.deepEqual(await entries(branch.store("bank").iterate(queue)), [
      ["q/0", "pending"],
      ["q/2", "b"],
    ]);
  } finally {
    await store.close();
    await dir.remove();
  }
});

test("a scan stopped early, a long range and a scan overtaken by a commit are not kept", async () => {
  const dir = await tempDir();
  const store = await openMultiStore({ path: dir.path, storeNames: ["bank"], pruning: KEEP_ALL });
  try {
    const ranges = cacheOf(store).ranges;
    const many: [string, string][] = [];
    for (let i = 0; i < MAX_RANGE_ENTRIES + 1; i++) many.push([`long/${String(i).padStart(3, "0")}`, "v"]);
    await commitWrites(store, [...many, ["s/1", "a"], ["s/2", "b"]]);

    for await (const _ of store
      .branch()
      .store("bank")
      .iterate({ prefix: b("s/") }))
      break;
    assert.equal(ranges.size, 0, "stopped after one entry");
    assert.equal((await scan(store, { prefix: b("long/") })).length, MAX_RANGE_ENTRIES + 1);
    assert.equal(ranges.size, 0, "more entries than a range keeps");

    // The scan opens its LevelDB iterator at its first entry, then a commit lands before it reads the rest.
    const iterator = store
      .branch()
      .store("bank")
      .iterate({ prefix: b("s/") })
      [Symbol.asyncIterator]();
    const first = await iterator.next();
    assert.equal(first.done, false);
    await commitWrites(store, [["t/1", "elsewhere"]]);
    while (!(await iterator.next()).done) {}
    assert.equal(ranges.size, 0, "a commit started while it read");

    assert.equal((await scan(store, { prefix: b("s/") })).length, 2);
    assert.equal(ranges.size, 1);
  } finally {
    await store.close();
    await dir.remove();
  }
});

test("the range cache forgets everything on a failed commit and a dropped store's ranges on drop", () => {
  const cache = new LatestRangeCache();
  const entry: [Uint8Array, Uint8Array] = [b("a"), b("1")];
  cache.add(1, "a", "b", false, [entry], 2);
  cache.add(2, undefined, undefined, false, [], 0);
  assert.equal(cache.size, 2);
  assert.deepEqual(cache.lookup(1, "a", "b", false), [entry]);
  assert.equal(cache.lookup(1, "a", "b", true), undefined);
  cache.written(1, ["b"]);
  assert.equal(cache.size, 2, "the upper bound is exclusive");
  cache.written(2, ["anything"]);
  assert.equal(cache.size, 1, "an unbounded range holds every key");
  cache.dropStore(1);
  assert.equal(cache.size, 0);
  cache.add(1, "a", "b", false, [entry], 2);
  cache.clear();
  assert.equal(cache.lookup(1, "a", "b", false), undefined);
});

test("random histories scan the same ranges with the cache on, tiny, and off", async () => {
  const dir = await tempDir();
  const sizes = [undefined, 2048, 0];
  const stores = await Promise.all(
    sizes.map((latestCacheBytes, i) =>
      openMultiStore({ path: `${dir.path}/s${i}`, storeNames: ["bank"], pruning: KEEP_ALL, latestCacheBytes }),
    ),
  );
  // A deterministic generator, so a failure repeats.
  let seed = 4242;
  const next = (n: number) => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed % n;
  };
  const key = (n: number) => `k/${String(n).padStart(2, "0")}`;
  let model = new Map<string, string>();
  try {
    for (let v = 1; v <= 40; v++) {
      const writes: [string, string | null][] = [];
      for (let i = 0; i < 1 + next(4); i++) writes.push([key(next(30)), next(3) === 0 ? null : `v${v}-${i}`]);
      model = new Map(model);
      for (const [k, val] of writes) {
        if (val === null) model.delete(k);
        else model.set(k, val);
      }
      for (const store of stores) await commitWrites(store, writes);
      // The same few ranges every version, as the blockers scan them, and a few new ones.
      const ranges: IterateOptions[] = [
        { prefix: b("k/0") },
        { prefix: b("k/1"), reverse: true },
        { start: b(key(next(30))), end: b(key(next(30))) },
        { prefix: b("k/"), start: b(key(next(30))) },
      ];
      for (const options of ranges) {
        const expected = [...model.entries()]
          .filter(([k]) => inRange(k, options))
          .sort(([a], [c]) => (a < c ? -1 : a > c ? 1 : 0));
        if (options.reverse === true) expected.reverse();
        for (let repeat = 0; repeat < 2; repeat++) {
          for (const [i, store] of stores.entries()) {
            assert.deepEqual(
              await scan(store, options),
              expected,
              `store ${i}, version ${v}, ${JSON.stringify(options)}`,
            );
          }
        }
      }
    }
    assert.ok(cacheOf(stores[0]).ranges.size > 0, "the default cache keeps ranges");
    assert.equal(cacheOf(stores[2]).ranges.size, 0, "a cache turned off keeps none");
  } finally {
    for (const store of stores) await store.close();
    await dir.remove();
  }
});

function inRange(k: string, options: IterateOptions): boolean {
  const text = (bytes: Uint8Array | undefined) => (bytes === undefined ? undefined : Buffer.from(bytes).toString());
  const prefix = text(options.prefix);
  const start = text(options.start);
  const end = text(options.end);
  return (
    (prefix === undefined || k.startsWith(prefix)) &&
    (start === undefined || k >= start) &&
    (end === undefined || k < end)
  );
}
