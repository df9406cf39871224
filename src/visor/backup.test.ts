import assert from "node:assert/strict";
import { mkdir, mkdtemp, readdir, readFile, readlink, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, it } from "node:test";
import { ClassicLevel } from "classic-level";
import { backupData, isImmutableFile } from "./backup.ts";
import { silentLogger } from "./log.ts";

describe("backupData", () => {
  let home: string;
  let dataDir: string;
  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), "chainvisor-backup-"));
    dataDir = join(home, "data");
    await mkdir(join(dataDir, "nested"), { recursive: true });
    await writeFile(join(dataDir, "priv_validator_state.json"), '{"height":"5"}');
    await writeFile(join(dataDir, "nested", "000005.ldb"), "table");
    await writeFile(join(dataDir, "nested", "000006.log"), "log");
    await symlink("nested/000006.log", join(dataDir, "latest-log"));
  });
  afterEach(() => rm(home, { recursive: true, force: true }));

  it("hard-links immutable table files, copies the rest, and names the backup by date", async () => {
    const result = await backupData({
      dataDir,
      backupDir: home,
      log: silentLogger,
      progress: false,
      now: new Date(Date.UTC(2025, 0, 2, 3, 4, 5)),
    });
    assert.ok(result);
    assert.equal(result.path, join(home, "data-backup-2025-01-02-030405"));
    assert.equal(result.files, 3);
    assert.equal(result.linkedFiles, 1);
    const table = await stat(join(result.path, "nested", "000005.ldb"));
    assert.equal(table.ino, (await stat(join(dataDir, "nested", "000005.ldb"))).ino);
    const log = await stat(join(result.path, "nested", "000006.log"));
    assert.notEqual(log.ino, (await stat(join(dataDir, "nested", "000006.log"))).ino);
    assert.equal(await readFile(join(result.path, "priv_validator_state.json"), "utf8"), '{"height":"5"}');
    assert.equal(await readlink(join(result.path, "latest-log")), "nested/000006.log");
    // A second backup in the same second gets its own directory.
    const again = await backupData({
      dataDir,
      backupDir: home,
      log: silentLogger,
      progress: false,
      now: new Date(Date.UTC(2025, 0, 2, 3, 4, 5)),
    });
    assert.equal(again?.path, join(home, "data-backup-2025-01-02-030405-2"));
  });

  it("backs up a real LevelDB store that opens again from the backup", async () => {
    const db = new ClassicLevel(join(dataDir, "application.db"));
    for (let i = 0; i < 2000; i++) await db.put(`key-${i}`, `value-${i}`.repeat(20));
    await db.compactRange("key-", "key-~");
    await db.close();
    const result = await backupData({ dataDir, backupDir: home, log: silentLogger, progress: false });
    assert.ok(result && result.linkedFiles >= 1, "compaction leaves .ldb tables to link");
    const copy = new ClassicLevel(join(result.path, "application.db"));
    assert.equal(await copy.get("key-1999"), "value-1999".repeat(20));
    await copy.close();
  });

  it("checks free space first and leaves nothing when it is short", async () => {
    await assert.rejects(
      backupData({ dataDir, backupDir: home, log: silentLogger, progress: false, freeBytes: async () => 3 }),
      { message: /^not enough free disk space for the data backup in .*: it needs 17 bytes, 3 bytes available$/ },
    );
    assert.deepEqual((await readdir(home)).sort(), ["data"]);
  });

  it("runs with a progress bar (drawn only on a terminal)", async () => {
    const result = await backupData({ dataDir, backupDir: home, log: silentLogger, progress: true });
    assert.equal(result?.files, 3);
  });

  it("skips a missing data directory", async () => {
    await rm(dataDir, { recursive: true });
    assert.equal(await backupData({ dataDir, backupDir: home, log: silentLogger, progress: false }), undefined);
  });

  it("knows which files LevelDB never rewrites", () => {
    assert.ok(isImmutableFile("000123.ldb"));
    assert.ok(isImmutableFile("000123.sst"));
    assert.ok(!isImmutableFile("MANIFEST-000002"));
    assert.ok(!isImmutableFile("000124.log"));
    assert.ok(!isImmutableFile("CURRENT"));
  });
});
