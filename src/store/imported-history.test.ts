// An imported state writes no history rows (state-import.ts): the commit that supersedes an imported key's write 1
// writes its history row (FlatChange.firstValue). Every read below the latest version, an export of an older version,
// pruning and a home imported by an older build (history row 1 on disk) must answer as a store that was never imported.
import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, test } from "node:test";
import {
  b,
  cacheOf,
  collectExport,
  countRows,
  entries,
  KEEP_ALL,
  s,
  tempDir,
} from "../../test/support/store/helpers.ts";
import { toHex } from "../bytes/hex.ts";
import { decodeLatestRow, encodeHistoryRow, encodeLatestRow } from "./flat-state.ts";
import { historyKey, META, metaKey, storeKey, TABLE } from "./keys.ts";
import { openLevelBackend } from "./kv-backend.ts";
import { type MultiStore, openMultiStore } from "./multistore.ts";
import { verifyStoreProof } from "./proofs.ts";
import { exportState } from "./state-export.ts";
import { importState } from "./state-import.ts";
import type { PruningOptions } from "./types.ts";

const NAMES = ["acc", "bank"];
const IMPORTED = 5n;

/** Versions 1..5: keys k0..k29 of "bank" written at various versions (some twice), a few "acc" keys. */
async function buildSource(store: MultiStore): Promise<void> {
  for (let v = 1; v <= 5; v++) {
    const block = store.branch();
    for (let i = 0; i < 30; i++)
      if (i % 5 === v - 1 || (i % 7 === 0 && v === 5)) block.store("bank").set(b(`k${i}`), b(`k${i}@${v}`));
    block.store("acc").set(b(`a${v}`), b(`${v}`));
    await store.stage(block);
    await store.commit();
  }
}

/** Versions 6..9 on top: overwrites, deletes, re-creations of keys whose only write is imported. */
async function afterImport(store: MultiStore, warm: boolean): Promise<void> {
  const plan: ((bank: { set(k: Uint8Array, v: Uint8Array): void; delete(k: Uint8Array): void }) => void)[] = [
    (bank) => {
      bank.set(b("k0"), b("k0@6"));
      bank.delete(b("k1"));
      bank.set(b("k2"), b("k2@6"));
      bank.delete(b("k3"));
      bank.set(b("new"), b("new@6"));
    },
    (bank) => {
      bank.set(b("k2"), b("k2@7"));
      bank.set(b("k3"), b("k3@7"));
      bank.set(b("k4"), b("k4@7"));
    },
    (bank) => {
      bank.delete(b("k4"));
      bank.set(b("k5"), b("k5@8"));
    },
    (bank) => {
      for (let i = 6; i < 30; i += 3) bank.set(b(`k${i}`), b(`k${i}@9`));
    },
  ];
  for (const step of plan) {
    if (warm) {
      // Read every key first, so the commit finds write 1 in the latest-value cache (else it reads LevelDB).
      const view = await store.view();
      for (let i = 0; i < 30; i++) await view.store("bank").get(b(`k${i}`));
    }
    const block = store.branch();
    step(block.store("bank"));
    await store.stage(block);
    await store.commit();
  }
}

/** Every key of both stores at every version from 5 to the latest: point reads, iteration and proofs agree. */
async function assertSameHistory(got: MultiStore, want: MultiStore): Promise<void> {
  const latest = want.lastCommit().version;
  assert.equal(toHex(got.lastCommit().appHash), toHex(want.lastCommit().appHash));
  for (let v = IMPORTED; v <= latest; v++) {
    const [g, w] = [await got.view(v), await want.view(v)];
    for (const name of NAMES) {
      assert.deepEqual(await entries(g.store(name).iterate()), await entries(w.store(name).iterate()), `${name}@${v}`);
    }
    for (const key of [...Array.from({ length: 30 }, (_, i) => `k${i}`), "new"]) {
      assert.equal(s(await g.store("bank").get(b(key))), s(await w.store("bank").get(b(key))), `${key}@${v}`);
      const proof = await got.prove("bank", b(key), v);
      assert.ok(verifyStoreProof(proof, g.appHash as Uint8Array), `proof of ${key}@${v}`);
    }
  }
}

async function withImport(
  fn: (ctx: { restored: MultiStore; replica: MultiStore; source: MultiStore }) => Promise<void>,
  options: { pruning?: PruningOptions; beforeOpen?: (path: string) => Promise<void> } = {},
): Promise<void> {
  const dir = await tempDir();
  const source = await openMultiStore({ path: join(dir.path, "source"), storeNames: NAMES, pruning: KEEP_ALL });
  const replica = await openMultiStore({ path: join(dir.path, "replica"), storeNames: NAMES, pruning: KEEP_ALL });
  try {
    await buildSource(source);
    await buildSource(replica);
    const path = join(dir.path, "restored");
    await importState({ path, version: IMPORTED, items: exportState(source, IMPORTED), storeNames: NAMES });
    await options.beforeOpen?.(path);
    const restored = await openMultiStore({ path, storeNames: NAMES, pruning: options.pruning ?? KEEP_ALL });
    try {
      await fn({ restored, replica, source });
    } finally {
      await restored.close();
    }
  } finally {
    await source.close();
    await replica.close();
    await dir.remove();
  }
}

/** Rewrites an imported home as an import before this change wrote it: history row 1 of every key, no marker. */
async function asOldImport(path: string, keepMarker: boolean): Promise<void> {
  const backend = await openLevelBackend(path, { createIfMissing: false });
  try {
    const ops: { key: Uint8Array; value: Uint8Array | undefined }[] = [];
    for await (const [key, row] of backend.iterate({
      gte: Uint8Array.of(TABLE.latest),
      lt: Uint8Array.of(TABLE.latest + 1),
    })) {
      const parsed = decodeLatestRow(row, true);
      const sid = new DataView(key.buffer, key.byteOffset).getUint32(1);
      ops.push({
        key: historyKey(sid, key.subarray(5), 1),
        value: encodeHistoryRow(parsed.version, 0, parsed.value ?? null),
      });
    }
    if (!keepMarker) ops.push({ key: metaKey(META.importedAt), value: undefined });
    await backend.write(ops, true);
  } finally {
    await backend.close();
  }
}

describe("an imported state's history rows", () => {
  test("an import writes no history rows; reads at the import version after overwrites and deletes match a replica", async () => {
    for (const warm of [false, true]) {
      await withImport(async ({ restored, replica, source }) => {
        assert.equal(await countRows(restored, TABLE.history), 0);
        assert.ok(restored.backend.getSync(metaKey(META.importedAt)) !== undefined);
        await afterImport(restored, warm);
        await afterImport(replica, warm);
        await assertSameHistory(restored, replica);
        // The export of the imported version, after its keys were superseded, is the source's.
        assert.deepEqual(
          await collectExport(exportState(restored, IMPORTED)),
          await collectExport(exportState(source, IMPORTED)),
        );
        assert.deepEqual(await collectExport(exportState(restored, 7n)), await collectExport(exportState(replica, 7n)));
        // Only the superseded imported writes gained a history row 1 (plus the writes after the import).
        assert.equal(
          s(restored.backend.getSync(historyKey(2, b("k0"), 1))?.subarray(3)),
          "k0@5",
          "k0's imported write (version 5) recorded when version 6 superseded it",
        );
        assert.equal(restored.backend.getSync(historyKey(2, b("k29"), 1)), undefined, "k29 was never superseded");
      });
    }
  });

  test("a restart keeps the import's marker: later overwrites still record the imported write", async () => {
    const dir = await tempDir();
    try {
      const source = await openMultiStore({ path: join(dir.path, "s"), storeNames: NAMES, pruning: KEEP_ALL });
      const replica = await openMultiStore({ path: join(dir.path, "r"), storeNames: NAMES, pruning: KEEP_ALL });
      await buildSource(source);
      await buildSource(replica);
      const path = join(dir.path, "b");
      await importState({ path, version: IMPORTED, items: exportState(source, IMPORTED), storeNames: NAMES });
      let restored = await openMultiStore({ path, storeNames: NAMES, pruning: KEEP_ALL });
      const block = restored.branch();
      block.store("bank").set(b("k0"), b("k0@6"));
      await restored.stage(block);
      await restored.commit();
      await restored.close();
      restored = await openMultiStore({ path, storeNames: NAMES, pruning: KEEP_ALL });
      const first = replica.branch();
      first.store("bank").set(b("k0"), b("k0@6"));
      await replica.stage(first);
      await replica.commit();
      for (const store of [restored, replica]) {
        const next = store.branch();
        next.store("bank").set(b("k1"), b("k1@7"));
        next.store("bank").delete(b("k5"));
        await store.stage(next);
        await store.commit();
      }
      await assertSameHistory(restored, replica);
      await restored.close();
      await source.close();
      await replica.close();
    } finally {
      await dir.remove();
    }
  });

  test("a home imported by an older build (history row 1 on disk) is read and written alike", async () => {
    for (const keepMarker of [false, true]) {
      await withImport(
        async ({ restored, replica }) => {
          const before = restored.backend.getSync(historyKey(2, b("k0"), 1));
          assert.ok(before !== undefined);
          await afterImport(restored, false);
          await afterImport(replica, false);
          await assertSameHistory(restored, replica);
          // Written again (with the marker) or left alone (without it): the same bytes either way.
          assert.deepEqual(restored.backend.getSync(historyKey(2, b("k0"), 1)), before);
        },
        { beforeOpen: (path) => asOldImport(path, keepMarker) },
      );
    }
  });

  test("pruning removes a superseded imported write's history row once its superseder leaves retention", async () => {
    await withImport(
      async ({ restored }) => {
        await afterImport(restored, false);
        assert.ok(restored.backend.getSync(historyKey(2, b("k0"), 1)) !== undefined);
        for (let v = 10; v <= 14; v++) {
          const block = restored.branch();
          block.store("acc").set(b("tick"), b(`${v}`));
          await restored.stage(block);
          await restored.commit();
        }
        await restored.idle();
        assert.ok(restored.earliestVersion() > 6n, `earliest ${restored.earliestVersion()}`);
        // Version 6 superseded k0's and k2's imported writes (and deleted k1, k3): their rows 1 are gone.
        for (const key of ["k0", "k1", "k2", "k3"]) {
          assert.equal(restored.backend.getSync(historyKey(2, b(key), 1)), undefined, key);
        }
        const view = await restored.view(restored.earliestVersion());
        assert.equal(s(await view.store("bank").get(b("k2"))), "k2@7");
        assert.equal(s(await view.store("bank").get(b("k29"))), "k29@5");
      },
      { pruning: { strategy: "custom", keepRecent: 2n, interval: 1n } },
    );
  });

  test("a latest row that is not the imported write: history row 1 on disk is kept, none at all is corruption", async () => {
    await withImport(async ({ restored }) => {
      // As after a commit whose write reported failure but applied: k0's latest row is a later write than the tree's.
      await restored.backend.write(
        [
          { key: storeKey(TABLE.latest, 2, b("k0")), value: encodeLatestRow(2, 6, 1, b("k0@6")) },
          { key: historyKey(2, b("k0"), 1), value: encodeHistoryRow(1, 0, b("k0@1")) },
        ],
        true,
      );
      cacheOf(restored).clear();
      const block = restored.branch();
      block.store("bank").set(b("k0"), b("k0@6"));
      await restored.stage(block);
      await restored.commit();
      assert.equal(s((await restored.view(IMPORTED)).store("bank").getNow?.(b("k0"))), "k0@1");
      await restored.backend.write(
        [{ key: storeKey(TABLE.latest, 2, b("k1")), value: encodeLatestRow(2, 6, 1, b("x")) }],
        true,
      );
      cacheOf(restored).clear();
      const next = restored.branch();
      next.store("bank").set(b("k1"), b("k1@7"));
      await assert.rejects(restored.stage(next), /history row 1/);
    });
  });
});
