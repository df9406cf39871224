// The pieces of stepped migrations that need no chain: the progress text and the percentage of the refusal, the
// checks of a declaration, and prefixMigrationStep walking a store `budget` records a step from its cursor.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { openTestChain } from "../../testing/upgrade-context.ts";
import { moduleMigratingMessage } from "./migration-guard.ts";
import { prefixMigrationStep } from "./prefix-migration.ts";
import { percentOf, progressText, type SteppedMigration, validateSteppedMigrations } from "./stepped-migration.ts";

const enc = (text: string) => new TextEncoder().encode(text);
const dec = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

describe("progress", () => {
  it("is LegacyDec text with 18 decimals, truncated and clamped to [0, 1]; empty when unknown", () => {
    assert.equal(progressText({ done: 41n, total: 100n }), "0.410000000000000000");
    assert.equal(progressText({ done: 1n, total: 3n }), "0.333333333333333333");
    assert.equal(progressText({ done: 5n, total: 4n }), "1.000000000000000000");
    assert.equal(progressText({ done: 0n, total: 0n }), "");
    assert.equal(progressText(undefined), "");
    assert.equal(percentOf("0.419999999999999999"), 41);
    assert.equal(percentOf("1.000000000000000000"), 100);
    assert.equal(percentOf(""), undefined);
  });

  it("the refusal names the module, the percentage when known and the start height", () => {
    assert.equal(
      moduleMigratingMessage("bank", "0.410000000000000000", 1200n),
      "module bank is migrating: 41% done, started at height 1200",
    );
    assert.equal(moduleMigratingMessage("bank", "", 1200n), "module bank is migrating, started at height 1200");
  });
});

describe("validateSteppedMigrations", () => {
  const step: SteppedMigration["step"] = async () => "done";
  it("refuses a missing module or name, a duplicate and a budget that is not a positive integer", () => {
    assert.throws(
      () => validateSteppedMigrations("v3", [{ module: "", name: "x", budget: 1, step }]),
      /needs a module and a name/,
    );
    assert.throws(
      () =>
        validateSteppedMigrations("v3", [
          { module: "bank", name: "x", budget: 1, step },
          { module: "bank", name: "x", budget: 2, step },
        ]),
      /upgrade "v3": stepped migration bank\/x is listed twice/,
    );
    for (const budget of [0, -1, 1.5, Number.NaN]) {
      assert.throws(
        () => validateSteppedMigrations("v3", [{ module: "bank", name: "x", budget, step }]),
        /has budget .*: expected a positive integer \(records per block\)/,
      );
    }
    validateSteppedMigrations("v3", [{ module: "bank", name: "x", budget: 10, step }]);
  });
});

describe("prefixMigrationStep", () => {
  it("visits every record under the prefix once, budget a step, with progress from the estimate", async () => {
    const chain = await openTestChain(["notes"]);
    try {
      const setup = chain.context(1n);
      for (let i = 0; i < 7; i++) setup.kvStore("notes").set(enc(`n/${i}`), enc(`v${i}`));
      setup.kvStore("notes").set(enc("other"), enc("untouched"));
      await chain.commit(setup);

      const step = prefixMigrationStep({
        storeKey: "notes",
        prefix: enc("n/"),
        // Writes elsewhere: a second copy under another prefix, and the record itself rewritten in place.
        rewrite: (_ctx, store, key, value) => {
          store.set(key, enc(`${dec(value)}!`));
          store.set(enc(`copy/${dec(key)}`), value);
        },
        estimateTotal: async () => 6n, // a low estimate: progress stays below 1 until done
      });
      const results = [];
      let cursor: Uint8Array | undefined;
      for (let height = 2n; ; height++) {
        const ctx = chain.context(height);
        const result = await step(ctx, cursor, 3);
        await chain.commit(ctx);
        results.push(result === "done" ? "done" : result.progress);
        if (result === "done") break;
        cursor = result.cursor;
      }
      assert.deepEqual(results, [{ done: 3n, total: 6n }, { done: 6n, total: 7n }, "done"]);
      const view = chain.context(10n).kvStore("notes");
      for (let i = 0; i < 7; i++) {
        assert.equal(dec((await view.get(enc(`n/${i}`))) as Uint8Array), `v${i}!`, `n/${i} rewritten once`);
        assert.equal(dec((await view.get(enc(`copy/n/${i}`))) as Uint8Array), `v${i}`);
      }
      assert.equal(dec((await view.get(enc("other"))) as Uint8Array), "untouched");
    } finally {
      await chain.close();
    }
  });

  it("refuses a cursor it did not write", async () => {
    const chain = await openTestChain(["notes"]);
    try {
      const step = prefixMigrationStep({ storeKey: "notes", prefix: enc("n/"), rewrite: () => {} });
      await assert.rejects(step(chain.context(1n), new Uint8Array(3), 5), /cursor of 3 bytes: expected at least 16/);
    } finally {
      await chain.close();
    }
  });
});
