// A top-level branch remembers what it read from the committed state (as upstream's cachekv): a block or a
// CheckTx reads the same params and module accounts for every tx, and each such read was a LevelDB lookup.
// Writes always win over remembered reads, at every level and after every flush.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { ClassicLevel } from "classic-level";
import { b, KEEP_ALL, s, tempDir } from "../../test/support/store/helpers.ts";
import { type MultiStore, openMultiStore } from "./multistore.ts";

// Counts LevelDB point reads (the real database's, wrapped for the test).
const proto = ClassicLevel.prototype as unknown as { getSync: (...args: unknown[]) => unknown };
const realGetSync = proto.getSync;
let levelReads = 0;

describe("read cache of top-level branches", () => {
  let store: MultiStore;
  let removeDir: () => Promise<void>;

  before(async () => {
    const dir = await tempDir();
    removeDir = dir.remove;
    // Without the latest-value cache, which would answer the second branch's read (latest-cache.test.ts).
    store = await openMultiStore({ path: dir.path, storeNames: ["bank"], pruning: KEEP_ALL, latestCacheBytes: 0 });
    const block = store.branch();
    for (const k of ["params", "a", "b", "c"]) block.store("bank").set(b(k), b(`v-${k}`));
    await store.stage(block);
    await store.commit();
    proto.getSync = function (this: unknown, ...args: unknown[]) {
      levelReads++;
      return realGetSync.apply(this, args);
    };
  });

  after(async () => {
    proto.getSync = realGetSync;
    await store.close();
    await removeDir();
  });

  test("a key (present or absent) is read from LevelDB once per top-level branch, at any nesting depth", async () => {
    const block = store.branch();
    const start = levelReads;
    for (let tx = 0; tx < 5; tx++) {
      const nested = block.branch().branch();
      assert.equal(s(await nested.store("bank").get(b("params"))), "v-params");
      assert.equal(await nested.store("bank").get(b("missing")), undefined);
      assert.equal(await nested.store("bank").has(b("missing")), false);
    }
    assert.equal(levelReads - start, 2, "one read for params, one for the absent key");
    // Another branch has its own cache.
    assert.equal(s(await store.branch().store("bank").get(b("params"))), "v-params");
    assert.equal(levelReads - start, 3);
  });

  test("writes win over remembered reads: set, delete, nested flushes (first and later), discarded branches", async () => {
    const block = store.branch();
    const bank = block.store("bank");
    assert.equal(s(await bank.get(b("a"))), "v-a");
    assert.equal(s(await bank.get(b("b"))), "v-b");
    assert.equal(s(await bank.get(b("c"))), "v-c");
    bank.set(b("a"), b("new-a"));
    assert.equal(s(await bank.get(b("a"))), "new-a");
    bank.delete(b("a"));
    assert.equal(await bank.get(b("a")), undefined);
    // A nested branch's first flush into this layer (it hands over its whole map) and a later one.
    const first = block.branch();
    first.store("bank").set(b("b"), b("tx1-b"));
    first.write();
    assert.equal(s(await bank.get(b("b"))), "tx1-b");
    const second = block.branch();
    second.store("bank").set(b("c"), b("tx2-c"));
    second.store("bank").delete(b("b"));
    second.write();
    assert.equal(s(await bank.get(b("c"))), "tx2-c");
    assert.equal(await bank.get(b("b")), undefined);
    // A nested branch dropped without write(): nothing of it shows.
    const dropped = block.branch();
    dropped.store("bank").set(b("params"), b("never"));
    assert.equal(s(await bank.get(b("params"))), "v-params");
    // Staged and committed, then read through a new branch: the block's writes.
    await store.stage(block);
    await store.commit();
    const next = store.branch().store("bank");
    assert.equal(await next.get(b("a")), undefined);
    assert.equal(await next.get(b("b")), undefined);
    assert.equal(s(await next.get(b("c"))), "tx2-c");
    // And the staged branch itself, read again after its flush, answers the same (no stale remembered value).
    assert.equal(s(await bank.get(b("c"))), "tx2-c");
    assert.equal(await bank.get(b("a")), undefined);
  });

  test("a branch that lives while another is staged keeps answering what it read before (as a check state)", async () => {
    const check = store.branch();
    assert.equal(s(await check.store("bank").get(b("params"))), "v-params");
    const block = store.branch();
    block.store("bank").set(b("params"), b("v2-params"));
    await store.stage(block);
    assert.equal(s(await check.store("bank").get(b("params"))), "v-params");
    await store.commit();
    assert.equal(s(await store.branch().store("bank").get(b("params"))), "v2-params");
  });
});
