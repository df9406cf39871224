import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import { b, KEEP_ALL, s } from "../../test/support/store/helpers.ts";
import { readRangeOf } from "./entry-iterators.ts";
import { PrunedVersionError } from "./errors.ts";
import { openMultiStore } from "./multistore.ts";

describe("history search", () => {
  test("a key written at irregular versions reads right at every version", async () => {
    await fc.assert(
      fc.asyncProperty(
        // For each of 150 versions: 0 = untouched, 1 = set, 2 = delete.
        fc.array(fc.constantFrom(0, 0, 0, 1, 1, 2), { minLength: 150, maxLength: 150 }),
        async (plan) => {
          const store = await openMultiStore({ backend: "memory", storeNames: ["bank"], pruning: KEEP_ALL });
          try {
            const expected: (string | undefined)[] = [];
            let current: string | undefined;
            for (let v = 1; v <= plan.length; v++) {
              const block = store.branch();
              // Another key every version keeps versions moving when ours is untouched.
              block.store("bank").set(b("other"), b(`${v}`));
              if (plan[v - 1] === 1) {
                current = `value-${v}`;
                block.store("bank").set(b("key"), b(current));
              } else if (plan[v - 1] === 2) {
                current = undefined;
                block.store("bank").delete(b("key"));
              }
              expected[v] = current;
              await store.stage(block);
              await store.commit();
            }
            for (let v = 1; v <= plan.length; v++) {
              const bank = (await store.view(BigInt(v))).store("bank");
              assert.equal(s(await bank.get(b("key"))), expected[v], `version ${v}`);
            }
          } finally {
            await store.close();
          }
        },
      ),
      { numRuns: 25 },
    );
  });
});

describe("remembered ranges", () => {
  const read = async (store: Parameters<typeof readRangeOf>[0], options: Parameters<typeof readRangeOf>[1]) =>
    (await readRangeOf(store, options)).map(([key, value]) => `${s(key)}=${s(value)}`);

  test("a view reads a range again the same after later commits; ranges and limits are told apart", async () => {
    const store = await openMultiStore({ backend: "memory", storeNames: ["bank"], pruning: KEEP_ALL });
    try {
      const commit = async (writes: [string, string | undefined][]) => {
        const block = store.branch();
        for (const [key, value] of writes) {
          if (value === undefined) block.store("bank").delete(b(key));
          else block.store("bank").set(b(key), b(value));
        }
        await store.stage(block);
        await store.commit();
      };
      await commit([
        ["a/1", "x"],
        ["a/2", "y"],
        ["b/1", "z"],
      ]);
      const bank = (await store.view()).store("bank");
      const all = { prefix: b("a/"), limit: 10 };
      assert.deepEqual(await read(bank, all), ["a/1=x", "a/2=y"]);
      // The caller may change the array it gets: the remembered one is not affected.
      (await readRangeOf(bank, all)).length = 0;
      assert.deepEqual(await read(bank, { prefix: b("a/"), limit: 1 }), ["a/1=x"]);
      assert.deepEqual(await read(bank, { prefix: b("a/"), limit: 10, reverse: true }), ["a/2=y", "a/1=x"]);
      assert.deepEqual(await read(bank, { prefix: b("b/"), limit: 10 }), ["b/1=z"]);
      await commit([
        ["a/1", "changed"],
        ["a/3", "new"],
        ["a/2", undefined],
      ]);
      // Version 1 is still version 1, read from the history now that it is no longer the latest.
      assert.deepEqual(await read(bank, all), ["a/1=x", "a/2=y"]);
      assert.deepEqual(await read((await store.view(1n)).store("bank"), all), ["a/1=x", "a/2=y"]);
      assert.deepEqual(await read((await store.view()).store("bank"), all), ["a/1=changed", "a/3=new"]);
    } finally {
      await store.close();
    }
  });

  test("a remembered range of a pruned version is refused like any read of it", async () => {
    const store = await openMultiStore({
      backend: "memory",
      storeNames: ["bank"],
      pruning: { strategy: "everything", keepRecent: 0n, interval: 0n },
    });
    try {
      const commit = async (v: number) => {
        const block = store.branch();
        block.store("bank").set(b("a/1"), b(`${v}`));
        await store.stage(block);
        await store.commit();
      };
      await commit(1);
      const bank = (await store.view()).store("bank");
      assert.deepEqual(await read(bank, { prefix: b("a/"), limit: 10 }), ["a/1=1"]);
      for (let v = 2; v <= 20; v++) await commit(v);
      await store.idle();
      assert.ok(store.earliestVersion() > 1n);
      await assert.rejects(readRangeOf(bank, { prefix: b("a/"), limit: 10 }), PrunedVersionError);
    } finally {
      await store.close();
    }
  });
});
