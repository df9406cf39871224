import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import fc from "fast-check";
import { b, entries, KEEP_ALL, s } from "../../test/support/store/helpers.ts";
import { StoreUsageError } from "./errors.ts";
import { type MultiStore, openMultiStore } from "./multistore.ts";
import type { BranchMultiStore } from "./types.ts";

const KEYS = ["a", "b", "c", "pa", "pb", "pc", "q"];

describe("work done ahead of a block on a branch that records its reads", () => {
  let store: MultiStore;

  before(async () => {
    store = await openMultiStore({ backend: "memory", storeNames: ["bank", "auth"], pruning: KEEP_ALL });
    const block = store.branch();
    for (const k of KEYS) block.store("bank").set(b(k), b(`v-${k}`));
    await store.stage(block);
    await store.commit();
  });

  after(() => store.close());

  test("joins a block that wrote nothing it read: the block then reads the work's writes", async () => {
    const ahead = store.aheadBranch();
    const bank = ahead.store("bank");
    bank.set(b("a"), b(`${s(await bank.get(b("a")))}+1`));
    bank.delete(b("b"));
    const block = store.branch();
    block.store("auth").set(b("x"), b("from the block"));
    block.store("bank").set(b("q"), b("q by the block"));
    assert.equal(ahead.fitsInto(block), true);
    ahead.joinInto(block);
    assert.equal(s(await block.store("bank").get(b("a"))), "v-a+1");
    assert.equal(await block.store("bank").get(b("b")), undefined);
    assert.equal(s(await block.store("bank").get(b("q"))), "q by the block");
    assert.equal(s(await block.store("auth").get(b("x"))), "from the block");
  });

  test("does not fit a block that wrote a key it read, and refuses to join it", async () => {
    const ahead = store.aheadBranch();
    await ahead.store("bank").get(b("c"));
    ahead.store("bank").set(b("a"), b("ahead"));
    const block = store.branch();
    block.store("bank").set(b("c"), b("changed"));
    assert.equal(ahead.fitsInto(block), false);
    assert.throws(() => ahead.joinInto(block), StoreUsageError);
    assert.equal(s(await block.store("bank").get(b("a"))), "v-a");
  });

  test("does not fit a block that wrote inside a range it scanned, even past where it stopped", async () => {
    const ahead = store.aheadBranch();
    assert.deepEqual(await entries(limit(ahead.store("bank").iterate({ prefix: b("p") }), 1)), [["pa", "v-pa"]]);
    const inside = store.branch();
    inside.store("bank").set(b("pz"), b("new"));
    assert.equal(ahead.fitsInto(inside), false);
    const outside = store.branch();
    outside.store("bank").set(b("q"), b("new"));
    outside.store("bank").set(b("o"), b("new"));
    assert.equal(ahead.fitsInto(outside), true);
  });

  test("a key only written ahead may be written by the block too: the work's value comes last", async () => {
    const ahead = store.aheadBranch();
    ahead.store("bank").set(b("a"), b("ahead"));
    const block = store.branch();
    block.store("bank").set(b("a"), b("block"));
    assert.equal(ahead.fitsInto(block), true);
    ahead.joinInto(block);
    assert.equal(s(await block.store("bank").get(b("a"))), "ahead");
  });

  test("reads and writes of a nested branch count as its own", async () => {
    const ahead = store.aheadBranch();
    const inner = ahead.branch();
    await inner.store("auth").get(b("k"));
    inner.store("bank").set(b("n"), b("nested"));
    inner.write();
    const block = store.branch();
    block.store("auth").set(b("k"), b("block"));
    assert.equal(ahead.fitsInto(block), false);
    const other = store.branch();
    assert.equal(ahead.fitsInto(other), true);
    ahead.joinInto(other);
    assert.equal(s(await other.store("bank").get(b("n"))), "nested");
  });

  test("readies the commit of its writes without changing the state: the same app hash with or without", async () => {
    const commitWith = async (warm: boolean): Promise<string> => {
      const copy = await openMultiStore({ backend: "memory", storeNames: ["bank", "auth"], pruning: KEEP_ALL });
      try {
        const first = copy.branch();
        for (let i = 0; i < 500; i++) first.store("bank").set(b(`k${String(i).padStart(4, "0")}`), b(`v${i}`));
        await copy.stage(first);
        await copy.commit();
        const ahead = copy.aheadBranch();
        for (let i = 0; i < 500; i += 7) ahead.store("bank").set(b(`k${String(i).padStart(4, "0")}`), b(`w${i}`));
        ahead.store("bank").set(b("k9999"), b("new"));
        ahead.store("bank").delete(b("k0003"));
        if (warm) ahead.warm();
        const block = copy.branch();
        ahead.joinInto(block);
        return Buffer.from((await copy.stage(block)).appHash).toString("hex");
      } finally {
        await copy.close();
      }
    };
    assert.equal(await commitWith(true), await commitWith(false));
  });

  test("is never written into the working set itself, and fits only a block's top-level branch", () => {
    const ahead = store.aheadBranch();
    assert.throws(() => ahead.write(), StoreUsageError);
    assert.equal(ahead.fitsInto(store.branch().branch()), false);
  });

  test("when it fits, the block's state is what running the same work on the block's branch gives", async () => {
    const key = fc.constantFrom(...KEYS, "pd", "r");
    const op = fc.oneof(
      fc.record({ kind: fc.constant("get" as const), key }),
      fc.record({ kind: fc.constant("scan" as const), prefix: fc.constantFrom("p", "", "q") }),
      fc.record({ kind: fc.constant("set" as const), key }),
      fc.record({ kind: fc.constant("delete" as const), key }),
    );
    const blockWrite = fc.record({ key, value: fc.option(fc.constantFrom("x", "y"), { nil: undefined }) });
    let fitted = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 8 }), fc.array(blockWrite, { maxLength: 3 }), async (work, writes) => {
        const blockFirst = (branch: BranchMultiStore): void => {
          for (const w of writes) {
            if (w.value === undefined) branch.store("bank").delete(b(w.key));
            else branch.store("bank").set(b(w.key), b(w.value));
          }
        };
        // The work folds everything it read into what it writes, so a stale read shows in the result.
        const run = async (branch: BranchMultiStore): Promise<void> => {
          const bank = branch.store("bank");
          let seen = "";
          for (const o of work) {
            if (o.kind === "get") seen += `${s(await bank.get(b(o.key)))};`;
            else if (o.kind === "scan") seen += JSON.stringify(await entries(bank.iterate({ prefix: b(o.prefix) })));
            else if (o.kind === "set") bank.set(b(o.key), b(seen));
            else bank.delete(b(o.key));
          }
        };
        const ahead = store.aheadBranch();
        await run(ahead);
        // Half the cases ready the commit ahead too (sorted writes, tree nodes loaded): it must change nothing.
        if (work.length % 2 === 0) ahead.warm();
        const block = store.branch();
        blockFirst(block);
        if (!ahead.fitsInto(block)) return;
        fitted++;
        ahead.joinInto(block);
        const inline = store.branch();
        blockFirst(inline);
        await run(inline);
        assert.deepEqual(await entries(block.store("bank").iterate()), await entries(inline.store("bank").iterate()));
      }),
      { numRuns: 300 },
    );
    assert.ok(fitted > 50, `only ${fitted} of 300 random cases fitted: the property checked too little`);
  });
});

async function* limit<T>(source: AsyncIterable<T>, count: number): AsyncIterable<T> {
  let n = 0;
  for await (const item of source) {
    if (n++ >= count) return;
    yield item;
  }
}
