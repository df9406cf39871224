// The latest-value cache (latest-cache.ts): bounded, and never the source of a value from another version
// than the one read — after commits that overwrite and delete cached keys, through views held across
// commits, a discarded stage, a failed commit whose rows reached LevelDB, a restart, and against the same
// store with the cache off over random histories.
import assert from "node:assert/strict";
import { test } from "node:test";
import { b, cacheOf, commitWrites, failBatchWrites, KEEP_ALL, s, tempDir } from "../../test/support/store/helpers.ts";
import { ABSENT_ROW, LatestValueCache } from "./latest-cache.ts";
import { type MultiStore, openMultiStore } from "./multistore.ts";
import { verifyStoreProof } from "./proofs.ts";
import type { PruningOptions } from "./types.ts";

async function readAt(store: MultiStore, version: bigint, key: string): Promise<string | undefined> {
  return s(await (await store.view(version)).store("bank").get(b(key)));
}

test("the cache holds at most its byte bound, keeps what is read again, and refuses rows newer than its version", () => {
  const cache = new LatestValueCache(64 * 1024);
  cache.version = 5;
  const row = (n: number) => ({ value: new Uint8Array(100), version: n, writeNo: 1, prevVersion: 0 });
  for (let i = 0; i < 10_000; i++) {
    cache.fill(1, `k${i}`, row(3));
    // Read the hot key again as the others stream past.
    if (cache.lookup(1, "hot") === undefined) cache.fill(1, "hot", row(4));
  }
  // (key + value + overhead) ≈ 360 bytes an entry: 64 KiB holds ~180 across both generations.
  assert.ok(cache.size <= 260, `size ${cache.size}`);
  assert.ok(cache.size >= 100, `size ${cache.size}`);
  assert.equal(cache.lookup(1, "hot")?.version, 4);
  cache.fill(1, "future", row(6));
  assert.equal(cache.lookup(1, "future"), undefined);
  cache.commitStarted();
  cache.fill(1, "during", row(2));
  assert.equal(cache.lookup(1, "during"), undefined);
  cache.commitDone(6, [[1, ["hot"]]]);
  assert.equal(cache.lookup(1, "hot"), undefined);
  cache.fill(1, "absent", ABSENT_ROW);
  assert.equal(cache.lookup(1, "absent"), ABSENT_ROW);
  cache.commitFailed();
  assert.equal(cache.size, 0);
  cache.fill(1, "after-failure", row(2));
  assert.equal(cache.lookup(1, "after-failure"), undefined);
  const off = new LatestValueCache(0);
  off.fill(1, "k", row(0));
  assert.equal(off.size, 0);
  assert.throws(() => new LatestValueCache(-1), /latestCacheBytes must be a non-negative integer/);
});

test("cached keys that a commit overwrites or deletes read the new state at latest and the old one at older versions", async () => {
  const dir = await tempDir();
  const store = await openMultiStore({ path: dir.path, storeNames: ["bank"], pruning: KEEP_ALL });
  try {
    const v1 = await commitWrites(store, [
      ["a", "a1"],
      ["b", "b1"],
      ["c", "c1"],
    ]);
    const atV1 = (await store.view(v1)).store("bank");
    // Fill: values, and an absent key.
    assert.equal(s(await atV1.get(b("a"))), "a1");
    assert.equal(s(await atV1.get(b("b"))), "b1");
    assert.equal(s(await atV1.get(b("c"))), "c1");
    assert.equal(await atV1.get(b("new")), undefined);
    assert.ok(cacheOf(store).size >= 4);
    const v2 = await commitWrites(store, [
      ["a", "a2"],
      ["b", null],
      ["new", "n2"],
    ]);
    assert.equal(await readAt(store, v2, "a"), "a2");
    assert.equal(await readAt(store, v2, "b"), undefined);
    assert.equal(await readAt(store, v2, "new"), "n2");
    assert.equal(await readAt(store, v2, "c"), "c1");
    // The view made while v1 was the latest still reads v1, cached or not.
    for (let round = 0; round < 2; round++) {
      assert.equal(s(await atV1.get(b("a"))), "a1");
      assert.equal(s(await atV1.get(b("b"))), "b1");
      assert.equal(s(await atV1.get(b("c"))), "c1");
      assert.equal(await atV1.get(b("new")), undefined);
    }
    // The working set (a branch's parent) reads through the cache too.
    const branch = store.branch();
    assert.equal(s(await branch.store("bank").get(b("a"))), "a2");
    assert.equal(await branch.store("bank").get(b("b")), undefined);
    // A key deleted and set again, and an older version read after the cache holds its newest row.
    const v3 = await commitWrites(store, [["b", "b3"]]);
    assert.equal(await readAt(store, v3, "b"), "b3");
    assert.equal(await readAt(store, v2, "b"), undefined);
    assert.equal(await readAt(store, v1, "b"), "b1");
    // Proofs read their value through the cache: the proven value is the version's.
    const proof = await store.prove("bank", b("a"), v1);
    assert.equal(s(proof.value), "a1");
    const appHash = (await store.view(v1)).appHash;
    assert.ok(appHash !== undefined && verifyStoreProof(proof, appHash));
  } finally {
    await store.close();
    await dir.remove();
  }
});

test("a kept promise answers repeated reads at the latest version only until a commit writes its key", async () => {
  const dir = await tempDir();
  const store = await openMultiStore({ path: dir.path, storeNames: ["bank"], pruning: KEEP_ALL });
  try {
    const v1 = await commitWrites(store, [
      ["a", "a1"],
      ["b", "b1"],
    ]);
    const atV1 = (await store.view(v1)).store("bank");
    const first = atV1.get(b("a"));
    assert.equal(s(await first), "a1");
    // The second read hands out the promise the first one kept (and a missing key's too).
    assert.equal(atV1.get(b("a")), first);
    assert.equal(await atV1.get(b("none")), undefined);
    assert.equal(atV1.get(b("none")), atV1.get(b("none")));
    const v2 = await commitWrites(store, [
      ["a", "a2"],
      ["none", "n2"],
    ]);
    const atV2 = (await store.view(v2)).store("bank");
    assert.equal(s(await atV2.get(b("a"))), "a2");
    assert.equal(s(await atV2.get(b("none"))), "n2");
    // b was not written: its kept promise still answers at v2; the view at v1 reads v1's rows.
    assert.equal(s(await atV2.get(b("b"))), "b1");
    assert.equal(s(await atV1.get(b("a"))), "a1");
    assert.equal(await atV1.get(b("none")), undefined);
    await assert.rejects(atV2.get(new Uint8Array(0)), /get: key must not be empty/);
  } finally {
    await store.close();
    await dir.remove();
  }
});

test("a discarded stage and a failed commit whose rows reached LevelDB leave reads at the committed version", async () => {
  const dir = await tempDir();
  const store = await openMultiStore({ path: dir.path, storeNames: ["bank"], pruning: KEEP_ALL });
  try {
    const v1 = await commitWrites(store, [
      ["x", "x1"],
      ["y", "y1"],
    ]);
    assert.equal(await readAt(store, v1, "x"), "x1");
    const discarded = store.branch();
    discarded.store("bank").set(b("x"), b("never"));
    await store.stage(discarded);
    store.discardStaged();
    assert.equal(await readAt(store, v1, "x"), "x1");

    // The batch is applied, then the write reports failure (a sync error after LevelDB took the rows).
    await store.idle();
    const restore = failBatchWrites(store, { applied: true });
    const failing = store.branch();
    failing.store("bank").set(b("x"), b("x2"));
    failing.store("bank").delete(b("y"));
    await store.stage(failing);
    await assert.rejects(store.commit(), { code: "STORE_COMMIT_FAILED" });
    restore();
    assert.equal(store.lastCommit().version, v1);
    // Cached or from LevelDB, version 1 is what version 1 reads.
    for (let round = 0; round < 2; round++) {
      assert.equal(await readAt(store, v1, "x"), "x1");
      assert.equal(await readAt(store, v1, "y"), "y1");
    }
    const v2 = (await store.commit()).version;
    assert.equal(await readAt(store, v2, "x"), "x2");
    assert.equal(await readAt(store, v2, "y"), undefined);
    assert.equal(await readAt(store, v1, "y"), "y1");
  } finally {
    await store.close();
    await dir.remove();
  }
});

test("after a restart the cache starts empty and reads and commits continue from the committed state", async () => {
  const dir = await tempDir();
  let store = await openMultiStore({ path: dir.path, storeNames: ["bank"], pruning: KEEP_ALL });
  try {
    const v1 = await commitWrites(store, [
      ["p", "p1"],
      ["q", "q1"],
    ]);
    assert.equal(await readAt(store, v1, "p"), "p1");
    const v2 = await commitWrites(store, [
      ["p", "p2"],
      ["q", null],
    ]);
    assert.equal(await readAt(store, v2, "p"), "p2");
    await store.close();
    store = await openMultiStore({ path: dir.path, storeNames: ["bank"], pruning: KEEP_ALL });
    assert.equal(cacheOf(store).size, 0);
    for (let round = 0; round < 2; round++) {
      assert.equal(await readAt(store, v2, "p"), "p2");
      assert.equal(await readAt(store, v2, "q"), undefined);
      assert.equal(await readAt(store, v1, "p"), "p1");
      assert.equal(await readAt(store, v1, "q"), "q1");
    }
    const v3 = await commitWrites(store, [["q", "q3"]]);
    assert.equal(await readAt(store, v3, "q"), "q3");
    assert.equal(await readAt(store, v3, "p"), "p2");
  } finally {
    await store.close();
    await dir.remove();
  }
});

test("a pruned version is refused even when its keys are cached", async () => {
  const dir = await tempDir();
  const store = await openMultiStore({
    path: dir.path,
    storeNames: ["bank"],
    pruning: { strategy: "custom", keepRecent: 2n, interval: 1n },
  });
  try {
    const v1 = await commitWrites(store, [["k", "k1"]]);
    const old = (await store.view(v1)).store("bank");
    assert.equal(s(await old.get(b("k"))), "k1");
    for (let i = 0; i < 4; i++) await commitWrites(store, [[`other-${i}`, "o"]]);
    await store.idle();
    await assert.rejects(old.get(b("k")), { code: "STORE_VERSION_PRUNED" });
    assert.equal(await readAt(store, store.lastCommit().version, "k"), "k1");
  } finally {
    await store.close();
    await dir.remove();
  }
});

async function randomHistories(pruning: PruningOptions): Promise<void> {
  const dir = await tempDir();
  const sizes = [undefined, 2048, 0];
  const stores = await Promise.all(
    sizes.map((latestCacheBytes, i) =>
      openMultiStore({ path: `${dir.path}/s${i}`, storeNames: ["bank"], pruning, latestCacheBytes }),
    ),
  );
  // A deterministic generator, so a failure repeats.
  let seed = 12345;
  const next = (n: number) => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed % n;
  };
  const model: Map<string, string>[] = [new Map()];
  try {
    for (let v = 1; v <= 40; v++) {
      const writes: [string, string | null][] = [];
      for (let i = 0; i < 6; i++) writes.push([`key-${next(25)}`, next(4) === 0 ? null : `v${v}-${i}`]);
      const state = new Map(model[v - 1]);
      for (const [k, val] of writes) {
        if (val === null) state.delete(k);
        else state.set(k, val);
      }
      model.push(state);
      for (const store of stores) {
        assert.equal(await commitWrites(store, writes), BigInt(v));
        await store.idle();
      }
      // Reads at random retained versions between commits (filling the cache at the latest and below it,
      // history rows included).
      const earliest = Number(stores[0].earliestVersion());
      for (let r = 0; r < 30; r++) {
        const at = earliest + next(v - earliest + 1);
        const key = `key-${next(25)}`;
        for (const [i, store] of stores.entries()) {
          assert.equal(await readAt(store, BigInt(at), key), model[at].get(key), `store ${i} ${key} at ${at} of ${v}`);
        }
      }
    }
  } finally {
    for (const store of stores) await store.close();
    await dir.remove();
  }
}

test("random histories read the same at every version with the cache on, tiny, and off", async () => {
  await randomHistories(KEEP_ALL);
});

test("random histories read the same at every retained version while pruning deletes history rows", async () => {
  await randomHistories({ strategy: "custom", keepRecent: 5n, interval: 1n });
});

// The cache's rows are probed with the key's bytes (byte-key-table.ts) and dropped by commits by binary string:
// the two must meet for keys of every length, the ones longer than a slot's 56 inline bytes and ones that differ
// only past them included, and a caller's key array may change after a read.
for (const latestCacheBytes of [undefined, 4096]) {
  test(`getNow's byte-keyed rows follow overwrites, deletes and a failed commit for short and long keys (latestCacheBytes ${latestCacheBytes ?? "default"})`, async () => {
    const dir = await tempDir();
    const store = await openMultiStore({ path: dir.path, storeNames: ["bank"], pruning: KEEP_ALL, latestCacheBytes });
    const longPrefix = "a-key-longer-than-the-inline-part-of-a-table-slot-".repeat(2);
    const names = [
      ...Array.from({ length: 6 }, (_, i) => `short-${i}`),
      ...Array.from({ length: 6 }, (_, i) => `${longPrefix}${i}`),
    ];
    let seed = 777;
    const next = (n: number) => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed % n;
    };
    const model: Map<string, string>[] = [new Map()];
    const nowAt = async (version: number) => {
      const view = (await store.view(BigInt(version))).store("bank");
      const getNow = view.getNow;
      assert.ok(getNow !== undefined);
      return (name: string) => {
        const key = b(name);
        const value = s(getNow.call(view, key));
        // The cache kept its own copy of the key: scribbling on the caller's array changes nothing.
        key.fill(0);
        return value;
      };
    };
    const checkAll = async (label: string) => {
      const latest = model.length - 1;
      for (const at of [latest, Math.max(1, latest - 1), Math.max(1, latest - 3)]) {
        const read = await nowAt(at);
        for (let round = 0; round < 2; round++) {
          for (const name of names) assert.equal(read(name), model[at].get(name), `${label}: ${name} at ${at}`);
        }
      }
    };
    try {
      for (let v = 1; v <= 12; v++) {
        const writes: [string, string | null][] = [];
        for (let i = 0; i < 4; i++) writes.push([names[next(names.length)], next(3) === 0 ? null : `v${v}-${i}`]);
        const state = new Map(model[v - 1]);
        for (const [k, val] of writes) {
          if (val === null) state.delete(k);
          else state.set(k, val);
        }
        model.push(state);
        assert.equal(await commitWrites(store, writes), BigInt(v));
        await checkAll(`after version ${v}`);
      }
      // A failed commit whose rows reached LevelDB: reads stay at the committed version, then the retry lands.
      await store.idle();
      const restore = failBatchWrites(store, { applied: true });
      const failing = store.branch();
      const retried = new Map(model[model.length - 1]);
      for (const name of [names[0], names[7]]) {
        failing.store("bank").set(b(name), b("retried"));
        retried.set(name, "retried");
      }
      failing.store("bank").delete(b(names[8]));
      retried.delete(names[8]);
      await store.stage(failing);
      await assert.rejects(store.commit(), { code: "STORE_COMMIT_FAILED" });
      restore();
      await checkAll("after the failed commit");
      await store.commit();
      model.push(retried);
      await checkAll("after the retried commit");
    } finally {
      await store.close();
      await dir.remove();
    }
  });
}
