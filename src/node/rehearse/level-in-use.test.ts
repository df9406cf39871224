// A LevelDB directory is in use while some process holds the lock on its LOCK file, as /proc/locks lists it.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { ClassicLevel } from "classic-level";
import { levelDbInUse } from "./level-in-use.ts";

test("a store is in use exactly while it is open, as the machine's lock table says", {
  skip: !existsSync("/proc/locks"),
}, async () => {
  const root = await mkdtemp(join(tmpdir(), "chaind-level-in-use-"));
  try {
    const dir = join(root, "db");
    assert.equal(levelDbInUse(dir), false, "no store at all");
    const db = new ClassicLevel(dir);
    await db.open();
    assert.equal(levelDbInUse(dir), true, "open");
    await db.close();
    assert.equal(levelDbInUse(dir), false, "closed: its LOCK file stays, unlocked");
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});

test("a lock is matched by the LOCK file's inode, whatever device numbers the line gives", async () => {
  const root = await mkdtemp(join(tmpdir(), "chaind-level-in-use-"));
  try {
    await writeFile(join(root, "LOCK"), "");
    const inode = (await stat(join(root, "LOCK"), { bigint: true })).ino;
    const locks = join(root, "locks");
    await writeFile(locks, `1: POSIX  ADVISORY  WRITE 4242 00:2f:${inode + 1n} 0 EOF\n`);
    assert.equal(levelDbInUse(root, locks), false);
    await writeFile(
      locks,
      `1: FLOCK  ADVISORY  WRITE 77 fe:00:9 0 EOF\n2: POSIX  ADVISORY  WRITE 4242 00:2f:${inode} 0 EOF\n`,
    );
    assert.equal(levelDbInUse(root, locks), true);
    assert.equal(levelDbInUse(root, join(root, "no-lock-table")), false, "no lock table: not known to be in use");
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});
