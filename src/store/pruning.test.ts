import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { b, countRows, s, tempDir } from "../../test/support/store/helpers.ts";
import { FutureVersionError, PrunedVersionError } from "./errors.ts";
import { TABLE } from "./keys.ts";
import { type MultiStore, openMultiStore } from "./multistore.ts";
import { earliestAfterCommit, resolvePruning } from "./pruning.ts";
import type { PruningOptions } from "./types.ts";

/** Commits versions up to `to`: 20 keys rewritten every version, one key created and one deleted. */
async function commitUpTo(store: MultiStore, to: number): Promise<void> {
  for (let v = Number(store.lastCommit().version) + 1; v <= to; v++) {
    const block = store.branch();
    const bank = block.store("bank");
    for (let i = 0; i < 20; i++) bank.set(b(`hot-${i}`), b(`${v}`));
    bank.set(b(`born-${v}`), b(`${v}`));
    bank.delete(b(`born-${v - 1}`));
    await store.stage(block);
    await store.commit();
  }
}

async function withStore(
  pruning: PruningOptions,
  fn: (store: MultiStore, path: string) => Promise<void>,
  batch = 5000,
): Promise<void> {
  const dir = await tempDir();
  const store = await openMultiStore({ path: dir.path, storeNames: ["bank"], pruning, backgroundBatchSize: batch });
  try {
    await fn(store, dir.path);
  } finally {
    await store.close();
    await dir.remove();
  }
}

describe("pruning", () => {
  test("strategies resolve to upstream's numbers", () => {
    assert.deepEqual(resolvePruning({ strategy: "default", keepRecent: 0n, interval: 0n }), {
      strategy: "default",
      keepRecent: 362880,
      interval: 10,
    });
    assert.deepEqual(resolvePruning({ strategy: "nothing", keepRecent: 5n, interval: 5n }), {
      strategy: "nothing",
      keepRecent: 0,
      interval: 0,
    });
    assert.deepEqual(resolvePruning({ strategy: "everything", keepRecent: 0n, interval: 0n }), {
      strategy: "everything",
      keepRecent: 2,
      interval: 10,
    });
    assert.deepEqual(resolvePruning({ strategy: "custom", keepRecent: 100n, interval: 10n }), {
      strategy: "custom",
      keepRecent: 100,
      interval: 10,
    });
    assert.deepEqual(resolvePruning(undefined).keepRecent, 362880);
    assert.throws(
      () => resolvePruning({ strategy: "custom", keepRecent: -1n, interval: 10n }),
      /'pruning-keep-recent' must be a non-negative integer, got -1/,
    );
    // Upstream's rule: after committing H (a multiple of the interval, above keep-recent),
    // versions ≤ H - 1 - keepRecent go.
    const everything = resolvePruning({ strategy: "everything", keepRecent: 0n, interval: 0n });
    assert.equal(earliestAfterCommit(20, everything, 1), 18);
    assert.equal(earliestAfterCommit(25, everything, 18), undefined);
    assert.equal(earliestAfterCommit(10, everything, 1), 8);
    assert.equal(
      earliestAfterCommit(2, resolvePruning({ strategy: "custom", keepRecent: 2n, interval: 1n }), 1),
      undefined,
    );
  });

  test('"everything": at 20 versions 18-20 remain, at 25 versions 18-25; errors name the range', async () => {
    await withStore({ strategy: "everything", keepRecent: 0n, interval: 0n }, async (store) => {
      await commitUpTo(store, 19);
      assert.equal(store.earliestVersion(), 8n);
      await commitUpTo(store, 20);
      assert.equal(store.earliestVersion(), 18n);
      await commitUpTo(store, 25);
      assert.equal(store.earliestVersion(), 18n);
      await store.idle();
      await assert.rejects(store.view(17n), (err: unknown) => {
        assert.ok(err instanceof PrunedVersionError);
        assert.equal(
          err.message,
          "failed to load state at height 17; version pruned (earliest available height: 18, latest height: 25)",
        );
        assert.equal(err.earliest, 18n);
        return true;
      });
      await assert.rejects(store.prove("bank", b("hot-1"), 3n), PrunedVersionError);
      await assert.rejects(store.view(26n), (err: unknown) => {
        assert.ok(err instanceof FutureVersionError);
        assert.equal(
          err.message,
          "cannot query with height in the future; please provide a valid height (latest height: 25)",
        );
        return true;
      });
      for (let v = 18; v <= 25; v++) {
        const view = await store.view(BigInt(v));
        const bank = view.store("bank");
        assert.equal(s(await bank.get(b("hot-7"))), `${v}`);
        assert.equal(s(await bank.get(b(`born-${v}`))), `${v}`);
        assert.equal(await bank.get(b(`born-${v - 1}`)), undefined);
        let n = 0;
        for await (const _ of bank.iterate()) n++;
        assert.equal(n, 21);
        const proof = await store.prove("bank", b("hot-3"), BigInt(v));
        assert.equal(s(proof.value), `${v}`);
      }
      // What pruning removed is really gone: history rows for 8 retained versions of 21 keys
      // (plus the pruned deletes' rows within the window), commit infos from 18 on.
      assert.ok((await countRows(store, TABLE.history)) <= 8 * 21 + 16, "history rows are bounded");
      assert.equal(await countRows(store, TABLE.commit), 8);
      assert.equal(await countRows(store, TABLE.deleted), 7, "deleted rows of pruned deletes are gone");
    });
  });

  test('"nothing" keeps every version; "default" keeps 362880 of them', async () => {
    for (const strategy of ["nothing", "default"] as const) {
      await withStore({ strategy, keepRecent: 0n, interval: 0n }, async (store) => {
        await commitUpTo(store, 30);
        await store.idle();
        assert.equal(store.earliestVersion(), 1n);
        const v1 = await store.view(1n);
        assert.equal(s(await v1.store("bank").get(b("hot-0"))), "1");
        assert.equal(s(await v1.store("bank").get(b("born-1"))), "1");
        assert.equal(await countRows(store, TABLE.commit), 30);
      });
    }
  });

  test('"custom" uses the given keep-recent and interval', async () => {
    await withStore({ strategy: "custom", keepRecent: 3n, interval: 5n }, async (store) => {
      await commitUpTo(store, 4);
      assert.equal(store.earliestVersion(), 1n);
      await commitUpTo(store, 9);
      assert.equal(store.earliestVersion(), 2n, "at 5: 5 - 3");
      await commitUpTo(store, 10);
      assert.equal(store.earliestVersion(), 7n);
      await commitUpTo(store, 14);
      assert.equal(store.earliestVersion(), 7n);
      await commitUpTo(store, 15);
      assert.equal(store.earliestVersion(), 12n);
      await store.idle();
      await assert.rejects(store.view(11n), /earliest available height: 12, latest height: 15/);
      assert.equal(s(await (await store.view(12n)).store("bank").get(b("hot-0"))), "12");
    });
  });

  test("pruning runs in small batches after commits, never inside them, and resumes after a restart", async () => {
    const dir = await tempDir();
    const pruning: PruningOptions = { strategy: "custom", keepRecent: 1n, interval: 30n };
    try {
      const store = await openMultiStore({ path: dir.path, storeNames: ["bank"], pruning, backgroundBatchSize: 1 });
      await commitUpTo(store, 29);
      const before = await countRows(store, TABLE.history);
      await commitUpTo(store, 30);
      assert.equal(store.earliestVersion(), 29n);
      // The commit returned with the old rows still there: the work is queued, one row per batch.
      assert.ok((await countRows(store, TABLE.history)) > before / 2, "pruning did not run inside the commit");
      // Commits go on while pruning is pending, and retained versions read right meanwhile.
      await commitUpTo(store, 31);
      assert.equal(s(await (await store.view(29n)).store("bank").get(b("hot-5"))), "29");
      await store.close();
      const reopened = await openMultiStore({
        path: dir.path,
        storeNames: ["bank"],
        pruning,
        backgroundBatchSize: 1000,
      });
      try {
        await reopened.idle();
        assert.ok((await countRows(reopened, TABLE.history)) <= 3 * 21 + 4);
        assert.equal(await countRows(reopened, TABLE.changelog), 2, "only the changelogs of retained versions remain");
        assert.equal(s(await (await reopened.view(29n)).store("bank").get(b("hot-5"))), "29");
        assert.equal(s(await (await reopened.view(31n)).store("bank").get(b("born-31"))), "31");
      } finally {
        await reopened.close();
      }
    } finally {
      await dir.remove();
    }
  });

  test("old tree pages are freed once every node on them is dead, and proofs still work", async () => {
    await withStore({ strategy: "custom", keepRecent: 2n, interval: 1n }, async (store) => {
      await commitUpTo(store, 40);
      await store.idle();
      // 21 live keys need ~20 inner nodes per version; three versions retained.
      assert.ok((await countRows(store, TABLE.node)) <= 3 * 2 + 4, "node pages are bounded");
      for (let v = 38; v <= 40; v++) {
        const proof = await store.prove("bank", b("hot-11"), BigInt(v));
        assert.equal(s(proof.value), `${v}`);
      }
    });
  });
});
