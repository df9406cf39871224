// A committed view's synchronous point read (`ReadOnlyStore.getNow`, the read every query's gas store makes) answers
// exactly as `get` does: values, deletes, missing keys, keys the last block wrote, views held across commits, with
// the latest-value cache warm, cold or off, and after pruning (the same error).
import assert from "node:assert/strict";
import { test } from "node:test";
import { b, commitWrites, KEEP_ALL, s, tempDir } from "../../test/support/store/helpers.ts";
import { PrunedVersionError } from "./errors.ts";
import { type MultiStore, openMultiStore } from "./multistore.ts";
import type { PruningOptions, ReadableKVStore } from "./types.ts";

function getNowOf(store: ReadableKVStore): (key: Uint8Array) => Uint8Array | undefined {
  const getNow = store.getNow;
  assert.ok(getNow !== undefined, "a committed view's store has getNow");
  return (key) => getNow.call(store, key);
}

/** Reads `keys` through both APIs in the given order and asserts the same answers. */
async function assertSameAnswers(view: ReadableKVStore, keys: string[], nowFirst: boolean, label: string) {
  const getNow = getNowOf(view);
  for (const key of keys) {
    let viaNow: string | undefined;
    let viaGet: string | undefined;
    if (nowFirst) {
      viaNow = s(getNow(b(key)));
      viaGet = s(await view.get(b(key)));
    } else {
      viaGet = s(await view.get(b(key)));
      viaNow = s(getNow(b(key)));
    }
    assert.equal(viaNow, viaGet, `${label}: key ${key}`);
  }
}

async function withStore(
  options: { latestCacheBytes?: number; pruning?: PruningOptions },
  body: (store: MultiStore) => Promise<void>,
): Promise<void> {
  const dir = await tempDir();
  const store = await openMultiStore({
    path: dir.path,
    storeNames: ["bank"],
    pruning: options.pruning ?? KEEP_ALL,
    latestCacheBytes: options.latestCacheBytes,
  });
  try {
    await body(store);
  } finally {
    await store.close();
    await dir.remove();
  }
}

// A small xorshift so a failure replays.
function generator(seed: number): () => number {
  let x = seed;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

for (const latestCacheBytes of [undefined, 2_000, 0]) {
  test(`getNow answers as get over a random history (latestCacheBytes ${latestCacheBytes ?? "default"})`, async () => {
    await withStore({ latestCacheBytes }, async (store) => {
      const random = generator(38);
      const keys = Array.from({ length: 40 }, (_, i) => `key-${i}`);
      const held: { version: bigint; view: ReadableKVStore }[] = [];
      for (let block = 0; block < 12; block++) {
        const writes: [string, string | null][] = [];
        for (const key of keys) {
          const roll = random();
          if (roll < 0.25) writes.push([key, `${key}@${block}`]);
          else if (roll < 0.35) writes.push([key, null]);
        }
        const version = await commitWrites(store, writes);
        const latest = (await store.view(version)).store("bank");
        // Keys the last block wrote or deleted, keys it did not touch, keys never written.
        const probe = [...keys, "never-written", "key-"];
        await assertSameAnswers(latest, probe, block % 2 === 0, `latest ${version}`);
        await assertSameAnswers(latest, probe, block % 2 === 1, `latest ${version} again`);
        held.push({ version, view: latest });
        // Views made earlier, now historical (one of them made while it was the latest).
        for (const { version: v, view } of held) await assertSameAnswers(view, probe, random() < 0.5, `held ${v}`);
      }
    });
  });
}

test("getNow at the latest version sees the last block's sets and deletes of keys read before it", async () => {
  await withStore({}, async (store) => {
    const v1 = await commitWrites(store, [
      ["a", "a1"],
      ["b", "b1"],
    ]);
    const atV1 = (await store.view(v1)).store("bank");
    const nowV1 = getNowOf(atV1);
    // Cached through both APIs (get keeps a promise, getNow only the row).
    assert.equal(s(nowV1(b("a"))), "a1");
    assert.equal(s(await atV1.get(b("b"))), "b1");
    assert.equal(nowV1(b("c")), undefined);
    const v2 = await commitWrites(store, [
      ["a", null],
      ["b", "b2"],
      ["c", "c2"],
    ]);
    const atV2 = (await store.view(v2)).store("bank");
    const nowV2 = getNowOf(atV2);
    assert.equal(nowV2(b("a")), undefined);
    assert.equal(s(nowV2(b("b"))), "b2");
    assert.equal(s(nowV2(b("c"))), "c2");
    // The view held from v1 still reads v1.
    assert.equal(s(nowV1(b("a"))), "a1");
    assert.equal(s(nowV1(b("b"))), "b1");
    assert.equal(nowV1(b("c")), undefined);
  });
});

test("getNow rejects what get rejects: bad keys, and a view whose version was pruned", async () => {
  const pruning: PruningOptions = { strategy: "custom", keepRecent: 2n, interval: 1n };
  await withStore({ pruning }, async (store) => {
    const v1 = await commitWrites(store, [["a", "a1"]]);
    const old = (await store.view(v1)).store("bank");
    const nowOld = getNowOf(old);
    assert.equal(s(nowOld(b("a"))), "a1");
    assert.throws(() => nowOld(new Uint8Array(0)), /get: key must not be empty/);
    await assert.rejects(old.get(new Uint8Array(0)), /get: key must not be empty/);
    let last = v1;
    for (let i = 2; i <= 6; i++) last = await commitWrites(store, [["a", `a${i}`]]);
    await store.idle();
    assert.ok(store.earliestVersion() > v1, `earliest ${store.earliestVersion()}`);
    await assert.rejects(old.get(b("a")), PrunedVersionError);
    assert.throws(() => nowOld(b("a")), PrunedVersionError);
    // Retained versions, the latest included, read the same through both.
    for (let v = store.earliestVersion(); v <= last; v++) {
      await assertSameAnswers((await store.view(v)).store("bank"), ["a", "b"], v % 2n === 0n, `retained ${v}`);
    }
  });
});
