import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import { openMultiStore } from "./multistore.ts";
import { b, KEEP_ALL, s } from "./test-support.ts";

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
