// A commit writes its tree pages in a second batch after the synced first one (rows, changelog,
// commit info). These tests make that second write fail — as a crash between the two writes would
// leave it — and check that the version stays whole: in the process (pinned nodes, a retry by the
// next commit) and after a restart (the pages rebuilt from the previous version's tree).
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { b, failBatchWrites, KEEP_ALL, s, tempDir } from "../../test/support/store/helpers.ts";
import { toHex } from "../bytes/hex.ts";
import { storeKey, TABLE } from "./keys.ts";
import { type KVBackend, openLevelBackend } from "./kv-backend.ts";
import { type MultiStore, type OpenMultiStoreOptions, openMultiStore } from "./multistore.ts";
import { verifyStoreProof } from "./proofs.ts";
import type { StoreUpgrades } from "./types.ts";

/** Version `n`'s writes: updates, inserts and a delete in "bank", one key in every other store. */
function writes(store: MultiStore, n: number): ReturnType<MultiStore["branch"]> {
  const branch = store.branch();
  const bank = branch.store("bank");
  for (let i = 0; i < 400; i++) bank.set(b(`key-${(i * 7 + n * 31) % 900}`), b(`value-${n}-${i}`));
  bank.delete(b(`key-${n * 3}`));
  bank.delete(b("never-there"));
  for (const name of store.storeNames()) {
    if (name === "bank") continue;
    branch.store(name).set(b("height"), b(`${n}`));
    branch.store(name).set(b(`at-${n}`), b(`${n}`));
  }
  return branch;
}

async function commit(store: MultiStore, n: number): Promise<string> {
  const info = await store.stage(writes(store, n));
  await store.commit();
  return toHex(info.appHash);
}

/** Stages version `n` with its rows' batch intact, then commits it with the pages' write failing. */
async function commitLosingPages(store: MultiStore, n: number): Promise<string> {
  // The previous version's pages are written after its commit resolved: they must not meet the failure.
  await store.idle();
  const info = await store.stage(writes(store, n));
  const restore = failBatchWrites(store, { applied: false });
  try {
    await store.commit();
    // The pages are encoded and written after the commit resolves: the failure stays until they were tried.
    await store.idle();
  } finally {
    restore();
  }
  return toHex(info.appHash);
}

/** Every key of the workload, a deleted one and an absent one: proven against the version's app hash. */
async function checkProofs(store: MultiStore, version: bigint): Promise<void> {
  const appHash = (await store.view(version)).appHash as Uint8Array;
  for (const key of ["key-0", "key-31", "key-450", "key-899", `key-${Number(version) * 3}`, "never-there"]) {
    const proof = await store.prove("bank", b(key), version);
    assert.ok(verifyStoreProof(proof, appHash), `proof of ${key} at ${version}`);
  }
}

/**
 * A LevelDB store's options without a node cache — everything the tree needs is read from its pages (or, in
 * process, the pinned nodes) — and an in-memory reference store that commits the same versions.
 */
async function uncachedPair() {
  const dir = await tempDir();
  const options: OpenMultiStoreOptions = { path: dir.path, storeNames: ["bank"], pruning: KEEP_ALL, nodeCacheSize: 0 };
  const reference = await openMultiStore({ backend: "memory", storeNames: ["bank"], pruning: KEEP_ALL });
  return { dir, options, reference };
}

describe("tree pages written after the commit", () => {
  test("a lost page write is rebuilt at the next open: same root hash, proofs and historical reads", async () => {
    const { dir, options, reference } = await uncachedPair();
    let store = await openMultiStore(options);
    try {
      for (let n = 1; n <= 3; n++) assert.equal(await commit(store, n), await commit(reference, n));
      assert.equal(await commitLosingPages(store, 4), await commit(reference, 4));
      // In the process the version's nodes stay pinned: proofs still work without the pages.
      await checkProofs(store, 4n);
      await store.close();

      store = await openMultiStore(options);
      assert.deepEqual(store.pagesRebuiltAtOpen.length, 1, "the pages of version 4 were rebuilt");
      assert.equal(toHex(store.lastCommit().appHash), toHex(reference.lastCommit().appHash));
      await checkProofs(store, 4n);
      await checkProofs(store, 3n);
      assert.equal(s(await (await store.view(4n)).store("bank").get(b("key-124"))), "value-4-0");
      assert.equal(await (await store.view(4n)).store("bank").get(b("key-12")), undefined);
      assert.equal(s(await (await store.view(3n)).store("bank").get(b("key-93"))), "value-3-0");
      await store.close();
      // Rebuilt once: the next open finds them.
      store = await openMultiStore(options);
      assert.equal(store.pagesRebuiltAtOpen.length, 0);
      for (let n = 5; n <= 6; n++) assert.equal(await commit(store, n), await commit(reference, n));
      await checkProofs(store, 4n);
      await checkProofs(store, 6n);
    } finally {
      await store.close();
      await reference.close();
      await dir.remove();
    }
  });

  test("pages written in parts: a part that fails leaves them pending, and a restart after some parts rebuilds them", async () => {
    const { dir, options, reference } = await uncachedPair();
    // ~400 writes make a few hundred new nodes, ~6 pages: parts of 512 bytes put one page in each.
    const partOptions: OpenMultiStoreOptions = { ...options, pageWritePartBytes: 512 };
    let store = await openMultiStore(partOptions);
    const backend = (store as unknown as { backend: KVBackend }).backend;
    const makeBatch = backend.batch.bind(backend);
    let partsWritten = 0;
    /** From now on every page write's parts are counted, and with `failSecond` its second part fails (its first reaches LevelDB). */
    const watchParts = (failSecond: boolean): (() => void) => {
      backend.batch = () => {
        const real = makeBatch();
        let parts = 0;
        return {
          ...real,
          writePart: async (sync: boolean) => {
            if (++parts === 2 && failSecond) throw new Error("disk full");
            await (real.writePart as (sync: boolean) => Promise<void>)(sync);
            partsWritten++;
          },
        };
      };
      return () => {
        backend.batch = makeBatch;
      };
    };
    const failSecondPart = () => watchParts(true);
    try {
      const unwatch = watchParts(false);
      for (let n = 1; n <= 2; n++) assert.equal(await commit(store, n), await commit(reference, n));
      await store.idle();
      unwatch();
      assert.ok(partsWritten >= 4, `the versions' pages were written in parts (${partsWritten})`);
      // In the process: the failed part leaves the pages pending and the nodes pinned; the next commit writes them.
      await store.idle();
      let restore = failSecondPart();
      const hash3 = toHex((await store.stage(writes(store, 3))).appHash);
      await store.commit();
      await store.idle();
      restore();
      assert.equal(hash3, await commit(reference, 3));
      await checkProofs(store, 3n);
      assert.equal(await commit(store, 4), await commit(reference, 4));
      await store.idle();
      await checkProofs(store, 3n);
      await checkProofs(store, 4n);

      // Across a restart: version 5's first page is on disk, its root's page is not; opening rebuilds them all.
      restore = failSecondPart();
      const hash5 = toHex((await store.stage(writes(store, 5))).appHash);
      await store.commit();
      await store.idle();
      restore();
      assert.equal(hash5, await commit(reference, 5));
      await store.close();
      store = await openMultiStore(partOptions);
      assert.equal(store.pagesRebuiltAtOpen.length, 1, "the pages of version 5 were rebuilt");
      assert.equal(toHex(store.lastCommit().appHash), hash5);
      await checkProofs(store, 5n);
      await checkProofs(store, 4n);
      for (let n = 6; n <= 7; n++) assert.equal(await commit(store, n), await commit(reference, n));
      await store.idle();
      await checkProofs(store, 7n);
      await store.close();
      // Written whole: the next open finds them.
      store = await openMultiStore(partOptions);
      assert.equal(store.pagesRebuiltAtOpen.length, 0);
      await checkProofs(store, 7n);
    } finally {
      await store.close();
      await reference.close();
      await dir.remove();
    }
  });

  test("the first version, a store added at that version, and pruning that keeps only the latest", async () => {
    const dir = await tempDir();
    const pruning = { strategy: "custom", keepRecent: 0n, interval: 1n } as const;
    const reference = await openMultiStore({ backend: "memory", storeNames: ["bank"], pruning });
    let store = await openMultiStore({ path: dir.path, storeNames: ["bank"], pruning });
    try {
      // The first version has no tree before it.
      assert.equal(await commitLosingPages(store, 1), await commit(reference, 1));
      await store.close();
      store = await openMultiStore({ path: dir.path, storeNames: ["bank"], pruning });
      assert.equal(store.pagesRebuiltAtOpen.length, 1);
      await checkProofs(store, 1n);
      for (let n = 2; n <= 3; n++) assert.equal(await commit(store, n), await commit(reference, n));
      await store.close();
      await reference.close();

      // A store added by an upgrade at the version whose pages are lost (an empty tree before it); pruning
      // keeps only the latest version, so the tree the rebuild starts from is one pruning must not free yet.
      const upgrades: StoreUpgrades = { added: ["mint"], renamed: [], deleted: [] };
      const names = ["bank", "mint"];
      store = await openMultiStore({ path: dir.path, storeNames: names, pruning, upgrades });
      const hash = await commitLosingPages(store, 4);
      await store.idle();
      assert.equal(store.earliestVersion(), 4n);
      await store.close();
      store = await openMultiStore({ path: dir.path, storeNames: names, pruning });
      assert.equal(store.pagesRebuiltAtOpen.length, 2, "both stores' pages were rebuilt");
      assert.equal(toHex(store.lastCommit().appHash), hash);
      await checkProofs(store, 4n);
      const proof = await store.prove("mint", b("height"), 4n);
      assert.ok(verifyStoreProof(proof, store.lastCommit().appHash));
      await commit(store, 5);
      await store.idle();
      await checkProofs(store, 5n);
    } finally {
      await store.close();
      await dir.remove();
    }
  });

  test("a failed page write is retried by the next commit, which fails only if the retry fails", async () => {
    const { dir, options, reference } = await uncachedPair();
    let store = await openMultiStore(options);
    try {
      for (let n = 1; n <= 2; n++) assert.equal(await commit(store, n), await commit(reference, n));
      assert.equal(await commitLosingPages(store, 3), await commit(reference, 3));
      // The disk is still failing when version 4 comes: its commit fails and leaves it staged.
      const staged = await store.stage(writes(store, 4));
      const restore = failBatchWrites(store, { applied: false });
      await assert.rejects(store.commit(), (err: Error) => {
        assert.equal((err as { code?: string }).code, "STORE_COMMIT_FAILED");
        assert.match(err.message, /tree pages of version 3 could not be written/);
        return true;
      });
      restore();
      // The disk is back: the retry writes version 3's pages, then version 4.
      await store.commit();
      assert.equal(toHex(staged.appHash), await commit(reference, 4));
      await store.idle();
      await store.close();
      store = await openMultiStore(options);
      assert.equal(store.pagesRebuiltAtOpen.length, 0, "nothing to rebuild: the retry wrote the pages");
      await checkProofs(store, 3n);
      await checkProofs(store, 4n);
    } finally {
      await store.close();
      await reference.close();
      await dir.remove();
    }
  });

  test("a rebuilt tree that does not match the commit info is reported as corruption", async () => {
    const dir = await tempDir();
    const options: OpenMultiStoreOptions = { path: dir.path, storeNames: ["bank"], pruning: KEEP_ALL };
    const store = await openMultiStore(options);
    try {
      await commit(store, 1);
      await commitLosingPages(store, 2);
    } finally {
      await store.close();
    }
    try {
      // Damage: a row version 2 wrote is gone, so replaying version 2 gives another tree.
      const backend = await openLevelBackend(dir.path);
      const sid = 1;
      await backend.write([{ key: storeKey(TABLE.latest, sid, b("key-62")), value: undefined }], true);
      await backend.close();
      await assert.rejects(openMultiStore(options), { code: "STORE_DIR_CORRUPT" });
    } finally {
      await dir.remove();
    }
  });
});
