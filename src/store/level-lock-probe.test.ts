// The lock probe tells a store some process holds from one nobody does, without taking the lock itself.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { ClassicLevel } from "classic-level";
import { levelLockHeld } from "./level-lock-probe.ts";

test("levelLockHeld: true exactly while a store is open, as the machine's lock table says", {
  skip: !existsSync("/proc/locks"),
}, async (t) => {
  const root = await mkdtemp(join(tmpdir(), "level-lock-probe-"));
  t.after(() => rm(root, { recursive: true, force: true }));
  const path = join(root, "store.db");
  assert.equal(levelLockHeld(path), false, "no store at all");
  const db = new ClassicLevel(path);
  await db.open();
  assert.equal(levelLockHeld(path), true, "open");
  await db.close();
  assert.equal(levelLockHeld(path), false, "closed: its LOCK file stays, unlocked");
});

test("levelLockHeld matches a lock by the LOCK file's inode, whatever device numbers the line gives", async (t) => {
  const root = await mkdtemp(join(tmpdir(), "level-lock-probe-"));
  t.after(() => rm(root, { recursive: true, force: true }));
  await writeFile(join(root, "LOCK"), "");
  const inode = (await stat(join(root, "LOCK"), { bigint: true })).ino;
  const locks = join(root, "locks");
  await writeFile(locks, `1: POSIX  ADVISORY  WRITE 4242 00:2f:${inode + 1n} 0 EOF\n`);
  assert.equal(levelLockHeld(root, locks), false);
  await writeFile(
    locks,
    `1: FLOCK  ADVISORY  WRITE 77 fe:00:9 0 EOF\n2: POSIX  ADVISORY  WRITE 4242 00:2f:${inode} 0 EOF\n`,
  );
  assert.equal(levelLockHeld(root, locks), true);
  assert.equal(levelLockHeld(root, join(root, "no-lock-table")), undefined, "no lock table: cannot tell");
});
