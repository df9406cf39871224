// Export and import under pressure (round 3 session 27's review): an export while commits run, a store deleted under
// an export, import failures, and the first commits after an import. The tests of a deletion under an export, of
// idle() right after a commit and of a read racing a set over a deleted row failed before their fixes.
import assert from "node:assert/strict";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { describe, test } from "node:test";
import { b, collectExport, KEEP_ALL, tempDir } from "../../test/support/store/helpers.ts";
import { assertSameReads, commitOps, type Op } from "../../test/support/store/ops.ts";
import { toHex } from "../bytes/hex.ts";
import { StoreError } from "./errors.ts";
import { commitKey, META, metaKey, storeKey, TABLE } from "./keys.ts";
import type { KVBatch } from "./kv-backend.ts";
import { type MultiStore, openMultiStore } from "./multistore.ts";
import { decodeCommit } from "./records.ts";
import { type ExportItem, exportState } from "./state-export.ts";
import { importState, StateImportError } from "./state-import.ts";
import type { PruningOptions, StoreUpgrades } from "./types.ts";

const NAMES = ["acc", "bank", "gov"];
const AGGRESSIVE: PruningOptions = { strategy: "custom", keepRecent: 1n, interval: 1n };

/** Versions from..to: sets, deletes, re-creations over 60 bank keys, a few acc and gov keys. */
function blockOps(v: number, gov = "gov"): Op[] {
  const ops: Op[] = [];
  for (let i = 0; i < 12; i++) ops.push(["bank", `k${(v * 7 + i * 5) % 60}`, `v${v}-${i}`]);
  for (let i = 0; i < 5; i++) ops.push(["bank", `k${(v * 11 + i * 3) % 60}`, null]);
  ops.push(["acc", `a${v % 9}`, `${v}`]);
  if (v % 2 === 0) ops.push(["acc", `a${(v + 4) % 9}`, null]);
  ops.push([gov, `g${v % 4}`, `${v}`]);
  return dedupe(ops);
}

/** The last op per store/key wins (a branch keeps the last write of a key anyway). */
function dedupe(ops: Op[]): Op[] {
  const m = new Map<string, Op>();
  for (const op of ops) m.set(`${op[0]}/${op[1]}`, op);
  return [...m.values()];
}

async function commitRange(store: MultiStore, from: number, to: number, gov = "gov"): Promise<void> {
  for (let v = from; v <= to; v++) await commitOps(store, blockOps(v, gov));
}

function hexItems(items: ExportItem[]): string[] {
  return items.map((i) =>
    i.kind === "store"
      ? `S ${i.name}`
      : i.kind === "leaf"
        ? `L ${toHex(i.key)} ${toHex(i.value)} ${i.version}`
        : `I ${i.version} ${i.height}`,
  );
}

/**
 * A home at `path` with versions 1–5 (`govKeys` keys of "gov" rewritten each version), reopened with the store upgrade
 * that deletes "gov" at version 6 planned (`backgroundBatchSize` rows a reclamation batch, when given).
 */
async function homeDeletingGovAt6(path: string, govKeys: number, backgroundBatchSize?: number): Promise<MultiStore> {
  const before = await openMultiStore({ path, storeNames: NAMES, pruning: KEEP_ALL });
  for (let v = 1; v <= 5; v++) {
    const ops: Op[] = [["acc", `a${v}`, "1"]];
    for (let i = 0; i < govKeys; i++) ops.push(["gov", govKeys === 1 ? "g" : `g${i}`, `${v}`]);
    await commitOps(before, ops);
  }
  await before.close();
  return openMultiStore({
    path,
    storeNames: ["acc", "bank"],
    pruning: KEEP_ALL,
    backgroundBatchSize,
    upgrades: (last) => (last === 5n ? { added: [], renamed: [], deleted: ["gov"] } : undefined),
  });
}

function sidOf(store: MultiStore, version: number, name: string): number {
  const record = decodeCommit(store.backend.getSync(commitKey(version)) as Uint8Array);
  const entry = record.stores.find((s) => s.name === name);
  assert.ok(entry !== undefined, `store ${name} at ${version}`);
  return entry.sid;
}

describe("export while commits continue", () => {
  test("an export of V taken while commits delete, set over deleted rows, rename and add a store, with keep-recent 1, equals a quiet export", async () => {
    const dir = await tempDir("chaind-review-export-");
    const path = join(dir.path, "a");
    try {
      let store = await openMultiStore({ path, storeNames: NAMES, pruning: AGGRESSIVE, backgroundBatchSize: 3 });
      await commitRange(store, 1, 8);
      await store.idle();
      const quiet = hexItems(await collectExport(exportState(store, 8n)));
      await store.close();
      const upgrades: StoreUpgrades = { added: ["extra"], renamed: [{ oldKey: "gov", newKey: "gov2" }], deleted: [] };
      store = await openMultiStore({
        path,
        storeNames: ["acc", "bank", "extra", "gov2"],
        pruning: AGGRESSIVE,
        backgroundBatchSize: 3,
        upgrades: (last) => (last === 8n ? upgrades : undefined),
      });
      try {
        const it = exportState(store, 8n, { batchSize: 1 })[Symbol.asyncIterator]();
        const got: ExportItem[] = [];
        let v = 9;
        for (let r = await it.next(); !r.done; r = await it.next()) {
          got.push(...r.value);
          if (v <= 30 && got.length % 3 === 0) {
            const ops = blockOps(v, "gov2");
            // Sets over rows deleted just before (the re-creations), deletes of keys live at 8.
            for (let i = 0; i < 5; i++) ops.push(["bank", `k${((v - 1) * 11 + i * 3) % 60}`, `re${v}`]);
            ops.push(["extra", `e${v}`, "x"]);
            await commitOps(store, dedupe(ops));
            v++;
          }
          if (got.length % 7 === 0) await store.idle();
        }
        assert.ok(v > 12, `commits during the export: ${v - 9}`);
        assert.deepEqual(hexItems(got), quiet);
        assert.equal(store.earliestVersion(), 8n, "held");
        await commitOps(store, [["bank", "after", "1"]]);
        assert.ok(store.earliestVersion() > 8n, "released");
      } finally {
        await store.close();
      }
    } finally {
      await dir.remove();
    }
  });

  test("an export of a version before a store deletion is refused as STORE_NOT_FOUND (not a corrupt store) when the deletion commits mid-export", async () => {
    const dir = await tempDir("chaind-review-delete-");
    const path = join(dir.path, "a");
    try {
      const store = await homeDeletingGovAt6(path, 40, 10);
      try {
        const it = exportState(store, 5n, { batchSize: 2 })[Symbol.asyncIterator]();
        assert.equal((await it.next()).done, false);
        await commitOps(store, [["acc", "x", "1"]]); // deletes "gov"
        await store.workBehindCommit();
        await store.idle(); // its rows reclaimed
        let error: unknown;
        try {
          for (let r = await it.next(); !r.done; r = await it.next()) {}
        } catch (err) {
          error = err;
        }
        assert.ok(error instanceof StoreError, `an error: ${String(error)}`);
        // Reads through a view refuse the deleted store with StoreNotFoundError; the export should too, not blame
        // the disk ("corrupt ... restore it from a backup or snapshot").
        await assert.rejects(
          async () => (await store.view(5n)).store("gov").get(b("g1")),
          /deleted by a store upgrade/,
        );
        assert.equal((error as StoreError).code, "STORE_NOT_FOUND", (error as Error).message);
      } finally {
        await store.close();
      }
    } finally {
      await dir.remove();
    }
  });

  test("an export of a version before a store deletion, started after it, is refused as STORE_NOT_FOUND before and after reclamation", async () => {
    const dir = await tempDir("chaind-review-delete2-");
    const path = join(dir.path, "a");
    try {
      const store = await homeDeletingGovAt6(path, 40);
      const outcome = async () => {
        try {
          const items = await collectExport(exportState(store, 5n));
          return `exported ${items.length} items`;
        } catch (err) {
          return `${(err as StoreError).code}: ${(err as Error).message.slice(0, 140)}`;
        }
      };
      try {
        await commitOps(store, [["acc", "x", "1"]]); // deletes "gov" at 6
        // `chaind snapshots export --height 5` on this home: version 5 is retained, its "gov" was deleted at 6.
        const beforeReclaim = await outcome(); // reclamation has not started yet (the page write is pending)
        await store.workBehindCommit();
        await store.idle();
        assert.equal(store.backend.getSync(metaKey(META.reclaim)), undefined, "reclaimed");
        const afterReclaim = await outcome();
        const refusal = /^STORE_NOT_FOUND: .*deleted by a store upgrade/;
        assert.deepEqual(
          { beforeReclaim: refusal.test(beforeReclaim), afterReclaim: refusal.test(afterReclaim) },
          { beforeReclaim: true, afterReclaim: true },
          `before reclamation: ${beforeReclaim}\nafter reclamation: ${afterReclaim}`,
        );
      } finally {
        await store.close();
      }
    } finally {
      await dir.remove();
    }
  });

  test("idle() right after a commit waits for the background work that commit started (a deleted store's reclamation)", async () => {
    const dir = await tempDir("chaind-review-idle-");
    const path = join(dir.path, "a");
    try {
      const store = await homeDeletingGovAt6(path, 1);
      try {
        await commitOps(store, [["acc", "x", "1"]]);
        await store.idle(); // "Resolves once background pruning and reclamation have nothing left to do."
        assert.equal(
          store.backend.getSync(metaKey(META.reclaim)),
          undefined,
          "the deleted store is still listed for reclamation",
        );
      } finally {
        await store.close();
      }
    } finally {
      await dir.remove();
    }
  });

  test("an export (and a historical read) racing a commit that sets a key over its deleted row keeps the key", {
    timeout: 60_000,
  }, async () => {
    const dir = await tempDir("chaind-review-race-");
    try {
      // Without the latest-value cache, so the view's read goes to LevelDB (as it does for any key not cached).
      const store = await openMultiStore({
        path: join(dir.path, "a"),
        storeNames: NAMES,
        pruning: KEEP_ALL,
        latestCacheBytes: 0,
      });
      try {
        await commitOps(store, [
          ["bank", "a", "1"],
          ["bank", "k", "k@1"],
          ["bank", "z", "1"],
        ]);
        await commitOps(store, [["acc", "x", "2"]]); // V = 2: k = k@1
        await commitOps(store, [["bank", "k", null]]); // 3: k deleted (deleted row at 3)
        const sid = sidOf(store, 2, "bank");
        const lKey = storeKey(TABLE.latest, sid, b("k"));
        const backend = store.backend;
        const realGet = backend.getSync.bind(backend);
        const realBatch = backend.batch.bind(backend);
        let deferNext = false;
        let go: (() => void) | undefined;
        // The commit's batch write is started (handed to LevelDB's thread) only when `go` is called: the moment
        // LevelDB applies it relative to the main thread's reads is what a real commit in flight leaves to chance.
        backend.batch = (): KVBatch => {
          const real = realBatch();
          return {
            ...real,
            write: (sync: boolean) => {
              if (!deferNext) return real.write(sync);
              deferNext = false;
              return new Promise<void>((resolve, reject) => {
                go = () => {
                  go = undefined;
                  real.write(sync).then(resolve, reject);
                };
              });
            },
          };
        };
        let raced = 0;
        backend.getSync = (key: Uint8Array) => {
          const row = realGet(key);
          if (go !== undefined && row === undefined && toHex(key) === toHex(lKey)) {
            // Between this read of k's latest row and the next read (its deleted row), LevelDB applies the commit.
            go();
            const until = Date.now() + 5000;
            while (realGet(lKey) === undefined && Date.now() < until) {}
            raced++;
          }
          return row;
        };
        deferNext = true;
        await store.stage(
          (() => {
            const br = store.branch();
            br.store("bank").set(b("k"), b("k@4"));
            return br;
          })(),
        );
        const committing = store.commit();
        // Until the commit has handed its batch to the (deferred) write.
        while (go === undefined) await new Promise((r) => setImmediate(r));
        const problems: string[] = [];
        // A historical read at 2 while version 4 is being written.
        const at2 = await store.view(2n);
        const value = await at2.store("bank").get(b("k"));
        if (value === undefined) problems.push("view(2).get(k) answered absent (k was k@1 at version 2)");
        go?.();
        await committing;
        // The same race under the export of version 2 (what a snapshot of height 2 reads).
        await store.stage(
          (() => {
            const br = store.branch();
            br.store("bank").delete(b("k"));
            return br;
          })(),
        );
        await store.commit(); // 5: k deleted again (deleted row at 5)
        deferNext = true;
        await store.stage(
          (() => {
            const br = store.branch();
            br.store("bank").set(b("k"), b("k@6"));
            return br;
          })(),
        );
        const it = exportState(store, 2n, { batchSize: 1 })[Symbol.asyncIterator]();
        await it.next();
        const committing6 = store.commit();
        while (go === undefined) await new Promise((r) => setImmediate(r));
        try {
          for (let r = await it.next(); !r.done; r = await it.next()) {}
        } catch (err) {
          problems.push(`export of 2 failed: ${(err as Error).message}`);
        }
        go?.();
        await committing6;
        backend.getSync = realGet;
        backend.batch = realBatch;
        assert.ok(raced > 0, "the race was staged");
        assert.deepEqual(problems, []);
      } finally {
        await store.close();
      }
    } finally {
      await dir.remove();
    }
  });
});

describe("import failures and the first commits after an import", () => {
  async function source(path: string, upTo = 6): Promise<MultiStore> {
    const store = await openMultiStore({ path, storeNames: NAMES, pruning: KEEP_ALL });
    await commitRange(store, 1, upTo);
    return store;
  }

  test("a stream with duplicate or out-of-order keys, a duplicate store, a missing store or a wrong hash is refused; nothing opens", async () => {
    const dir = await tempDir("chaind-review-import-bad-");
    try {
      const src = await source(join(dir.path, "src"));
      const items = await collectExport(exportState(src, 6n));
      await src.close();
      const leafAt = items.findIndex((i) => i.kind === "leaf");
      const dup = [...items];
      dup.splice(leafAt + 1, 0, items[leafAt]); // the same leaf twice
      const swapped = [...items];
      const nextLeaf = items.findIndex((i, n) => n > leafAt && i.kind === "leaf");
      [swapped[leafAt], swapped[nextLeaf]] = [swapped[nextLeaf], swapped[leafAt]];
      const twice = [...items, { kind: "store" as const, name: "gov" }];
      const govAt = items.findIndex((i) => i.kind === "store" && i.name === "gov");
      const missing = items.slice(0, govAt);
      const changed = items.map((i) =>
        i.kind === "leaf" && i === items[nextLeaf] ? { ...i, value: b("tampered") } : i,
      );
      const good = await importState({ path: join(dir.path, "good"), version: 6n, items: [items] });
      const cases: [string, ExportItem[], RegExp][] = [
        ["dup", dup, /not in increasing order/],
        ["swapped", swapped, /not in increasing order/],
        ["twice", twice, /sorted by name/],
        ["missing", missing, /missing gov/],
        ["changed", changed, /app hash/],
      ];
      for (const [name, bad, pattern] of cases) {
        const p = join(dir.path, name);
        await assert.rejects(
          importState({
            path: p,
            version: 6n,
            items: [bad],
            storeNames: NAMES,
            expectedAppHash: good.appHash,
            batchSize: 5,
          }),
          (err: Error) => err instanceof StateImportError && pattern.test(err.message),
          name,
        );
        assert.ok(!(await readdir(p)).includes("import-pages.tmp"), `${name}: page spill left`);
        // Refused (rows without the format marker), or nothing was written at all: a fresh, empty store.
        const opened = await openMultiStore({ path: p, storeNames: NAMES }).catch((err: Error) => err);
        if (opened instanceof Error) assert.match(opened.message, /format marker/, name);
        else {
          assert.equal(opened.lastCommit().version, 0n, `${name}: opened with state`);
          await opened.close();
        }
      }
    } finally {
      await dir.remove();
    }
  });

  test("an import whose LevelDB write fails mid-way (or at the format marker) never opens as a store; a retry into it is refused", async () => {
    const dir = await tempDir("chaind-review-import-crash-");
    const { ClassicLevel } = await import("classic-level");
    try {
      const src = await source(join(dir.path, "src"));
      const items = await collectExport(exportState(src, 6n, { batchSize: 4 }));
      const want = src.lastCommit();
      await src.close();
      const probe = new ClassicLevel(join(dir.path, "probe"));
      await probe.open();
      const proto = Object.getPrototypeOf(probe.batch()) as { _write: (o: unknown) => Promise<void> };
      await probe.close();
      const realWrite = proto._write;
      for (const failAt of [2, 3, 5, 1000]) {
        let writes = 0;
        let total = 0;
        proto._write = function (this: unknown, o: unknown) {
          writes++;
          if (writes === failAt) return Promise.reject(new Error("injected write failure"));
          return realWrite.call(this, o);
        };
        const p = join(dir.path, `crash-${failAt}`);
        const batches: ExportItem[][] = [];
        for (let i = 0; i < items.length; i += 4) batches.push(items.slice(i, i + 4));
        let failed: unknown;
        try {
          await importState({ path: p, version: 6n, items: batches, batchSize: 5 });
        } catch (err) {
          failed = err;
        } finally {
          total = writes;
          proto._write = realWrite;
        }
        if (failAt >= total && failed === undefined) continue; // fewer writes than that: nothing injected
        assert.ok(failed instanceof StateImportError, `${failAt}: ${String(failed)}`);
        await assert.rejects(openMultiStore({ path: p, storeNames: NAMES }), /format marker|corrupt/, `${failAt}`);
        await assert.rejects(
          importState({ path: p, version: 6n, items: batches }),
          /already holds data/,
          `${failAt}: retry`,
        );
      }
      // The marker write itself failing (the last write of an import).
      let writes = 0;
      const counting = join(dir.path, "count");
      proto._write = function (this: unknown, o: unknown) {
        writes++;
        return realWrite.call(this, o);
      };
      try {
        await importState({ path: counting, version: 6n, items: [items], batchSize: 5 });
      } finally {
        proto._write = realWrite;
      }
      let n = 0;
      const last = writes;
      proto._write = function (this: unknown, o: unknown) {
        n++;
        if (n === last) return Promise.reject(new Error("injected marker failure"));
        return realWrite.call(this, o);
      };
      const p = join(dir.path, "marker");
      try {
        await assert.rejects(importState({ path: p, version: 6n, items: [items], batchSize: 5 }), StateImportError);
      } finally {
        proto._write = realWrite;
      }
      await assert.rejects(openMultiStore({ path: p, storeNames: NAMES }), /format marker/);
      const ok = await importState({ path: join(dir.path, "ok"), version: 6n, items: [items] });
      assert.equal(toHex(ok.appHash), toHex(want.appHash));
    } finally {
      await dir.remove();
    }
  });

  test("an export of the imported version, taken while commits supersede imported writes with keep-recent 1, equals the source's", async () => {
    const dir = await tempDir("chaind-review-import-export-");
    try {
      const src = await source(join(dir.path, "src"), 8);
      const quiet = hexItems(await collectExport(exportState(src, 8n)));
      const p = join(dir.path, "restored");
      await importState({ path: p, version: 8n, items: exportState(src, 8n), storeNames: NAMES });
      await src.close();
      const restored = await openMultiStore({
        path: p,
        storeNames: NAMES,
        pruning: AGGRESSIVE,
        backgroundBatchSize: 3,
      });
      try {
        const it = exportState(restored, 8n, { batchSize: 1 })[Symbol.asyncIterator]();
        const got: ExportItem[] = [];
        let v = 9;
        for (let r = await it.next(); !r.done; r = await it.next()) {
          got.push(...r.value);
          if (v <= 30 && got.length % 3 === 0) {
            const ops = blockOps(v);
            for (let i = 0; i < 60; i += 6) ops.push(["bank", `k${(i + v) % 60}`, v % 2 === 0 ? null : `u${v}`]);
            await commitOps(restored, dedupe(ops));
            v++;
          }
          if (got.length % 5 === 0) await restored.idle();
        }
        assert.deepEqual(hexItems(got), quiet);
      } finally {
        await restored.close();
      }
    } finally {
      await dir.remove();
    }
  });

  test("a store whose tree is one leaf, and an empty store, import and continue as on a replica", async () => {
    const dir = await tempDir("chaind-review-import-leaf-");
    try {
      const ops: Op[] = [["acc", "only", "1"]];
      const src = await openMultiStore({ path: join(dir.path, "src"), storeNames: NAMES, pruning: KEEP_ALL });
      const replica = await openMultiStore({ path: join(dir.path, "rep"), storeNames: NAMES, pruning: AGGRESSIVE });
      await commitOps(src, ops);
      await commitOps(replica, ops);
      const p = join(dir.path, "restored");
      await importState({ path: p, version: 1n, items: exportState(src, 1n), storeNames: NAMES });
      const restored = await openMultiStore({ path: p, storeNames: NAMES, pruning: AGGRESSIVE });
      try {
        const steps: Op[][] = [
          [
            ["acc", "only", "2"],
            ["bank", "b", "1"],
          ],
          [
            ["acc", "only", null],
            ["gov", "g", "1"],
          ],
          [
            ["acc", "only", "4"],
            ["acc", "z", "4"],
          ],
          [
            ["acc", "z", null],
            ["bank", "b", null],
          ],
        ];
        for (const step of steps) {
          assert.equal(await commitOps(restored, step), await commitOps(replica, step));
          await assertSameReads(restored, replica, NAMES, ["only", "z", "b", "g", "absent"], "leaf");
        }
      } finally {
        await restored.close();
        await replica.close();
        await src.close();
      }
    } finally {
      await dir.remove();
    }
  });

  test("after an import with keep-recent 1: updates, deletes, re-inserts and pruning read and prove as a replica that committed them", async () => {
    const dir = await tempDir("chaind-review-import-after-");
    try {
      const src = await source(join(dir.path, "src"), 8);
      const replica = await openMultiStore({
        path: join(dir.path, "replica"),
        storeNames: NAMES,
        pruning: AGGRESSIVE,
        backgroundBatchSize: 4,
      });
      await commitRange(replica, 1, 8);
      await replica.idle();
      const p = join(dir.path, "restored");
      await importState({ path: p, version: 8n, items: exportState(src, 8n), storeNames: NAMES });
      const restored = await openMultiStore({
        path: p,
        storeNames: NAMES,
        pruning: AGGRESSIVE,
        backgroundBatchSize: 4,
      });
      const keys = [...Array.from({ length: 60 }, (_, i) => `k${i}`), ...Array.from({ length: 9 }, (_, i) => `a${i}`)];
      keys.push("g0", "g1", "g2", "g3", "absent");
      try {
        for (let v = 9; v <= 16; v++) {
          const ops = blockOps(v);
          // Every key imported at write 1 is touched early: updates, deletes, re-inserts of deleted ones.
          for (let i = 0; i < 60; i += 4) ops.push(["bank", `k${(i + v) % 60}`, v % 3 === 0 ? null : `u${v}`]);
          const o = dedupe(ops);
          assert.equal(await commitOps(restored, o), await commitOps(replica, o), `app hash at ${v}`);
          if (v % 2 === 0) {
            await restored.idle();
            await replica.idle();
          }
          await assertSameReads(restored, replica, NAMES, keys, `v${v}`);
        }
        // The exports of the latest version agree too (the next snapshot a restored node takes).
        assert.deepEqual(
          hexItems(await collectExport(exportState(restored, 16n))),
          hexItems(await collectExport(exportState(replica, 16n))),
        );
      } finally {
        await restored.close();
        await replica.close();
        await src.close();
      }
    } finally {
      await dir.remove();
    }
  });
});
