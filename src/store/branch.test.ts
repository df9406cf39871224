import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { b, entries, KEEP_ALL, s } from "../../test/support/store/helpers.ts";
import { setCompactAfter } from "./cache-layer.ts";
import { StoreNotFoundError, StoreUsageError } from "./errors.ts";
import { type MultiStore, openMultiStore } from "./multistore.ts";

// Both forms of a layer's writes: the Map, and the compact form (cache-layer.ts) from the first write.
for (const [form, compactAfter] of [
  ["small", undefined],
  ["compact", 0],
] as const) {
  describe(`branches (${form} layers)`, () => {
    let previous: number | undefined;
    before(() => {
      if (compactAfter !== undefined) previous = setCompactAfter(compactAfter);
    });
    after(() => {
      if (previous !== undefined) setCompactAfter(previous);
    });
    branchTests();
  });
}

function branchTests(): void {
  let store: MultiStore;

  before(async () => {
    store = await openMultiStore({ backend: "memory", storeNames: ["bank", "auth"], pruning: KEEP_ALL });
    const block = store.branch();
    for (const k of ["a", "b", "c", "d", "e", "pa", "pb", "pc", "q"]) block.store("bank").set(b(k), b(`v-${k}`));
    await store.stage(block);
    await store.commit();
  });

  after(() => store.close());

  test("reads see pending writes first, then the committed state", async () => {
    const block = store.branch();
    const bank = block.store("bank");
    bank.set(b("a"), b("new-a"));
    bank.delete(b("b"));
    bank.set(b("zz"), b("v-zz"));
    assert.equal(s(await bank.get(b("a"))), "new-a");
    assert.equal(await bank.get(b("b")), undefined);
    assert.equal(await bank.has(b("b")), false);
    assert.equal(await bank.has(b("c")), true);
    assert.equal(s(await bank.get(b("zz"))), "v-zz");
    assert.equal(await bank.get(b("nope")), undefined);
  });

  test("iteration merges pending writes with the parent in order, hiding deletes", async () => {
    const block = store.branch();
    const bank = block.store("bank");
    bank.set(b("b"), b("new-b"));
    bank.delete(b("c"));
    bank.set(b("ca"), b("v-ca"));
    bank.delete(b("pb"));
    bank.set(b("p"), b("v-p"));
    bank.set(b("0"), b("v-0"));
    bank.delete(b("missing"));
    const all = (await entries(bank.iterate())).map(([k]) => k);
    assert.deepEqual(all, ["0", "a", "b", "ca", "d", "e", "p", "pa", "pc", "q"]);
    const desc = (await entries(bank.iterate({ reverse: true }))).map(([k]) => k);
    assert.deepEqual(desc, [...all].reverse());
    assert.deepEqual(await entries(bank.iterate({ prefix: b("p") })), [
      ["p", "v-p"],
      ["pa", "v-pa"],
      ["pc", "v-pc"],
    ]);
    assert.deepEqual(
      (await entries(bank.iterate({ prefix: b("p"), reverse: true }))).map(([k]) => k),
      ["pc", "pa", "p"],
    );
    assert.deepEqual(
      (await entries(bank.iterate({ start: b("b"), end: b("e") }))).map(([k]) => k),
      ["b", "ca", "d"],
    );
    assert.deepEqual(
      (await entries(bank.iterate({ start: b("b"), end: b("e"), reverse: true }))).map(([k]) => k),
      ["d", "ca", "b"],
    );
    assert.deepEqual(
      (await entries(bank.iterate({ start: b("b"), limit: 2 }))).map(([k]) => k),
      ["b", "ca"],
    );
    assert.deepEqual(await entries(bank.iterate({ start: b("x"), end: b("a") })), []);
    assert.deepEqual(await entries(bank.iterate({ start: b("b"), limit: 1 })), [["b", "new-b"]]);
  });

  test("nested branches layer up; write() flushes one level, dropping discards", async () => {
    const block = store.branch();
    const tx = block.branch();
    tx.store("bank").set(b("a"), b("tx-a"));
    tx.store("bank").delete(b("d"));
    assert.equal(s(await block.store("bank").get(b("a"))), "v-a");
    assert.equal(s(await tx.store("bank").get(b("a"))), "tx-a");
    const inner = tx.branch();
    inner.store("bank").set(b("a"), b("inner-a"));
    assert.deepEqual(
      (await entries(inner.store("bank").iterate({ prefix: b("d") }))).map(([k]) => k),
      [],
      "a delete in the middle layer hides the committed key",
    );
    // inner is dropped without write(): its change is gone.
    tx.write();
    assert.equal(s(await block.store("bank").get(b("a"))), "tx-a");
    assert.equal(await block.store("bank").get(b("d")), undefined);
    const failed = block.branch();
    failed.store("bank").set(b("a"), b("failed"));
    assert.equal(s(await block.store("bank").get(b("a"))), "tx-a");
    // Nothing reached the working set yet.
    assert.equal(s(await store.branch().store("bank").get(b("a"))), "v-a");
  });

  test("writes made while iterating do not disturb the iteration", async () => {
    const block = store.branch();
    const bank = block.store("bank");
    const seen: string[] = [];
    for await (const [k] of bank.iterate({ prefix: b("p") })) {
      seen.push(s(k) as string);
      bank.delete(k);
      bank.set(b(`p${s(k)}x`), b("added"));
    }
    assert.deepEqual(seen, ["pa", "pb", "pc"]);
    assert.deepEqual(
      (await entries(bank.iterate({ prefix: b("p") }))).map(([k]) => k),
      ["ppax", "ppbx", "ppcx"],
    );
  });

  test("stores are separate and unknown stores are refused", async () => {
    const block = store.branch();
    block.store("auth").set(b("a"), b("auth-a"));
    assert.equal(s(await block.store("bank").get(b("a"))), "v-a");
    assert.deepEqual(block.storeNames(), ["auth", "bank"]);
    assert.throws(
      () => block.store("staking"),
      (err: unknown) => {
        assert.ok(err instanceof StoreNotFoundError);
        assert.match(err.message, /store "staking" not found; the stores are: auth, bank/);
        return true;
      },
    );
  });

  test("bad keys, values and options are rejected with what was expected", async () => {
    const bank = store.branch().store("bank");
    assert.throws(() => bank.set(b(""), b("x")), /set: key must not be empty/);
    assert.throws(() => bank.set("a" as unknown as Uint8Array, b("x")), /set: key must be a Uint8Array, got string/);
    assert.throws(() => bank.set(b("a"), undefined as unknown as Uint8Array), /use delete\(\) to remove a key/);
    assert.throws(() => bank.delete(null as unknown as Uint8Array), /delete: key must be a Uint8Array, got null/);
    await assert.rejects(bank.get(b("")), /get: key must not be empty/);
    assert.throws(() => bank.iterate({ limit: -1 }), /limit must be a non-negative integer, got -1/);
    assert.throws(() => bank.iterate({ prefix: "p" as unknown as Uint8Array }), /prefix must be a Uint8Array/);
    // An empty value is a value.
    bank.set(b("empty"), new Uint8Array(0));
    assert.deepEqual(await bank.get(b("empty")), new Uint8Array(0));
  });

  test("a staged version freezes the working set until commit or discard", async () => {
    const block = store.branch();
    block.store("bank").set(b("staged"), b("1"));
    await store.stage(block);
    // A new branch sees the staged writes.
    assert.equal(s(await store.branch().store("bank").get(b("staged"))), "1");
    const late = store.branch();
    late.store("bank").set(b("late"), b("1"));
    assert.throws(
      () => late.write(),
      (err: unknown) => err instanceof StoreUsageError && /is staged/.test(err.message),
    );
    await assert.rejects(store.stage(store.branch()), /already staged/);
    store.discardStaged();
    assert.equal(await store.branch().store("bank").get(b("staged")), undefined);
    late.write();
    assert.equal(s(await store.branch().store("bank").get(b("late"))), "1");
    store.discardStaged();
  });
}
