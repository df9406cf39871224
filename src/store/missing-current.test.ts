// A state store whose LevelDB CURRENT file is lost must never be opened with create-if-missing: LevelDB would
// start an empty database there and delete every table file as obsolete (round 3, N4). Real LevelDB with real
// table files: each opener of the state store is refused with NotALevelStoreError, naming the store relative to
// the home, and afterwards every file is still there with its size. LevelDB's repair (repairLevelStore, run by
// `chaind repair-store`) then gives back the whole store.
import assert from "node:assert/strict";
import { cp, mkdir, readdir, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { b, KEEP_ALL, tempDir } from "../../test/support/store/helpers.ts";
import { readCommittedStoreNames, readLastCommittedVersion } from "./committed-state.ts";
import { DataDirectoryLockedError, NotALevelStoreError, StoreError } from "./errors.ts";
import { levelDirectoryState } from "./level-directory.ts";
import { repairLevelStore } from "./level-repair.ts";
import { openMultiStore } from "./multistore.ts";
import { importState } from "./state-import.ts";

let dir: Awaited<ReturnType<typeof tempDir>>;
let path: string;
/** The store's last commit before CURRENT was removed (version and app hash, as hex). */
let committed: string;
const commitText = (c: { version: bigint; appHash: Uint8Array }) =>
  `${c.version}:${Buffer.from(c.appHash).toString("hex")}`;

/** name → size of every file in the store directory. */
async function listing(at: string): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const name of await readdir(at)) out.set(name, (await stat(join(at, name))).size);
  return out;
}

function assertRefused(err: unknown): true {
  assert.ok(err instanceof NotALevelStoreError, String(err));
  assert.equal(err.code, "STORE_NOT_LEVELDB");
  assert.equal(err.store, "data/application.db");
  assert.match(err.message, /^data\/application\.db holds \d+ files but no CURRENT file/);
  assert.match(err.message, /nothing in it was changed/);
  assert.match(err.message, /chaind repair-store/);
  assert.ok(!err.message.includes(dir.path), `an absolute path in: ${err.message}`);
  assert.ok(!err.message.includes("\n"), "one line");
  return true;
}

before(async () => {
  dir = await tempDir();
  path = join(dir.path, "home", "data", "application.db");
  const store = await openMultiStore({ path, storeNames: ["bank"], pruning: KEEP_ALL });
  for (let height = 1; height <= 20; height++) {
    const block = store.branch();
    for (let i = 0; i < 200; i++) block.store("bank").set(b(`key-${height}-${i}`), b(`value-${height}-${i}`.repeat(8)));
    await store.stage(block);
    await store.commit();
  }
  committed = commitText(store.lastCommit());
  await store.close();
  // Reopening moves LevelDB's log into a table file (.ldb), the files the defect deleted.
  await (await openMultiStore({ path, storeNames: ["bank"], pruning: KEEP_ALL })).close();
  await rm(join(path, "CURRENT"));
});

after(async () => {
  await dir?.remove();
});

describe("a state store without CURRENT", () => {
  test("every opener refuses it and leaves every file as it was", async () => {
    const before = await listing(path);
    assert.ok(
      [...before.keys()].some((name) => name.endsWith(".ldb")),
      `no table file: ${[...before.keys()].join(", ")}`,
    );
    // The node's start and `snapshots export` (create-if-missing), the readers (status, replay, upgrade records).
    await assert.rejects(openMultiStore({ path, storeNames: ["bank"] }), assertRefused);
    await assert.rejects(openMultiStore({ path, storeNames: ["bank"], createIfMissing: false }), assertRefused);
    await assert.rejects(readLastCommittedVersion(path), assertRefused);
    await assert.rejects(readCommittedStoreNames(path), assertRefused);
    // A snapshot restore imports into a fresh directory; never into this one.
    await assert.rejects(importState({ path, version: 1n, items: [] }), assertRefused);
    assert.deepEqual(await listing(path), before);
  });

  test("a missing or empty directory (or one with only LevelDB's lock, log or a first MANIFEST) is still created", async () => {
    const fresh = join(dir.path, "fresh", "application.db");
    assert.equal(levelDirectoryState(fresh), "missing");
    await mkdir(fresh, { recursive: true });
    assert.equal(levelDirectoryState(fresh), "empty");
    // What a refused read-only open leaves behind: no data, so creating a store there loses nothing.
    await writeFile(join(fresh, "LOCK"), "");
    await writeFile(join(fresh, "LOG"), "opened\n");
    assert.equal(levelDirectoryState(fresh), "empty");
    // What a process killed while it first created the store leaves: a new MANIFEST, no table, no CURRENT yet.
    await writeFile(join(fresh, "MANIFEST-000001"), "");
    await writeFile(join(fresh, "000001.dbtmp"), "MANIFEST-000001\n");
    assert.equal(levelDirectoryState(fresh), "empty");
    const store = await openMultiStore({ path: fresh, storeNames: ["bank"] });
    await store.close();
    assert.equal(levelDirectoryState(fresh), "store");
  });
});

describe("repairLevelStore (chaind repair-store)", () => {
  test("refuses what it cannot repair, and a store that another handle has open", async () => {
    await assert.rejects(repairLevelStore(join(dir.path, "nowhere")), (err: unknown) => {
      assert.ok(err instanceof StoreError);
      assert.match(err.message, /nowhere is not a directory; give the store's directory/);
      return true;
    });
    const empty = join(dir.path, "empty-dir");
    await mkdir(empty);
    await assert.rejects(repairLevelStore(empty), /holds no LevelDB table or log file: there is nothing to repair/);
    const held = join(dir.path, "held");
    const open = await openMultiStore({ path: held, storeNames: ["bank"] });
    try {
      await assert.rejects(repairLevelStore(held), DataDirectoryLockedError);
    } finally {
      await open.close();
    }
  });

  test("rebuilds the store whose CURRENT was lost: it opens again at its last commit with its data", async () => {
    const copy = join(dir.path, "repaired", "application.db");
    await mkdir(join(dir.path, "repaired"));
    await cp(path, copy, { recursive: true });
    const result = await repairLevelStore(copy);
    assert.ok(result.tables > 0, JSON.stringify(result));
    const store = await openMultiStore({ path: copy, storeNames: ["bank"], pruning: KEEP_ALL });
    try {
      assert.equal(commitText(store.lastCommit()), committed);
      const view = await store.view(7n);
      assert.equal(Buffer.from((await view.store("bank").get(b("key-7-3"))) ?? []).toString(), "value-7-3".repeat(8));
    } finally {
      await store.close();
    }
  });
});
