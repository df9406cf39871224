// Query branches over a committed version: reads merge pending writes, iteration stays ordered, and
// nothing reaches the committed state.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { openMultiStore } from "../store/index.ts";
import { branchOverView, ReadOnlyViewError } from "./view-branch.ts";

const b = (n: number) => new Uint8Array([n]);

describe("view branch", () => {
  it("merges pending writes over the committed version in order, both directions, and never writes back", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.integer({ min: 0, max: 40 }), { maxLength: 15 }),
        fc.array(fc.tuple(fc.integer({ min: 0, max: 40 }), fc.boolean()), { maxLength: 15 }),
        async (committed, writes) => {
          const store = await openMultiStore({ backend: "memory", storeNames: ["s"] });
          const branch = store.branch();
          for (const k of committed) branch.store("s").set(b(k), b(k));
          await store.stage(branch);
          await store.commit();
          const model = new Map(committed.map((k) => [k, k]));
          const view = branchOverView(await store.view());
          const nested = view.branch();
          for (const [k, keep] of writes) {
            if (keep) {
              nested.store("s").set(b(k), b(100 + k));
              model.set(k, 100 + k);
            } else {
              nested.store("s").delete(b(k));
              model.delete(k);
            }
          }
          nested.write();
          const expected = [...model.entries()].sort((x, y) => x[0] - y[0]);
          const forward: number[][] = [];
          for await (const [k, v] of view.store("s").iterate()) forward.push([k[0], v[0]]);
          assert.deepEqual(forward, expected);
          const backward: number[][] = [];
          for await (const [k, v] of view.store("s").iterate({ reverse: true, limit: 3 })) backward.push([k[0], v[0]]);
          assert.deepEqual(backward, [...expected].reverse().slice(0, 3));
          assert.throws(() => view.write(), ReadOnlyViewError);
          const fresh = await store.view();
          for (const k of committed) assert.deepEqual(await fresh.store("s").get(b(k)), b(k));
          await store.close();
        },
      ),
      { numRuns: 30 },
    );
  });
});
