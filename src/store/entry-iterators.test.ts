// The plain async iterators of the store's range reads behave as the generators they replace:
// lazy start, entries in order across batches, and the engine iterator closed on every way out.
import assert from "node:assert/strict";
import { test } from "node:test";
import { MemoryLevel } from "memory-level";
import { LazyEntries, LevelEntries } from "./entry-iterators.ts";

async function filled(count: number): Promise<MemoryLevel<Uint8Array, Uint8Array>> {
  const db = new MemoryLevel<Uint8Array, Uint8Array>({ keyEncoding: "view", valueEncoding: "view" });
  await db.open();
  const batch = db.batch();
  for (let i = 0; i < count; i++) batch.put(new Uint8Array([i >> 8, i & 0xff]), new Uint8Array([i & 0xff]));
  await batch.write();
  return db;
}

function tracked(
  db: MemoryLevel<Uint8Array, Uint8Array>,
  map?: (entry: [Uint8Array, Uint8Array]) => [Uint8Array, Uint8Array],
) {
  const state = { opened: 0, closed: 0 };
  const entries = new LevelEntries(() => {
    state.opened++;
    const iterator = db.iterator();
    const close = iterator.close.bind(iterator);
    iterator.close = async () => {
      state.closed++;
      await close();
    };
    return iterator;
  }, map);
  return { entries, state };
}

test("every entry in order across growing batches; opened at the first next(), closed at the end", async () => {
  const db = await filled(600);
  const { entries, state } = tracked(db);
  assert.equal(state.opened, 0);
  const keys: number[] = [];
  for await (const [key] of entries) keys.push((key[0] << 8) | key[1]);
  assert.deepEqual(
    keys,
    Array.from({ length: 600 }, (_, i) => i),
  );
  assert.deepEqual(state, { opened: 1, closed: 1 });
  assert.deepEqual(await entries.next(), { done: true, value: undefined });
  await db.close();
});

test("a consumer that stops early, or a mapping that throws, closes the engine iterator", async () => {
  const db = await filled(40);
  const early = tracked(db);
  for await (const _ of early.entries) break;
  assert.deepEqual(early.state, { opened: 1, closed: 1 });

  const failing = tracked(db, () => {
    throw new Error("bad row");
  });
  await assert.rejects(async () => {
    for await (const _ of failing.entries) assert.fail("no entry expected");
  }, /bad row/);
  // The consumer saw a throw and will not call return(): the failed step closes the iterator itself.
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(failing.state, { opened: 1, closed: 1 });
  await db.close();
});

test("a lazy iteration starts its source at the first next(), hands entries on, and passes a start error on", async () => {
  const db = await filled(3);
  let started = 0;
  const lazy = new LazyEntries(() => {
    started++;
    return tracked(db, ([key, value]) => [key.subarray(1), value]).entries;
  });
  assert.equal(started, 0);
  const keys: number[] = [];
  for await (const [key] of lazy) keys.push(key[0]);
  assert.deepEqual(keys, [0, 1, 2]);
  assert.equal(started, 1);

  const refused = new LazyEntries(() => {
    throw new Error("version pruned");
  });
  await assert.rejects(refused.next(), /version pruned/);
  assert.deepEqual(await refused.next(), { done: true, value: undefined });
  await db.close();
});
