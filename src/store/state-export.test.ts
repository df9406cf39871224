import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, test } from "node:test";
import { b, collectExport, entries, tempDir } from "../../test/support/store/helpers.ts";
import { toHex } from "../bytes/hex.ts";
import { PrunedVersionError } from "./errors.ts";
import { type MultiStore, openMultiStore } from "./multistore.ts";
import { verifyStoreProof } from "./proofs.ts";
import { type ExportItem, exportState } from "./state-export.ts";
import { importState, StateImportError } from "./state-import.ts";

const NAMES = ["acc", "bank", "empty", "gov"];

/** A history that exercises rewrites, deletes, re-creations and rebalancing over many versions. */
async function commitBlocks(store: MultiStore, from: number, to: number): Promise<void> {
  for (let v = from; v <= to; v++) {
    const block = store.branch();
    const bank = block.store("bank");
    for (let i = 0; i < 40; i++) bank.set(b(`k${(v * 7 + i * 13) % 300}`), b(`v${v}-${i}`));
    if (v % 3 === 0) for (let i = 0; i < 10; i++) bank.delete(b(`k${(v * 11 + i) % 300}`));
    block.store("acc").set(b(`a${v % 17}`), b(`${v}`));
    if (v % 5 === 0) block.store("gov").set(b("p"), b(`${v}`));
    await store.stage(block);
    await store.commit();
  }
}

describe("state export and import", () => {
  test("an imported version has the exporter's app hash, contents, and continues with the same hashes", async () => {
    const dir = await tempDir();
    const source = await openMultiStore({
      path: join(dir.path, "a"),
      storeNames: NAMES,
      pruning: { strategy: "nothing", keepRecent: 0n, interval: 0n },
    });
    try {
      await commitBlocks(source, 1, 30);
      const items = await collectExport(exportState(source, 20n));
      await commitBlocks(source, 31, 32); // the export read version 20, not the latest
      const info = await importState({ path: join(dir.path, "b"), version: 20n, items: [items], storeNames: NAMES });
      const at20 = await source.view(20n);
      assert.equal(toHex(info.appHash), toHex(at20.appHash as Uint8Array));
      const restored = await openMultiStore({ path: join(dir.path, "b"), storeNames: NAMES });
      try {
        assert.equal(restored.lastCommit().version, 20n);
        assert.equal(restored.earliestVersion(), 20n);
        for (const name of NAMES) {
          assert.deepEqual(
            await entries((await restored.view()).store(name).iterate()),
            await entries(at20.store(name).iterate()),
            name,
          );
        }
        await assert.rejects(restored.view(19n), PrunedVersionError);
        // Replaying the same blocks on both sides gives the same hashes (tree shape and write numbers carried over).
        const replica = await openMultiStore({
          path: join(dir.path, "c"),
          storeNames: NAMES,
          pruning: { strategy: "nothing", keepRecent: 0n, interval: 0n },
        });
        try {
          await commitBlocks(replica, 1, 20);
          await commitBlocks(replica, 21, 26);
          await commitBlocks(restored, 21, 26);
          assert.equal(toHex(restored.lastCommit().appHash), toHex(replica.lastCommit().appHash));
          assert.equal(
            toHex((await restored.view(23n)).appHash as Uint8Array),
            toHex((await replica.view(23n)).appHash as Uint8Array),
          );
          assert.deepEqual(
            await entries((await restored.view(22n)).store("bank").iterate()),
            await entries((await replica.view(22n)).store("bank").iterate()),
          );
        } finally {
          await replica.close();
        }
      } finally {
        await restored.close();
      }
    } finally {
      await source.close();
      await dir.remove();
    }
  });

  test("a store of many pages imported in small batches (writes in flight) matches; a cut stream leaves no store", async () => {
    const dir = await tempDir();
    const source = await openMultiStore({ path: join(dir.path, "a"), storeNames: NAMES });
    try {
      // 5,000 keys over two versions: ~80 pages of inner nodes, both leaf versions in one tree.
      for (const round of [0, 1]) {
        const block = source.branch();
        for (let i = round; i < 5000; i += 1 + round) block.store("bank").set(b(`key-${i}`), b(`value-${round}-${i}`));
        await source.stage(block);
        await source.commit();
      }
      const items = await collectExport(exportState(source, 2n, { batchSize: 13 }));
      const batches: ExportItem[][] = [];
      for (let i = 0; i < items.length; i += 13) batches.push(items.slice(i, i + 13));
      const info = await importState({ path: join(dir.path, "b"), version: 2n, items: batches, batchSize: 7 });
      assert.equal(toHex(info.appHash), toHex(source.lastCommit().appHash));
      const restored = await openMultiStore({ path: join(dir.path, "b"), storeNames: NAMES });
      try {
        const view = await restored.view();
        assert.deepEqual(
          await entries(view.store("bank").iterate()),
          await entries((await source.view()).store("bank").iterate()),
        );
        assert.equal(view.keyCount?.("bank"), 5000);
        // Proofs read the imported pages.
        const proof = await restored.prove("bank", b("key-1234"), 2n);
        assert.ok(verifyStoreProof(proof, info.appHash));
      } finally {
        await restored.close();
      }
      // One batch of the whole stream: its 5,000 leaves hashed on two threads (LeafHasher), and on one.
      for (const leafHashWorker of [true, false]) {
        const path = join(dir.path, `whole-${leafHashWorker}`);
        const whole = await importState({ path, version: 2n, items: [items], leafHashWorker });
        assert.equal(toHex(whole.appHash), toHex(info.appHash));
      }
      // A stream missing bank's root: refused, and the directory written so far never opens as a store.
      const next = items.findIndex((item) => item.kind === "store" && item.name === "empty");
      const cut = [...items.slice(0, next - 1), ...items.slice(next)];
      await assert.rejects(
        importState({ path: join(dir.path, "c"), version: 2n, items: [cut], batchSize: 7 }),
        (err: Error) =>
          err instanceof StateImportError && /store "bank": the exported tree has 2 roots/.test(err.message),
      );
      await assert.rejects(openMultiStore({ path: join(dir.path, "c"), storeNames: NAMES }));
    } finally {
      await source.close();
      await dir.remove();
    }
  });

  test("a version held by an export is not pruned until the export finishes", async () => {
    const dir = await tempDir();
    const store = await openMultiStore({
      path: dir.path,
      storeNames: NAMES,
      pruning: { strategy: "custom", keepRecent: 2n, interval: 1n },
    });
    try {
      await commitBlocks(store, 1, 10);
      const iterator = exportState(store, 10n, { batchSize: 1 })[Symbol.asyncIterator]();
      const first = await iterator.next(); // the export is now reading version 10
      assert.equal(first.done, false);
      await commitBlocks(store, 11, 20);
      assert.equal(store.earliestVersion(), 10n, "pruning stopped at the held version");
      const rest: ExportItem[][] = [first.value as ExportItem[]];
      for (let r = await iterator.next(); !r.done; r = await iterator.next()) rest.push(r.value);
      const info = await importState({
        path: join(dir.path, "..", `${dir.path.split("/").at(-1)}-imp`),
        version: 10n,
        items: rest,
      });
      assert.equal(toHex(info.appHash), toHex((await store.view(10n)).appHash as Uint8Array));
      await commitBlocks(store, 21, 21);
      assert.equal(store.earliestVersion(), 19n, "released: pruning catches up");
      await assert.rejects(collectExport(exportState(store, 5n)), PrunedVersionError);
    } finally {
      await store.close();
      await dir.remove();
      const { rm } = await import("node:fs/promises");
      await rm(`${dir.path}-imp`, { recursive: true, force: true });
    }
  });

  test("a malformed export or a wrong app hash is refused with a clear error", async () => {
    const dir = await tempDir();
    try {
      const leaf = (k: string, version = 1): ExportItem => ({ kind: "leaf", key: b(k), value: b("x"), version });
      const cases: [ExportItem[], RegExp, Uint8Array?][] = [
        [[leaf("a")], /starts with a tree node/],
        [
          [{ kind: "store", name: "s" }, leaf("b"), leaf("a"), { kind: "inner", version: 1, height: 1 }],
          /not in increasing order/,
        ],
        [[{ kind: "store", name: "s" }, leaf("a"), leaf("b")], /2 roots/],
        [
          [{ kind: "store", name: "s" }, leaf("a"), { kind: "inner", version: 1, height: 1 }],
          /before its two children/,
        ],
        [[{ kind: "store", name: "s" }, leaf("a", 9)], /outside 1\.\.5/],
        [
          [
            { kind: "store", name: "t" },
            { kind: "store", name: "s" },
          ],
          /sorted by name/,
        ],
        [[{ kind: "store", name: "s" }, leaf("a")], /expected 00/, new Uint8Array(32)],
      ];
      let n = 0;
      for (const [items, pattern, expectedAppHash] of cases) {
        await assert.rejects(
          importState({ path: join(dir.path, `bad-${n++}`), version: 5n, items: [items], expectedAppHash }),
          (err: Error) => err instanceof StateImportError && pattern.test(err.message),
        );
      }
      await assert.rejects(
        importState({
          path: join(dir.path, "stores"),
          version: 5n,
          items: [[{ kind: "store", name: "s" }]],
          storeNames: ["s", "t"],
        }),
        /missing t, unexpected none/,
      );
    } finally {
      await dir.remove();
    }
  });
});
