// Step B (README "A large version's memory"): a large version's updates write their latest rows before its commit
// point. While they are on disk and the version is not committed, every reader must still see the latest committed
// version; a discard, a failed stage and an open after a crash put the rows back exactly as the last commit left them,
// and a crash inside that undo only repeats it.
import assert from "node:assert/strict";
import { test } from "node:test";
import { b, entries, KEEP_ALL, s, tempDir } from "../../test/support/store/helpers.ts";
import { toHex } from "../bytes/hex.ts";
import { decodeLatestRow } from "./flat-state.ts";
import { historyKey, storePrefix, TABLE } from "./keys.ts";
import { type KVBackend, openLevelBackend } from "./kv-backend.ts";
import { encodePartialVersion, partialVersionKey, undoLatestRowsAfter } from "./lost-latest-rows.ts";
import { type MultiStore, type OpenMultiStoreOptions, openMultiStore } from "./multistore.ts";

const KEYS = 300;
/** The "bank" store's id: the first registered store after "auth" (names in registration order). */
const BANK = 2;

/** Versions 1–3: every key set, then two rounds of updates of some (so keys stand at writes 1 to 3). */
async function history(store: MultiStore): Promise<void> {
  for (let v = 1; v <= 3; v++) {
    const branch = store.branch();
    const bank = branch.store("bank");
    for (let i = 0; i < KEYS; i++) if (v === 1 || i % v === 0) bank.set(b(`key-${i}`), b(`v${v}-${i}`));
    branch.store("auth").set(b("height"), b(`${v}`));
    await store.stage(branch);
    await store.commit();
  }
  await store.idle();
}

/** Version 4's branch: every key updated (no insert, no delete), so every bank latest row goes early. */
function updateAll(store: MultiStore) {
  const branch = store.branch();
  for (let i = 0; i < KEYS; i++) branch.store("bank").set(b(`key-${i}`), b(`v4-${i}`));
  branch.store("auth").set(b("height"), b("4"));
  return branch;
}

/**
 * A LevelDB store whose "bank" versions of 50 writes or more take the early way (parts of 512 bytes), with versions
 * 1–3 committed and version 4 (every key updated) staged; `before`: its bank latest rows before the stage.
 */
async function stagedUpdates() {
  const dir = await tempDir();
  const options: OpenMultiStoreOptions = {
    path: dir.path,
    storeNames: ["auth", "bank"],
    pruning: KEEP_ALL,
    earlyWriteThreshold: 50,
    pageWritePartBytes: 512,
    nodeCacheSize: 0,
  };
  const store = await openMultiStore(options);
  await history(store);
  const before = await latestRows(store.backend);
  await store.stage(updateAll(store));
  return { dir, options, store, before };
}

/** The bank store's latest rows, hex key → hex row. */
async function latestRows(backend: KVBackend): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const range = { gte: storePrefix(TABLE.latest, BANK), lt: storePrefix(TABLE.latest, BANK + 1) };
  for await (const [k, v] of backend.iterate(range)) out.set(toHex(k), toHex(v));
  return out;
}

/** How many bank latest rows say `version`. */
async function rowsAt(backend: KVBackend, version: number): Promise<number> {
  let n = 0;
  const range = { gte: storePrefix(TABLE.latest, BANK), lt: storePrefix(TABLE.latest, BANK + 1) };
  for await (const [, row] of backend.iterate(range)) if (decodeLatestRow(row, true).version === version) n++;
  return n;
}

/** What version 3 holds, key by key. */
function version3(i: number): string {
  return i % 3 === 0 ? `v3-${i}` : i % 2 === 0 ? `v2-${i}` : `v1-${i}`;
}

test("Step B: updates' latest rows are on disk before the commit, and every reader still sees the latest version", async () => {
  const { dir, store, before } = await stagedUpdates();
  try {
    assert.equal(await rowsAt(store.backend, 4), KEYS, "every update's latest row is on disk at stage");
    assert.ok(store.backend.getSync(partialVersionKey()) !== undefined, "the marker is on disk");
    assert.equal(store.lastCommit().version, 3n);
    // A view at the latest version: point reads and a scan are version 3's.
    const view = (await store.view()).store("bank");
    for (const i of [0, 1, 2, 3, 150, 299]) assert.equal(s(await view.get(b(`key-${i}`))), version3(i));
    const scanned = await entries(view.iterate({ prefix: b("key-") }));
    assert.equal(scanned.length, KEYS);
    for (const [k, v] of scanned) assert.equal(v, version3(Number(k.slice(4))), k);
    await store.commit();
    assert.equal(store.backend.getSync(partialVersionKey()), undefined, "the commit deletes the marker");
    assert.equal(s(await (await store.view()).store("bank").get(b("key-7"))), "v4-7");
    assert.equal(s(await (await store.view(3n)).store("bank").get(b("key-7"))), version3(7));
    assert.notDeepEqual(await latestRows(store.backend), before);
  } finally {
    await store.close();
    await dir.remove();
  }
});

test("Step B: a discarded stage's rows are undone; the working set reads the latest version at once", async () => {
  const { dir, store, before } = await stagedUpdates();
  try {
    store.discardStaged();
    // Before the undo behind the discard has run: the next block's reads and scans are version 3's.
    const next = store.branch().store("bank");
    for (const i of [0, 1, 5, 298]) assert.equal(s(await next.get(b(`key-${i}`))), version3(i));
    const scanned = await entries(next.iterate({ prefix: b("key-1") }));
    for (const [k, v] of scanned) assert.equal(v, version3(Number(k.slice(4))), k);
    await store.idle();
    assert.deepEqual(await latestRows(store.backend), before, "the latest rows are version 3's, byte for byte");
    assert.equal(store.backend.getSync(partialVersionKey()), undefined);
    // The height is committed afterwards as if nothing had been staged.
    const branch = store.branch();
    branch.store("bank").set(b("key-1"), b("again"));
    await store.stage(branch);
    await store.commit();
    assert.equal(s(await (await store.view()).store("bank").get(b("key-2"))), version3(2));
    assert.equal(s(await (await store.view()).store("bank").get(b("key-1"))), "again");
  } finally {
    await store.close();
    await dir.remove();
  }
});

test("Step B: a crash in the window, then a crash inside the undo: each open puts the rest back", async () => {
  const staged = await stagedUpdates();
  const { dir, options, before } = staged;
  let store = staged.store;
  try {
    // The process stops here: its rows are on disk, its commit never written.
    await store.close();
    // The first open's undo fails after two batches of 40 rows.
    const backend = await openLevelBackend(options.path as string);
    const makeBatch = backend.batch.bind(backend);
    let writes = 0;
    backend.batch = () => {
      const real = makeBatch();
      return {
        ...real,
        write: async (sync: boolean) => {
          if (++writes > 2) throw new Error("power cut");
          await real.write(sync);
        },
      };
    };
    await assert.rejects(undoLatestRowsAfter(backend, 3, true, 40), /power cut/);
    backend.batch = makeBatch;
    assert.equal(await rowsAt(backend, 4), KEYS - 80, "two batches were put back");
    assert.ok(backend.getSync(partialVersionKey()) !== undefined, "the marker stays until the last batch");
    await backend.close();
    // The next open finishes it.
    store = await openMultiStore(options);
    assert.equal(store.latestRowsUndoneAtOpen, KEYS - 80);
    assert.deepEqual(await latestRows(store.backend), before);
    assert.equal(store.backend.getSync(partialVersionKey()), undefined);
    for (const i of [0, 4, 9, 299])
      assert.equal(s(await (await store.view()).store("bank").get(b(`key-${i}`))), version3(i));
    await store.close();
    store = await openMultiStore(options);
    assert.equal(store.latestRowsUndoneAtOpen, 0, "nothing is left to undo");
  } finally {
    await store.close();
    await dir.remove();
  }
});

test("Step B: a row that cannot be undone (its history row gone) is refused at open as a damaged store", async () => {
  const { dir, options, store } = await stagedUpdates();
  try {
    await store.close();
    const backend = await openLevelBackend(options.path as string);
    // key-6 stands at write 3 (versions 1, 2 and 3 set it): version 4's row is write 4, undone from history row 3.
    await backend.write([{ key: historyKey(BANK, b("key-6"), 3), value: undefined }], true);
    await backend.close();
    await assert.rejects(openMultiStore(options), (err: Error & { code?: string }) => {
      assert.equal(err.code, "STORE_DIR_CORRUPT");
      assert.match(
        err.message,
        /store #2 from version 4, after the latest \(3\), cannot be undone: its history row 3 is missing/,
      );
      return true;
    });
  } finally {
    await store.close();
    await dir.remove();
  }
});

test("Step B: a damaged marker, or one naming a version other than the next, is refused at open with nothing undone", async () => {
  const { dir, options, store } = await stagedUpdates();
  try {
    await store.close();
    const reader = await openLevelBackend(options.path as string);
    const good = reader.getSync(partialVersionKey());
    await reader.close();
    const cases: [Uint8Array, RegExp][] = [
      [new Uint8Array([0, 0, 0]), /marker .* is damaged \(unexpected end of record\); expected a version \(8 bytes\)/],
      [
        encodePartialVersion({ version: 9, sids: [BANK] }),
        /marker names version 9 .* latest version is 3: only version 4/,
      ],
      [encodePartialVersion({ version: 3, sids: [BANK] }), /marker names version 3 .* only version 4 can be/],
    ];
    for (const [marker, message] of cases) {
      let backend = await openLevelBackend(options.path as string);
      await backend.write([{ key: partialVersionKey(), value: marker }], true);
      await backend.close();
      await assert.rejects(openMultiStore(options), (err: Error & { code?: string }) => {
        assert.equal(err.code, "STORE_DIR_CORRUPT");
        assert.match(err.message, message);
        return true;
      });
      backend = await openLevelBackend(options.path as string);
      assert.equal(await rowsAt(backend, 4), KEYS, "no row was undone");
      await backend.close();
    }
    // The marker as the stage wrote it opens and undoes.
    const backend = await openLevelBackend(options.path as string);
    await backend.write([{ key: partialVersionKey(), value: good }], true);
    await backend.close();
    const reopened = await openMultiStore(options);
    assert.equal(reopened.latestRowsUndoneAtOpen, KEYS);
    await reopened.close();
  } finally {
    await store.close();
    await dir.remove();
  }
});
