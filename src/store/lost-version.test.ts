// A lost version beside a reference (round 3 session 27's review of Step B, README "A large version's memory"): a
// large version's updates write their latest rows before its commit point. Each test drives a LevelDB store that
// takes the early way (threshold 50 writes, parts of 512 bytes) beside a reference that takes the ordinary way,
// through a lost version (a crash, a discard, a failed stage) or the window between a stage and its commit, and
// checks that every read at every retained version (point reads, scans, proofs, the next block's working set) is
// the reference's, and that the commits after it come out the same. The last group's tests failed before their fixes
// (pruning inside the window, a cached history row across a key's restart, a discard of an applied commit).
import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, test } from "node:test";
import { b, cacheOf, entries, failBatchWrites, KEEP_ALL, s, tempDir } from "../../test/support/store/helpers.ts";
import { assertSameReads, both, branchOf, commitOps, type Op } from "../../test/support/store/ops.ts";
import { toHex } from "../bytes/hex.ts";
import { decodeLatestRow } from "./flat-state.ts";
import { storeKey, TABLE } from "./keys.ts";
import { type KVBackend, openLevelBackend } from "./kv-backend.ts";
import { partialVersionKey, undoLatestRowsAfter } from "./lost-latest-rows.ts";
import { type MultiStore, type OpenMultiStoreOptions, openMultiStore } from "./multistore.ts";
import { exportState } from "./state-export.ts";
import { importState } from "./state-import.ts";
import type { PruningOptions, StoreUpgrades } from "./types.ts";

const KEYS = Array.from({ length: 120 }, (_, i) => `k${String(i).padStart(3, "0")}`);

/** The working set of the next block (a fresh top-level branch) against the reference's latest view. */
async function assertWorkingSet(
  got: MultiStore,
  want: MultiStore,
  names: string[],
  keys: string[],
  label: string,
): Promise<void> {
  const w = await want.view();
  const branch = got.branch();
  for (const name of names) {
    for (const key of keys) {
      assert.equal(
        s(await branch.store(name).get(b(key))),
        s(await w.store(name).get(b(key))),
        `${label}: working set ${name}/${key}`,
      );
    }
    assert.deepEqual(
      await entries(branch.store(name).iterate()),
      await entries(w.store(name).iterate()),
      `${label}: working set scan of ${name}`,
    );
  }
}

/** Rows of one table (keys.ts TABLE), hex key → hex value. */
async function tableRows(backend: KVBackend, table: number): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for await (const [k, v] of backend.iterate({ gte: Uint8Array.of(table), lt: Uint8Array.of(table + 1) }))
    out.set(toHex(k), toHex(v));
  return out;
}

/**
 * The flat rows a reader depends on: latest and deleted rows equal the reference's row for row, and every history
 * row the reference holds is on disk with the same bytes (extra history rows are a lost version's dead rows).
 */
async function assertSameFlatRows(got: MultiStore, want: MultiStore, label: string): Promise<void> {
  for (const table of [TABLE.latest, TABLE.deleted]) {
    assert.deepEqual(
      await tableRows(got.backend, table),
      await tableRows(want.backend, table),
      `${label}: table ${String.fromCharCode(table)}`,
    );
  }
  const g = await tableRows(got.backend, TABLE.history);
  for (const [k, v] of await tableRows(want.backend, TABLE.history))
    assert.equal(g.get(k), v, `${label}: history row ${k}`);
}

/** Latest rows of every store whose version is after `latest`. */
async function rowsAfter(backend: KVBackend, latest: number): Promise<number> {
  let n = 0;
  for await (const [, row] of backend.iterate({
    gte: Uint8Array.of(TABLE.latest),
    lt: Uint8Array.of(TABLE.latest + 1),
  })) {
    if (decodeLatestRow(row, true).version > latest) n++;
  }
  return n;
}

/** Versions 1 (every key of "bank" set) and 2 (every third updated), on both stores. */
async function twoVersions(store: MultiStore, reference: MultiStore): Promise<void> {
  await both(
    store,
    reference,
    KEYS.map((k): Op => ["bank", k, `v1-${k}`]),
  );
  await both(
    store,
    reference,
    KEYS.filter((_, i) => i % 3 === 0).map((k): Op => ["bank", k, `v2-${k}`]),
  );
}

function earlyOptions(path: string, storeNames: string[], pruning: PruningOptions = KEEP_ALL): OpenMultiStoreOptions {
  return { path, storeNames, pruning, earlyWriteThreshold: 50, pageWritePartBytes: 512, nodeCacheSize: 0 };
}

/** Every key of "bank" updated (the lost version's writes), plus an insert and a delete. */
function updateAll(tag: string, name = "bank"): Op[] {
  const ops: Op[] = KEYS.map((k) => [name, k, `${tag}-${k}`]);
  ops.push([name, `new-${tag}`, tag], [name, KEYS[5], null], ["auth", "height", tag]);
  return ops;
}

describe("a lost version's early latest rows", () => {
  test("crash in the window on an imported home (updates over imported write 1): reopen, reads, same-height commit", async () => {
    const dir = await tempDir();
    const names = ["auth", "bank"];
    const source = await openMultiStore({ backend: "memory", storeNames: names, pruning: KEEP_ALL });
    const replica = await openMultiStore({ backend: "memory", storeNames: names, pruning: KEEP_ALL });
    let restored: MultiStore | undefined;
    try {
      // Versions 1-3 on source and replica: every key set, then a few updated (keys at writes 1 to 3).
      for (const store of [source, replica]) {
        await commitOps(store, [...KEYS.map((k): Op => ["bank", k, `v1-${k}`]), ["auth", "height", "1"]]);
        await commitOps(store, [...KEYS.filter((_, i) => i % 3 === 0).map((k): Op => ["bank", k, `v2-${k}`])]);
        await commitOps(store, [...KEYS.filter((_, i) => i % 6 === 0).map((k): Op => ["bank", k, `v3-${k}`])]);
      }
      const path = join(dir.path, "restored");
      await importState({ path, version: 3n, items: exportState(source, 3n), storeNames: names });
      const options = earlyOptions(path, names);
      restored = await openMultiStore(options);
      // Version 4 (ordinary) supersedes some imported write 1s; version 5 is lost: every key updated, early.
      await both(
        restored,
        replica,
        KEYS.filter((_, i) => i % 4 === 0).map((k): Op => ["bank", k, `v4-${k}`]),
      );
      await restored.stage(branchOf(restored, updateAll("lost")));
      assert.ok((await rowsAfter(restored.backend, 4)) > 100, "the updates' latest rows are on disk");
      await restored.close(); // the crash
      restored = await openMultiStore(options);
      assert.ok(restored.latestRowsUndoneAtOpen > 100, `undone at open: ${restored.latestRowsUndoneAtOpen}`);
      assert.equal(await rowsAfter(restored.backend, 4), 0);
      assert.equal(restored.backend.getSync(partialVersionKey()), undefined);
      await assertSameReads(restored, replica, names, KEYS, "after the reopen");
      // The same height, other writes (large again), then writes over the keys the lost version wrote.
      await both(restored, replica, updateAll("v5").slice(40));
      await assertSameReads(restored, replica, names, [...KEYS, "new-lost", "new-v5"], "after v5");
      await both(restored, replica, updateAll("v6"));
      await both(
        restored,
        replica,
        KEYS.filter((_, i) => i % 2 === 1).map((k): Op => ["bank", k, `v7-${k}`]),
      );
      await assertSameReads(restored, replica, names, [...KEYS, "new-lost", "new-v5", "new-v6"], "after v7");
    } finally {
      await restored?.close();
      await source.close();
      await replica.close();
      await dir.remove();
    }
  });

  test("discard with pruning (keep 1): the next block's reads before the undo, the rows after, the same height re-run", async () => {
    const dir = await tempDir();
    const names = ["auth", "bank"];
    const pruning: PruningOptions = { strategy: "custom", keepRecent: 1n, interval: 1n };
    const store = await openMultiStore(earlyOptions(dir.path, names, pruning));
    const reference = await openMultiStore({ backend: "memory", storeNames: names, pruning });
    try {
      // Keys deleted and set again around the lost version; some written only at version 1 (their history rows old).
      await both(store, reference, [...KEYS.map((k): Op => ["bank", k, `v1-${k}`]), ["auth", "height", "1"]]);
      await both(store, reference, [
        ...KEYS.filter((_, i) => i % 5 === 0).map((k): Op => ["bank", k, null]),
        ...KEYS.filter((_, i) => i % 5 === 1).map((k): Op => ["bank", k, `v2-${k}`]),
      ]);
      await both(store, reference, [
        ...KEYS.filter((_, i) => i % 10 === 0).map((k): Op => ["bank", k, `v3-${k}`]),
        ...KEYS.filter((_, i) => i % 5 === 1).map((k): Op => ["bank", k, `v3-${k}`]),
      ]);
      await both(store, reference, [...KEYS.filter((_, i) => i % 5 === 2).map((k): Op => ["bank", k, null])]);
      await both(store, reference, [["auth", "height", "5"]]);
      // Version 6, lost: every key set (updates early; inserts over deleted rows in the batch).
      await store.stage(branchOf(store, updateAll("lost")));
      assert.ok((await rowsAfter(store.backend, 5)) > 50);
      store.discardStaged();
      // Before the undo behind the discard has run.
      await assertWorkingSet(store, reference, names, KEYS, "before the undo");
      await assertSameReads(store, reference, names, KEYS, "before the undo");
      await store.idle();
      assert.equal(await rowsAfter(store.backend, 5), 0);
      assert.equal(store.backend.getSync(partialVersionKey()), undefined);
      await assertSameFlatRows(store, reference, "after the undo");
      // The height again, ordinary; then a large version; then the keys again.
      await both(store, reference, [["bank", KEYS[1], "v6"]]);
      await assertSameFlatRows(store, reference, "after v6");
      await assertSameReads(store, reference, names, [...KEYS, "new-lost"], "after v6");
      await both(store, reference, updateAll("v7"));
      await both(store, reference, updateAll("v8"));
      await assertSameFlatRows(store, reference, "after v8");
      await assertSameReads(store, reference, names, [...KEYS, "new-lost", "new-v7", "new-v8"], "after v8");
    } finally {
      await store.close();
      await reference.close();
      await dir.remove();
    }
  });

  test("two early stores in one version, a crash inside the undo between them, then reopen", async () => {
    const dir = await tempDir();
    const names = ["auth", "bank", "dex"];
    const options = earlyOptions(dir.path, names);
    let store = await openMultiStore(options);
    const reference = await openMultiStore({ backend: "memory", storeNames: names, pruning: KEEP_ALL });
    try {
      const fill = (tag: string): Op[] => [
        ...KEYS.map((k): Op => ["bank", k, `${tag}-${k}`]),
        ...KEYS.map((k): Op => ["dex", k, `${tag}-d-${k}`]),
      ];
      await both(store, reference, fill("v1"));
      await both(store, reference, fill("v2"));
      await store.stage(branchOf(store, [...updateAll("lost"), ...updateAll("lost", "dex")]));
      assert.ok((await rowsAfter(store.backend, 2)) > 200);
      await store.close();
      // The open's undo stops after three batches of 50 rows (the first store done, the second begun).
      const backend = await openLevelBackend(dir.path);
      const makeBatch = backend.batch.bind(backend);
      let writes = 0;
      backend.batch = () => {
        const real = makeBatch();
        return {
          ...real,
          write: async (sync: boolean) => {
            if (++writes > 3) throw new Error("power cut");
            await real.write(sync);
          },
        };
      };
      await assert.rejects(undoLatestRowsAfter(backend, 2, true, 50), /power cut/);
      backend.batch = makeBatch;
      await backend.close();
      store = await openMultiStore(options);
      assert.ok(store.latestRowsUndoneAtOpen > 0);
      assert.equal(await rowsAfter(store.backend, 2), 0);
      await assertSameFlatRows(store, reference, "after the reopen");
      await assertSameReads(store, reference, names, KEYS, "after the reopen");
      await both(store, reference, [...updateAll("v3", "dex"), ...updateAll("v3")].slice(30));
      await both(store, reference, fill("v4"));
      await assertSameFlatRows(store, reference, "after v4");
      await assertSameReads(store, reference, names, [...KEYS, "new-lost", "new-v3"], "after v4");
    } finally {
      await store.close();
      await reference.close();
      await dir.remove();
    }
  });

  test("a store renamed and a store added by the lost version's upgrade, crash, reopen without then with it", async () => {
    const dir = await tempDir();
    const before = ["auth", "bank"];
    const after = ["auth", "mint", "vault"];
    const upgrades: StoreUpgrades = { added: ["mint"], renamed: [{ oldKey: "bank", newKey: "vault" }], deleted: [] };
    const options = earlyOptions(join(dir.path, "early"), before);
    // The reference: the ordinary way, on LevelDB (it is reopened with the upgrade too).
    const refOptions: OpenMultiStoreOptions = { path: join(dir.path, "ref"), storeNames: before, pruning: KEEP_ALL };
    let store = await openMultiStore(options);
    let reference = await openMultiStore(refOptions);
    try {
      await both(
        store,
        reference,
        KEYS.map((k): Op => ["bank", k, `v1-${k}`]),
      );
      await both(
        store,
        reference,
        KEYS.filter((_, i) => i % 2 === 0).map((k): Op => ["bank", k, `v2-${k}`]),
      );
      await store.close();
      store = await openMultiStore({ ...options, storeNames: after, upgrades });
      await store.stage(
        branchOf(store, [...updateAll("lost", "vault"), ...KEYS.map((k): Op => ["mint", k, `m-${k}`])]),
      );
      assert.ok((await rowsAfter(store.backend, 2)) > 50);
      await store.close(); // the crash
      store = await openMultiStore(options); // without the upgrade
      assert.ok(store.latestRowsUndoneAtOpen > 50);
      await assertSameFlatRows(store, reference, "reopened without the upgrade");
      await assertSameReads(store, reference, before, KEYS, "reopened without the upgrade");
      await store.close();
      await reference.close();
      store = await openMultiStore({ ...options, storeNames: after, upgrades });
      reference = await openMultiStore({ ...refOptions, storeNames: after, upgrades });
      await both(store, reference, [
        ...updateAll("v3", "vault").slice(20),
        ...KEYS.slice(0, 60).map((k): Op => ["mint", k, `m3-${k}`]),
      ]);
      await both(store, reference, updateAll("v4", "vault"));
      await assertSameFlatRows(store, reference, "with the upgrade");
      await assertSameReads(store, reference, after, [...KEYS, "new-lost", "new-v3"], "with the upgrade");
    } finally {
      await store.close();
      await reference.close();
      await dir.remove();
    }
  });

  test("the latest-value cache through a stage, a discard and the re-run: warm keys read the committed rows", async () => {
    const dir = await tempDir();
    const names = ["auth", "bank"];
    const store = await openMultiStore(earlyOptions(dir.path, names));
    const reference = await openMultiStore({ backend: "memory", storeNames: names, pruning: KEEP_ALL });
    try {
      await twoVersions(store, reference);
      const warm = async () => {
        const view = await store.view();
        for (const k of KEYS) await view.store("bank").get(b(k));
        for (const k of KEYS) await (await store.view(1n)).store("bank").get(b(k));
      };
      await warm();
      assert.ok(cacheOf(store).size > 100);
      await store.stage(branchOf(store, updateAll("lost")));
      await assertSameReads(store, reference, names, KEYS, "staged");
      store.discardStaged();
      await assertSameReads(store, reference, names, KEYS, "discarded");
      await store.idle();
      await both(
        store,
        reference,
        KEYS.filter((_, i) => i % 4 === 0).map((k): Op => ["bank", k, `v3-${k}`]),
      );
      await warm();
      await assertSameReads(store, reference, names, KEYS, "after the re-run");
      await assertWorkingSet(store, reference, names, KEYS, "after the re-run");
    } finally {
      await store.close();
      await reference.close();
      await dir.remove();
    }
  });

  test("a failed stage (a part fails) and a failed commit (not applied) then a discard: rows undone", async () => {
    const dir = await tempDir();
    const names = ["auth", "bank"];
    const store = await openMultiStore(earlyOptions(dir.path, names));
    const reference = await openMultiStore({ backend: "memory", storeNames: names, pruning: KEEP_ALL });
    try {
      await twoVersions(store, reference);
      // A part fails after some early latest rows are on disk.
      const backend = store.backend;
      const makeBatch = backend.batch.bind(backend);
      let parts = 0;
      backend.batch = () => {
        const real = makeBatch();
        return {
          ...real,
          writePart: async (sync: boolean) => {
            if (++parts > 4) throw new Error("disk full");
            await (real.writePart as (sync: boolean) => Promise<void>)(sync);
          },
        };
      };
      await assert.rejects(store.stage(branchOf(store, updateAll("lost"))), /disk full/);
      backend.batch = makeBatch;
      assert.equal(await rowsAfter(store.backend, 2), 0, "the failed stage undid its rows");
      store.discardStaged();
      await assertWorkingSet(store, reference, names, KEYS, "after the failed stage");
      // The commit's batch fails (nothing applied), then the version is discarded.
      await store.idle();
      const restore = failBatchWrites(store, { applied: false });
      await store.stage(branchOf(store, updateAll("lost2")));
      assert.ok((await rowsAfter(store.backend, 2)) > 50);
      await assert.rejects(store.commit(), { code: "STORE_COMMIT_FAILED" });
      restore();
      store.discardStaged();
      await assertWorkingSet(store, reference, names, KEYS, "after the failed commit's discard");
      await store.idle();
      assert.equal(await rowsAfter(store.backend, 2), 0);
      await assertSameFlatRows(store, reference, "after the discard");
      await both(store, reference, updateAll("v3").slice(30));
      await assertSameFlatRows(store, reference, "after v3");
      await assertSameReads(store, reference, names, [...KEYS, "new-lost", "new-lost2", "new-v3"], "after v3");
    } finally {
      await store.close();
      await reference.close();
      await dir.remove();
    }
  });
});

describe("pruning in the window and right after an import", () => {
  for (const keepRecent of [0n, 1n]) {
    test(`pruning (keep ${keepRecent}) runs while an early version is staged, then a crash: the undo finds every row w-1`, async () => {
      const dir = await tempDir();
      const names = ["auth", "bank"];
      const pruning: PruningOptions = { strategy: "custom", keepRecent, interval: 1n };
      const options = earlyOptions(dir.path, names, pruning);
      let store = await openMultiStore(options);
      const reference = await openMultiStore({ backend: "memory", storeNames: names, pruning });
      try {
        // Every key updated at every version: each commit's changelog names the write before it.
        for (let v = 1; v <= 4; v++)
          await both(
            store,
            reference,
            updateAll(`v${v}`).filter((op) => op[2] !== null),
          );
        await store.stage(
          branchOf(
            store,
            updateAll("lost").filter((op) => op[2] !== null),
          ),
        );
        await store.idle(); // pruning batches in the window
        await store.close(); // the crash
        store = await openMultiStore(options);
        assert.ok(store.latestRowsUndoneAtOpen > 100);
        await assertSameFlatRows(store, reference, "reopened");
        await assertSameReads(store, reference, names, KEYS, "reopened");
        await both(store, reference, updateAll("v5"));
        await assertSameReads(store, reference, names, [...KEYS, "new-lost", "new-v5"], "after v5");
      } finally {
        await store.close();
        await reference.close();
        await dir.remove();
      }
    });
  }

  test("an imported home whose first version after the import is lost (every update over an imported write 1)", async () => {
    const dir = await tempDir();
    const names = ["auth", "bank"];
    const source = await openMultiStore({ backend: "memory", storeNames: names, pruning: KEEP_ALL });
    const replica = await openMultiStore({ backend: "memory", storeNames: names, pruning: KEEP_ALL });
    let restored: MultiStore | undefined;
    try {
      for (const store of [source, replica])
        await commitOps(
          store,
          KEYS.map((k): Op => ["bank", k, `v1-${k}`]),
        );
      const path = join(dir.path, "restored");
      await importState({ path, version: 1n, items: exportState(source, 1n), storeNames: names });
      const options = earlyOptions(path, names);
      restored = await openMultiStore(options);
      await restored.stage(branchOf(restored, updateAll("lost")));
      restored.discardStaged();
      await assertWorkingSet(restored, replica, names, KEYS, "discarded");
      await restored.stage(branchOf(restored, updateAll("lost2")));
      await restored.close(); // the crash, the discard's undo having run before the second stage
      restored = await openMultiStore(options);
      assert.ok(restored.latestRowsUndoneAtOpen > 100);
      await assertSameReads(restored, replica, names, KEYS, "reopened");
      await both(restored, replica, updateAll("v2").slice(50));
      await both(restored, replica, updateAll("v3"));
      await assertSameReads(restored, replica, names, [...KEYS, "new-lost", "new-v2", "new-v3"], "after v3");
    } finally {
      await restored?.close();
      await source.close();
      await replica.close();
      await dir.remove();
    }
  });
});

describe("the window between a stage and its commit: found beside Step B", () => {
  test("a commit whose write reported a failure but applied cannot be discarded; a restart opens at that version", async () => {
    const dir = await tempDir();
    const names = ["auth", "bank"];
    const options = earlyOptions(dir.path, names);
    let store = await openMultiStore(options);
    const reference = await openMultiStore({ backend: "memory", storeNames: names, pruning: KEEP_ALL });
    try {
      await both(
        store,
        reference,
        KEYS.map((k): Op => ["bank", k, `v1-${k}`]),
      );
      const restore = failBatchWrites(store, { applied: true });
      await store.stage(branchOf(store, updateAll("v2")));
      await assert.rejects(store.commit(), { code: "STORE_COMMIT_FAILED" });
      restore();
      // A discard (the engine replaying the height) would leave version 2's rows under a different version 2.
      assert.throws(
        () => store.discardStaged(),
        (err: Error & { code?: string }) => {
          assert.equal(err.code, "STORE_COMMIT_FAILED");
          assert.match(err.message, /version 2 cannot be discarded: its commit's write reported a failure but reached/);
          assert.match(err.message, /retry commit\(\), or restart: the store then opens at that version/);
          return true;
        },
      );
      await store.close(); // the node stops on the error
      store = await openMultiStore(options);
      await commitOps(reference, updateAll("v2"));
      await assertSameReads(store, reference, names, [...KEYS, "new-v2"], "reopened at the applied version");
      await both(store, reference, [["bank", KEYS[1], "v3"]]);
      await assertSameFlatRows(store, reference, "after version 3");
    } finally {
      await store.close();
      await reference.close();
      await dir.remove();
    }
  });

  test("a commit whose write reported a failure but applied commits on a retry", async () => {
    const dir = await tempDir();
    const names = ["auth", "bank"];
    const store = await openMultiStore(earlyOptions(dir.path, names));
    const reference = await openMultiStore({ backend: "memory", storeNames: names, pruning: KEEP_ALL });
    try {
      await both(
        store,
        reference,
        KEYS.map((k): Op => ["bank", k, `v1-${k}`]),
      );
      const restore = failBatchWrites(store, { applied: true });
      const info = await store.stage(branchOf(store, updateAll("v2")));
      await assert.rejects(store.commit(), { code: "STORE_COMMIT_FAILED" });
      restore();
      await store.commit();
      assert.equal(toHex(info.appHash), await commitOps(reference, updateAll("v2")));
      await store.idle();
      await assertSameReads(store, reference, names, [...KEYS, "new-v2"], "after the retry");
      await assertSameFlatRows(store, reference, "after the retry");
    } finally {
      await store.close();
      await reference.close();
      await dir.remove();
    }
  });

  test("pruning between a stage and its commit keeps the deleted row a staged set numbered from", async () => {
    const dir = await tempDir();
    const names = ["auth", "bank"];
    const pruning: PruningOptions = { strategy: "custom", keepRecent: 1n, interval: 1n };
    const store = await openMultiStore(earlyOptions(dir.path, names, pruning));
    try {
      await commitOps(store, [
        ["bank", "x", "x1"],
        ["bank", "y", "y1"],
      ]); // 1
      await commitOps(store, [["bank", "x", null]]); // 2: x deleted
      await commitOps(store, [["bank", "y", "y3"]]); // 3: earliest 2, so version 2's changelog (x's deleted row) may go
      // Version 4 sets x again over its deleted row; between its stage and its commit (a node's FinalizeBlock and
      // Commit) the background work runs to its end: it must not prune what the stage numbered from.
      const staged = store.branch();
      staged.store("bank").set(b("x"), b("x4"));
      await store.stage(staged);
      await store.idle();
      await store.commit();
      await store.idle();
      const row = decodeLatestRow(store.backend.getSync(storeKey(TABLE.latest, 2, b("x"))) as Uint8Array, true);
      assert.equal(row.writeNo, 3, "x's write after its delete (write 2)");
      assert.equal(s(await (await store.view(3n)).store("bank").get(b("x"))), undefined, "x at version 3");
      assert.equal(s(await (await store.view(4n)).store("bank").get(b("x"))), "x4", "x at version 4");
    } finally {
      await store.close();
      await dir.remove();
    }
  });

  test("a staged set over a deleted row, discarded after pruning kept that row: the key reads absent, then sets again", async () => {
    const dir = await tempDir();
    const names = ["auth", "bank"];
    const pruning: PruningOptions = { strategy: "custom", keepRecent: 1n, interval: 1n };
    const store = await openMultiStore(earlyOptions(dir.path, names, pruning));
    try {
      await commitOps(store, [["bank", "x", "x1"]]); // 1
      await commitOps(store, [["bank", "x", null]]); // 2: x deleted
      await commitOps(store, [["bank", "y", "y3"]]); // 3
      const staged = store.branch();
      staged.store("bank").set(b("x"), b("never"));
      await store.stage(staged);
      await store.idle();
      assert.ok(store.backend.getSync(storeKey(TABLE.deleted, 2, b("x"))) !== undefined, "kept for the staged set");
      store.discardStaged();
      await commitOps(store, [["bank", "y", "y4"]]); // 4
      await commitOps(store, [["bank", "y", "y5"]]); // 5
      await store.idle();
      for (const v of [4n, 5n]) assert.equal(s(await (await store.view(v)).store("bank").get(b("x"))), undefined);
      await commitOps(store, [["bank", "x", "x6"]]); // 6
      await commitOps(store, [["bank", "x", "x7"]]); // 7
      await store.idle();
      assert.equal(s(await (await store.view(6n)).store("bank").get(b("x"))), "x6");
      assert.equal(s(await (await store.view(7n)).store("bank").get(b("x"))), "x7");
    } finally {
      await store.close();
      await dir.remove();
    }
  });

  test("a history row the latest-value cache kept does not outlive a key's restart at write 1", async () => {
    const dir = await tempDir();
    const pruning: PruningOptions = { strategy: "custom", keepRecent: 1n, interval: 1n };
    const store = await openMultiStore({ path: dir.path, storeNames: ["bank"], pruning });
    try {
      await commitOps(store, [["bank", "k", "a1"]]); // 1: write 1
      await commitOps(store, [["bank", "k", "a2"]]); // 2: write 2
      await commitOps(store, [["bank", "k", "a3"]]); // 3: write 3
      // A read at version 2 searches history row 2 and the cache keeps it.
      assert.equal(s(await (await store.view(2n)).store("bank").get(b("k"))), "a2");
      await commitOps(store, [["bank", "k", null]]); // 4: write 4, a delete
      await commitOps(store, [["bank", "other", "o"]]); // 5
      await commitOps(store, [["bank", "other", "o2"]]); // 6: version 4 leaves retention, its deleted row is pruned
      await store.idle();
      assert.equal(store.backend.getSync(storeKey(TABLE.deleted, 1, b("k"))), undefined, "k's deleted row pruned");
      // k starts again at write 1.
      await commitOps(store, [["bank", "k", "b1"]]); // 7: write 1
      await commitOps(store, [["bank", "k", "b2"]]); // 8: write 2
      await commitOps(store, [["bank", "k", "b3"]]); // 9: write 3
      assert.equal(s(await (await store.view(8n)).store("bank").get(b("k"))), "b2");
    } finally {
      await store.close();
      await dir.remove();
    }
  });
});
