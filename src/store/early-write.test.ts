// A large version's history rows and tree pages are written by stage, before its commit point (README "A large
// version's memory", Step A). The disk must come out row for row as the ordinary way leaves it, and a version that
// never became the latest (discarded, failed, or lost to a crash after its early parts) must leave nothing anyone
// reads: its pages are deleted, and its history rows are dead rows of the keys it wrote.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { b, countRows, failBatchWrites, KEEP_ALL, s, tempDir } from "../../test/support/store/helpers.ts";
import { toHex } from "../bytes/hex.ts";
import { readU64, TABLE } from "./keys.ts";
import type { KVBackend, KVBatch } from "./kv-backend.ts";
import { type MultiStore, type OpenMultiStoreOptions, openMultiStore } from "./multistore.ts";
import { verifyStoreProof } from "./proofs.ts";
import type { PruningOptions, StoreUpgrades } from "./types.ts";

/**
 * Version writes: `count` sets over 900 keys (seeded by `seed`), a delete, and a key in "auth"; `extra`: a store
 * that gets 300 keys of its own.
 */
function writes(store: MultiStore, seed: number, count: number, extra?: string): ReturnType<MultiStore["branch"]> {
  const branch = store.branch();
  const bank = branch.store("bank");
  for (let i = 0; i < count; i++) bank.set(b(`key-${(i * 7 + seed * 31) % 900}`), b(`value-${seed}-${i}`));
  bank.delete(b(`key-${(seed * 3) % 900}`));
  branch.store("auth").set(b("height"), b(`${seed}`));
  if (extra !== undefined) for (let i = 0; i < 300; i++) branch.store(extra).set(b(`${extra}-${i}`), b(`${i}`));
  return branch;
}

/** The bank keys `writes(…, seed, count)` writes. */
function keysOf(seed: number, count: number): Set<string> {
  const keys = new Set<string>();
  for (let i = 0; i < count; i++) keys.add(`key-${(i * 7 + seed * 31) % 900}`);
  keys.add(`key-${(seed * 3) % 900}`);
  return keys;
}

async function commit(store: MultiStore, seed: number, count = 400): Promise<string> {
  const info = await store.stage(writes(store, seed, count));
  await store.commit();
  return toHex(info.appHash);
}

/** Every row of the store's LevelDB, hex key → hex value. */
async function rows(store: MultiStore): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for await (const [k, v] of store.backend.iterate({})) out.set(toHex(k), toHex(v));
  return out;
}

/** Tree pages of versions after `latest`. */
async function pagesAfter(store: MultiStore, latest: number): Promise<number> {
  let n = 0;
  for await (const [k] of store.backend.iterate({
    gte: new Uint8Array([TABLE.node]),
    lt: new Uint8Array([TABLE.node + 1]),
  })) {
    if (readU64(k, 5) > latest) n++;
  }
  return n;
}

const HISTORY = toHex(new Uint8Array([TABLE.history]));

/**
 * `actual`'s rows against `reference`'s: equal but for `actual`'s dead history rows, each of which must be a row of a
 * key in `deadKeys` (the keys a lost version wrote). Returns how many dead rows there were.
 */
async function sameRows(actual: MultiStore, reference: MultiStore, deadKeys = new Set<string>()): Promise<number> {
  const a = await rows(actual);
  const r = await rows(reference);
  for (const [k, v] of r) assert.equal(a.get(k), v, `row ${k}`);
  let dead = 0;
  for (const k of a.keys()) {
    if (r.has(k)) continue;
    assert.ok(k.startsWith(HISTORY), `only history rows may be extra, found ${k}`);
    // h‖sid(4)‖key‖writeNo(6)
    const key = Buffer.from(k.slice(10, k.length - 12), "hex").toString();
    assert.ok(deadKeys.has(key), `an extra history row of ${key}, which the lost version did not write`);
    dead++;
  }
  return dead;
}

async function checkProofs(store: MultiStore, version: bigint): Promise<void> {
  const appHash = (await store.view(version)).appHash as Uint8Array;
  for (const key of ["key-0", "key-31", "key-450", "key-899", "absent"]) {
    const proof = await store.prove("bank", b(key), version);
    assert.ok(verifyStoreProof(proof, appHash), `proof of ${key} at ${version}`);
  }
}

/**
 * A LevelDB store whose "bank" versions of 50 writes or more take the early way (parts of 512 bytes: a version of
 * 400 writes is ~40 parts of history rows and pages), and an in-memory one that takes the ordinary way.
 */
async function pair(pruning: PruningOptions = KEEP_ALL) {
  const dir = await tempDir();
  const options: OpenMultiStoreOptions = {
    path: dir.path,
    storeNames: ["auth", "bank"],
    pruning,
    earlyWriteThreshold: 50,
    pageWritePartBytes: 512,
    nodeCacheSize: 0,
  };
  const store = await openMultiStore(options);
  const reference = await openMultiStore({ backend: "memory", storeNames: ["auth", "bank"], pruning });
  return { dir, options, store, reference };
}

/** Makes the store's batches count their parts; a part fails when `fails` says so. */
function countParts(
  store: MultiStore,
  fails: () => Promise<boolean> = async () => false,
): { parts: () => number; restore: () => void } {
  const backend = (store as unknown as { backend: KVBackend }).backend;
  const makeBatch = backend.batch.bind(backend);
  let parts = 0;
  backend.batch = (): KVBatch => {
    const real = makeBatch();
    return {
      ...real,
      writePart: async (sync: boolean) => {
        parts++;
        if (await fails()) throw new Error("disk full");
        await (real.writePart as (sync: boolean) => Promise<void>)(sync);
      },
    };
  };
  return {
    parts: () => parts,
    restore: () => {
      backend.batch = makeBatch;
    },
  };
}

describe("a large version's history rows and pages written before its commit point", () => {
  test("stage writes them in parts; the committed disk is row for row the ordinary way's", async () => {
    const { dir, options, store, reference } = await pair();
    let reopened: MultiStore | undefined;
    try {
      // Version 1 never takes the early way (a store's first version); 2 and 3 do.
      for (let n = 1; n <= 3; n++) assert.equal(await commit(store, n), await commit(reference, n));
      await store.idle();
      const history = await countRows(store, TABLE.history);
      const latest = await countRows(store, TABLE.latest);
      const counter = countParts(store);
      const info = await store.stage(writes(store, 4, 400));
      counter.restore();
      assert.ok(counter.parts() >= 20, `written in parts at stage (${counter.parts()})`);
      // Before the commit: version 4's pages and history rows are on disk, nothing else of it, and reads are version 3's.
      assert.ok((await pagesAfter(store, 3)) > 0, "version 4's pages are on disk before its commit");
      assert.ok((await countRows(store, TABLE.history)) >= history + 300, "version 4's history rows are on disk");
      assert.equal(await countRows(store, TABLE.latest), latest);
      assert.equal(store.lastCommit().version, 3n);
      const [now, then] = [await store.view(), await reference.view()];
      for (const key of keysOf(4, 400)) {
        assert.equal(s(await now.store("bank").get(b(key))), s(await then.store("bank").get(b(key))), key);
      }
      await store.commit();
      assert.equal(toHex(info.appHash), await commit(reference, 4));
      await store.idle();
      for (let n = 5; n <= 6; n++) assert.equal(await commit(store, n), await commit(reference, n));
      await store.idle();
      assert.equal(await sameRows(store, reference), 0);
      await checkProofs(store, 4n);
      await checkProofs(store, 6n);
      const [at4, ref4] = [await store.view(4n), await reference.view(4n)];
      for (const key of keysOf(4, 400)) {
        assert.equal(s(await at4.store("bank").get(b(key))), s(await ref4.store("bank").get(b(key))), key);
      }
      await store.close();
      reopened = await openMultiStore(options);
      assert.equal(reopened.pagesRebuiltAtOpen.length, 0);
      assert.equal(reopened.lostPagesDeletedAtOpen, 0);
      await checkProofs(reopened, 5n);
    } finally {
      await (reopened ?? store).close();
      await reference.close();
      await dir.remove();
    }
  });

  for (const next of [
    { what: "a large one", count: 300 },
    { what: "an ordinary one", count: 20 },
  ]) {
    test(`a stage discarded after its early parts, then a different version at that height (${next.what})`, async () => {
      const { dir, options, store, reference } = await pair();
      let reopened: MultiStore | undefined;
      try {
        for (let n = 1; n <= 3; n++) assert.equal(await commit(store, n), await commit(reference, n));
        // Seed 40's 500 writes make more pages than the version that replaces it.
        await store.stage(writes(store, 40, 500));
        assert.ok((await pagesAfter(store, 3)) > 0);
        store.discardStaged();
        await store.idle();
        assert.equal(await pagesAfter(store, 3), 0, "the discarded version's pages are gone");
        assert.equal(await commit(store, 4, next.count), await commit(reference, 4, next.count));
        await store.idle();
        const lost = keysOf(40, 500);
        const dead = await sameRows(store, reference, lost);
        assert.ok(dead > 0, "the lost version's history rows of keys the new one did not write are left, dead");
        await checkProofs(store, 4n);
        await checkProofs(store, 3n);
        // Later versions write some of those keys again: their rows are overwritten with the true ones.
        for (let n = 5; n <= 7; n++) assert.equal(await commit(store, n), await commit(reference, n));
        await store.idle();
        assert.ok((await sameRows(store, reference, lost)) < dead);
        for (const v of [3n, 4n, 5n, 7n]) {
          const [a, r] = [await store.view(v), await reference.view(v)];
          for (const key of lost)
            assert.equal(s(await a.store("bank").get(b(key))), s(await r.store("bank").get(b(key))));
        }
        await store.close();
        reopened = await openMultiStore(options);
        assert.equal(reopened.lostPagesDeletedAtOpen, 0);
        await checkProofs(reopened, 4n);
      } finally {
        await (reopened ?? store).close();
        await reference.close();
        await dir.remove();
      }
    });
  }

  test("a crash after the early parts: opening deletes the pages of the version after the latest", async () => {
    const { dir, options, store, reference } = await pair();
    let upgraded: MultiStore | undefined;
    let reopened: MultiStore | undefined;
    try {
      for (let n = 1; n <= 3; n++) assert.equal(await commit(store, n), await commit(reference, n));
      await store.close();
      // A store added at version 4 (an upgrade) and filled: its pages are under a store id no registry names yet.
      const upgrades: StoreUpgrades = { added: ["mint"], renamed: [], deleted: [] };
      upgraded = await openMultiStore({ ...options, storeNames: ["auth", "bank", "mint"], upgrades });
      await upgraded.stage(writes(upgraded, 40, 500, "mint"));
      // The process stops here: the version is staged, its history rows and pages on disk, its commit never written.
      await upgraded.close();
      // And starts again without that upgrade.
      reopened = await openMultiStore(options);
      assert.equal(reopened.lastCommit().version, 3n);
      assert.ok(reopened.lostPagesDeletedAtOpen > 0, "opening deleted the lost version's pages");
      assert.equal(await pagesAfter(reopened, 3), 0);
      assert.equal(await commit(reopened, 4, 100), await commit(reference, 4, 100));
      await reopened.idle();
      const lost = keysOf(40, 500);
      for (let i = 0; i < 300; i++) lost.add(`mint-${i}`);
      await sameRows(reopened, reference, lost);
      await checkProofs(reopened, 4n);
    } finally {
      await (reopened ?? store).close();
      await reference.close();
      await dir.remove();
    }
  });

  test("a stage whose part write fails rejects, and leaves no page behind; a failed commit is retried", async () => {
    const { dir, store, reference } = await pair();
    try {
      for (let n = 1; n <= 3; n++) assert.equal(await commit(store, n), await commit(reference, n));
      await store.idle();
      // The first part written after some of the version's pages are on disk fails.
      let pagesAtFailure = 0;
      const counter = countParts(store, async () => {
        pagesAtFailure = await pagesAfter(store, 3);
        return pagesAtFailure > 0;
      });
      await assert.rejects(store.stage(writes(store, 40, 500)), /disk full/);
      counter.restore();
      assert.ok(pagesAtFailure > 0, "the failure came after some pages were written");
      assert.equal(await pagesAfter(store, 3), 0);
      // The working set is as the failed stage left it (as after any failed stage): drop it.
      store.discardStaged();

      // The commit's own write fails after the early parts: retried, its history rows are not put again.
      await store.idle();
      const restore = failBatchWrites(store, { applied: false });
      const info = await store.stage(writes(store, 4, 400));
      await assert.rejects(store.commit(), { code: "STORE_COMMIT_FAILED" });
      restore();
      await store.commit();
      assert.equal(toHex(info.appHash), await commit(reference, 4));
      await store.idle();
      await sameRows(store, reference, keysOf(40, 500));
      await checkProofs(store, 4n);
    } finally {
      await store.close();
      await reference.close();
      await dir.remove();
    }
  });

  test("pruning frees a large version's pages and rows as any other's", async () => {
    const pruning: PruningOptions = { strategy: "custom", keepRecent: 1n, interval: 1n };
    const { dir, store, reference } = await pair(pruning);
    try {
      for (let n = 1; n <= 8; n++) {
        assert.equal(await commit(store, n), await commit(reference, n));
        // Pruning done before the next stage on both: a key whose deleted row pruning removed starts again at write
        // 1, so where it stood when a stage read it decides a write number (the rows, not the hashes).
        await store.idle();
        await reference.idle();
      }
      assert.equal(await sameRows(store, reference), 0);
      await checkProofs(store, 7n);
    } finally {
      await store.close();
      await reference.close();
      await dir.remove();
    }
  });
});

/** Sets of `count` bank keys of the 900 the first version sets (updates only, no delete), and "auth"'s height. */
function updates(
  store: MultiStore,
  seed: number,
  count: number,
  last?: (bank: ReturnType<MultiStore["branch"]>) => void,
) {
  const branch = store.branch();
  const bank = branch.store("bank");
  for (let i = 0; i < count; i++) bank.set(b(`key-${(i * 7 + seed * 31) % 900}`), b(`updated-${seed}-${i}`));
  branch.store("auth").set(b("height"), b(`${seed}`));
  last?.(branch);
  return branch;
}

async function commitBranch(store: MultiStore, branch: ReturnType<MultiStore["branch"]>): Promise<string> {
  const info = await store.stage(branch);
  await store.commit();
  return toHex(info.appHash);
}

describe("Step C: a large version that only updates keys has its tree streamed at stage", () => {
  test("its pages and every other row are the ordinary way's, byte for byte; reads and proofs at it", async () => {
    const { dir, options, store, reference } = await pair();
    let reopened: MultiStore | undefined;
    try {
      // Version 1 sets every key (a store's first version: never early).
      for (const st of [store, reference]) {
        const branch = st.branch();
        for (let i = 0; i < 900; i++) branch.store("bank").set(b(`key-${i}`), b(`first-${i}`));
        branch.store("auth").set(b("height"), b("1"));
        await commitBranch(st, branch);
      }
      // Updates of 400, 900 and 60 keys: streamed, as many part rotations apart as the 512-byte parts make.
      for (const [n, count] of [
        [2, 400],
        [3, 900],
        [4, 60],
      ]) {
        assert.equal(
          await commitBranch(store, updates(store, n, count)),
          await commitBranch(reference, updates(reference, n, count)),
        );
        await store.idle();
      }
      assert.equal(store.streamCounts.streamed, 3);
      assert.equal(store.streamCounts.redone, 0);
      // Written out while the walk went on, not only at its end.
      assert.ok(
        store.streamCounts.pagesDuringWalk > 10,
        `pages during the walk: ${store.streamCounts.pagesDuringWalk}`,
      );
      // An ordinary version between them, then another streamed one.
      assert.equal(
        await commitBranch(store, updates(store, 5, 20)),
        await commitBranch(reference, updates(reference, 5, 20)),
      );
      assert.equal(
        await commitBranch(store, updates(store, 6, 700)),
        await commitBranch(reference, updates(reference, 6, 700)),
      );
      assert.equal(store.streamCounts.streamed, 4);
      await store.idle();
      assert.equal(await sameRows(store, reference), 0);
      for (const v of [2n, 3n, 4n, 6n]) {
        await checkProofs(store, v);
        const [a, r] = [await store.view(v), await reference.view(v)];
        for (let i = 0; i < 900; i += 37) {
          assert.equal(s(await a.store("bank").get(b(`key-${i}`))), s(await r.store("bank").get(b(`key-${i}`))));
        }
        assert.equal(a.keyCount?.("bank"), 900);
      }
      // Iteration at the streamed version.
      const seen: string[] = [];
      for await (const [k, v] of (await store.view(6n)).store("bank").iterate()) seen.push(`${s(k)}=${s(v)}`);
      const expected: string[] = [];
      for await (const [k, v] of (await reference.view(6n)).store("bank").iterate()) expected.push(`${s(k)}=${s(v)}`);
      assert.deepEqual(seen, expected);
      // The next version's writes go down a streamed tree (its root a stub, read from pages).
      assert.equal(await commit(store, 7), await commit(reference, 7));
      await store.idle();
      assert.equal(await sameRows(store, reference), 0);
      await store.close();
      reopened = await openMultiStore(options);
      assert.equal(reopened.pagesRebuiltAtOpen.length, 0);
      assert.equal(reopened.lostPagesDeletedAtOpen, 0);
      await checkProofs(reopened, 3n);
      await checkProofs(reopened, 6n);
      assert.equal(
        await commitBranch(reopened, updates(reopened, 8, 500)),
        await commitBranch(reference, updates(reference, 8, 500)),
      );
      assert.equal(reopened.streamCounts.streamed, 1);
      await reopened.idle();
      assert.equal(await sameRows(reopened, reference), 0);
      await checkProofs(reopened, 8n);
    } finally {
      await (reopened ?? store).close();
      await reference.close();
      await dir.remove();
    }
  });

  for (const change of [
    {
      what: "an insert late in the walk",
      last: (br: ReturnType<MultiStore["branch"]>) => br.store("bank").set(b("key-zz"), b("new")),
    },
    {
      what: "an insert early in the walk",
      last: (br: ReturnType<MultiStore["branch"]>) => br.store("bank").set(b("key-!"), b("new")),
    },
    {
      what: "a delete late in the walk",
      last: (br: ReturnType<MultiStore["branch"]>) => br.store("bank").delete(b("key-99")),
    },
    {
      what: "a delete of a key the tree does not hold (still streamed)",
      last: (br: ReturnType<MultiStore["branch"]>) => br.store("bank").delete(b("key-zz")),
      streamed: true,
    },
  ]) {
    test(`a version with ${change.what} is written the ordinary way, byte for byte`, async () => {
      const { dir, store, reference } = await pair();
      try {
        for (const st of [store, reference]) {
          const branch = st.branch();
          for (let i = 0; i < 900; i++) branch.store("bank").set(b(`key-${i}`), b(`first-${i}`));
          await commitBranch(st, branch);
        }
        for (const n of [2, 3]) {
          assert.equal(
            await commitBranch(store, updates(store, n, 600, change.last)),
            await commitBranch(reference, updates(reference, n, 600, change.last)),
          );
          await store.idle();
        }
        const { streamed, redone } = store.streamCounts;
        assert.deepEqual(
          { streamed, redone },
          change.streamed ? { streamed: 2, redone: 0 } : { streamed: 1, redone: 1 },
        );
        assert.equal(await sameRows(store, reference), 0);
        await checkProofs(store, 2n);
        await checkProofs(store, 3n);
      } finally {
        await store.close();
        await reference.close();
        await dir.remove();
      }
    });
  }
});

test("Step C with the leaf hasher's worker: the walk writes its tree out at each full job, byte for byte", async () => {
  // 34,000 updates: more than a job of the worker (32,768 leaves), one part of the default size (only a full job ends
  // a stretch).
  const dir = await tempDir();
  const store = await openMultiStore({
    path: dir.path,
    storeNames: ["bank"],
    pruning: KEEP_ALL,
    earlyWriteThreshold: 50,
  });
  const reference = await openMultiStore({ backend: "memory", storeNames: ["bank"], pruning: KEEP_ALL });
  try {
    for (const [n, count] of [
      [1, 34_000],
      [2, 34_000],
    ]) {
      const hashes: string[] = [];
      for (const st of [store, reference]) {
        const branch = st.branch();
        for (let i = 0; i < count; i++) branch.store("bank").set(b(`k-${(i * 7919) % 34_000}`), b(`v-${n}-${i}`));
        hashes.push(await commitBranch(st, branch));
      }
      assert.equal(hashes[0], hashes[1], `version ${n}`);
    }
    assert.equal(store.streamCounts.streamed, 1);
    assert.ok(store.streamCounts.pagesDuringWalk > 0, "pages written before the walk's end");
    await store.idle();
    assert.equal(await sameRows(store, reference), 0);
    const appHash = (await store.view(2n)).appHash as Uint8Array;
    for (const key of ["k-0", "k-20000", "k-33999"]) {
      assert.ok(verifyStoreProof(await store.prove("bank", b(key), 2n), appHash), key);
    }
  } finally {
    await store.close();
    await reference.close();
    await dir.remove();
  }
});

test("beforeEarlyStage is called before a stage that takes the early way, and only then", async () => {
  const dir = await tempDir();
  let calls = 0;
  const store = await openMultiStore({
    path: dir.path,
    storeNames: ["auth", "bank"],
    pruning: KEEP_ALL,
    earlyWriteThreshold: 50,
    beforeEarlyStage: () => {
      calls++;
    },
  });
  try {
    await commit(store, 1); // the store's first version: never early
    await commit(store, 2, 20); // ordinary
    assert.equal(calls, 0);
    await commit(store, 3, 400);
    assert.equal(calls, 1);
  } finally {
    await store.close();
    await dir.remove();
  }
});
