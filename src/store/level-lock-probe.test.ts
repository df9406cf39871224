// The lock probe tells a store some process holds from one nobody does, without taking the lock itself.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { ClassicLevel } from "classic-level";
import { levelLockHeld, levelLockHeldAsync } from "./level-lock-probe.ts";

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
  assert.equal(await levelLockHeldAsync(path), true, "open, asked through the thread pool");
  await db.close();
  assert.equal(levelLockHeld(path), false, "closed: its LOCK file stays, unlocked");
  assert.equal(await levelLockHeldAsync(path), false, "closed, asked through the thread pool");
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

test("levelLockHeldAsync answers as levelLockHeld does, a table longer than one read included", async (t) => {
  const root = await mkdtemp(join(tmpdir(), "level-lock-probe-"));
  t.after(() => rm(root, { recursive: true, force: true }));
  const locks = join(root, "locks");
  assert.equal(await levelLockHeldAsync(root, locks), false, "no LOCK file: never opened, nobody holds it");
  await writeFile(join(root, "LOCK"), "");
  const inode = (await stat(join(root, "LOCK"), { bigint: true })).ino;
  const others = Array.from(
    { length: 6000 },
    (_, i) => `${i + 1}: POSIX  ADVISORY  WRITE 4242 00:2f:${inode + 1n} 0 EOF\n`,
  );
  await writeFile(locks, others.join(""));
  assert.equal(await levelLockHeldAsync(root, locks), false);
  const mine = `6001: POSIX  ADVISORY  WRITE 4242 00:2f:${inode} 0 EOF\n`;
  await writeFile(locks, others.join("") + mine);
  assert.ok((await stat(locks)).size > 256 * 1024, "the held lock's line is past the first read");
  assert.equal(await levelLockHeldAsync(root, locks), true);
  assert.equal(levelLockHeld(root, locks), true);
  assert.equal(await levelLockHeldAsync(root, join(root, "no-lock-table")), undefined, "no lock table: cannot tell");
});

test("levelLockHeldAsync finds a store's lock past the first page of the machine's lock table", {
  skip: !existsSync("/proc/locks"),
}, async (t) => {
  // The kernel gives /proc/locks out a page (~60 locks) a read: with 150 stores open, most of their lines are past
  // the first read, wherever the kernel lists them.
  const root = await mkdtemp(join(tmpdir(), "level-lock-probe-"));
  const stores = Array.from({ length: 150 }, (_, i) => new ClassicLevel(join(root, `store-${i}.db`)));
  t.after(async () => {
    await Promise.all(stores.map((db) => db.close()));
    await rm(root, { recursive: true, force: true });
  });
  for (const db of stores) await db.open();
  const answers = await Promise.all(stores.map((db) => levelLockHeldAsync(db.location)));
  const missed = stores.filter((_, i) => answers[i] !== true).map((db) => db.location);
  assert.deepEqual(missed, [], "every open store's lock is found");
  assert.equal(levelLockHeld(stores[149]!.location), true);
});
