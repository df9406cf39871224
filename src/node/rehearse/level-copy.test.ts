// The rehearsal's work copy shares the source's LevelDB table files, write-ahead log and manifest by hard link:
// whatever the copy then does (recovering the log, writes, deletes, compactions, close), the source's files and
// contents stay exactly as they were.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { ClassicLevel } from "classic-level";
import { copyLevelDb, removeWithLevelCopies } from "./level-copy.ts";

/** Opens a store at `dir` holding 2,000 keys in a table (compacted) besides whatever goes to its log next. */
async function storeWithTable(dir: string): Promise<ClassicLevel<string, string>> {
  const db = new ClassicLevel<string, string>(dir);
  await db.open();
  await db.batch(Array.from({ length: 2000 }, (_, i) => ({ type: "put", key: `k${i}`, value: `v-${i}` })));
  await db.compactRange("k", "l"); // a table, as well as the log
  return db;
}

async function fileHashes(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const name of (await readdir(dir)).sort()) {
    out[name] = createHash("sha256")
      .update(await readFile(join(dir, name)))
      .digest("hex");
  }
  return out;
}

test("a work copy shares the table files, and nothing it does reaches the source", async () => {
  const root = await mkdtemp(join(tmpdir(), "chaind-level-copy-"));
  try {
    const source = join(root, "source");
    const db = new ClassicLevel<string, string>(source);
    await db.open();
    for (let round = 0; round < 3; round++) {
      await db.batch(Array.from({ length: 2000 }, (_, i) => ({ type: "put", key: `k${i}`, value: `v${round}-${i}` })));
      await db.compactRange("k", "l"); // table files on disk, not only the write-ahead log
    }
    // And records only in the write-ahead log: the copy's open recovers them into a table of its own.
    await db.batch(Array.from({ length: 500 }, (_, i) => ({ type: "put", key: `log${i}`, value: `logged-${i}` })));
    await db.close();
    const before = await fileHashes(source);
    const tables = Object.keys(before).filter((name) => name.endsWith(".ldb") || name.endsWith(".sst"));
    assert.ok(tables.length > 0, "the source has table files");
    const log = Object.keys(before).find((name) => name.endsWith(".log"));
    const manifest = Object.keys(before).find((name) => name.startsWith("MANIFEST-"));
    assert.ok(log !== undefined && manifest !== undefined, "the source has a log and a manifest");
    assert.ok((await stat(join(source, log))).size > 0, "the source's log holds records");

    const work = join(root, "work");
    await copyLevelDb(source, work);
    // Linked, not copied: each inode now has two names. LOCK is LevelDB's own in each directory.
    for (const name of [tables[0], log, manifest]) assert.equal((await stat(join(source, name))).nlink, 2, name);
    assert.ok(!(await readdir(work)).includes("LOCK"), "the source's LOCK is not shared");

    const copy = new ClassicLevel<string, string>(work);
    await copy.open();
    assert.equal(await copy.get("k1999"), "v2-1999");
    assert.equal(await copy.get("log499"), "logged-499");
    await copy.batch(Array.from({ length: 2000 }, (_, i) => ({ type: "del", key: `k${i}` })));
    await copy.put("new", "value");
    await copy.compactRange("a", "z"); // replaces (unlinks) the shared tables in the copy
    await copy.close();
    await rm(work, { recursive: true, force: true });

    assert.deepEqual(await fileHashes(source), before);
    const reopened = new ClassicLevel<string, string>(source);
    await reopened.open();
    assert.equal(await reopened.get("k0"), "v2-0");
    assert.equal(await reopened.get("log0"), "logged-0");
    assert.equal(await reopened.get("new"), undefined);
    await reopened.close();
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});

test("a copy of a store still open elsewhere is the store at that moment: later writes to its log do not reach it", async () => {
  const root = await mkdtemp(join(tmpdir(), "chaind-level-copy-"));
  const source = join(root, "source");
  const db = await storeWithTable(source);
  try {
    await db.put("height", "41");
    const work = join(root, "work");
    await copyLevelDb(source, work); // as a rehearsal of a node that was not stopped does
    // The running node carries on: its next blocks go to the log it has open.
    await db.put("height", "42");
    await db.put("later", "block");

    const copy = new ClassicLevel<string, string>(work);
    await copy.open();
    try {
      assert.equal(await copy.get("height"), "41");
      assert.equal(await copy.get("later"), undefined);
      assert.equal(await copy.get("k1999"), "v-1999");
    } finally {
      await copy.close();
    }
    assert.equal(await db.get("height"), "42", "the source keeps its own writes");
    // The copy made while the lock table was read (links to the log and manifest too) was replaced by the live
    // one: no name of the copy shares the log or manifest the node still appends to.
    for (const name of await readdir(source)) {
      if (name.endsWith(".log") || name.startsWith("MANIFEST-")) {
        assert.equal((await stat(join(source, name))).nlink, 1, name);
      }
    }
  } finally {
    await db.close();
    await rm(root, { recursive: true, force: true });
  }
});

test("a caller's earlier answer to whether the source is in use is the one the copy follows", async () => {
  const root = await mkdtemp(join(tmpdir(), "chaind-level-copy-"));
  try {
    const source = join(root, "source");
    const db = await storeWithTable(source);
    await db.put("height", "41");
    await db.close();
    const shared = async (): Promise<string[]> => {
      const names = await readdir(source);
      const linked = await Promise.all(
        names.map(async (name) => ((await stat(join(source, name))).nlink > 1 ? name : "")),
      );
      return linked.filter((name) => name.endsWith(".log") || name.startsWith("MANIFEST-"));
    };
    // Nobody holds it, but the caller's probe said it was in use: the copy is made the live way.
    await copyLevelDb(source, join(root, "live"), Promise.resolve(true));
    assert.deepEqual(await shared(), [], "log and manifest copied, not linked");
    await rm(join(root, "live"), { recursive: true, force: true });
    // At rest by the caller's answer: everything linked, as without one.
    await copyLevelDb(source, join(root, "rest"), Promise.resolve(false));
    assert.equal((await shared()).length, 2, "log and manifest linked");
    const copy = new ClassicLevel<string, string>(join(root, "rest"));
    await copy.open();
    assert.equal(await copy.get("height"), "41");
    await copy.close();
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});

test("removing a work folder takes its level copies and everything else, and only the copies' names of shared files", async () => {
  const root = await mkdtemp(join(tmpdir(), "chaind-level-copy-"));
  try {
    const source = join(root, "source");
    await (await storeWithTable(source)).close();
    const before = await fileHashes(source);

    const folder = join(root, "work");
    const copy = join(folder, "first", "data", "application.db");
    await copyLevelDb(source, copy);
    await mkdir(join(folder, "other"), { recursive: true });
    await writeFile(join(folder, "other", "block.bin"), "x");
    // The second copy was never made (a rehearsal without the determinism run): nothing to unlink there.
    await removeWithLevelCopies(folder, [copy, join(folder, "second", "data", "application.db")]);

    await assert.rejects(stat(folder), { code: "ENOENT" });
    assert.deepEqual(await fileHashes(source), before);
    const table = Object.keys(before).find((name) => name.endsWith(".ldb") || name.endsWith(".sst"));
    assert.ok(table !== undefined);
    assert.equal((await stat(join(source, table))).nlink, 1, "the copy's link is gone, the source's file stays");
    // A folder that is already gone (or never made) is no error.
    await removeWithLevelCopies(folder, [copy]);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});
