// The lock probe tells a store some process holds from one nobody does, without taking the lock itself.
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { ClassicLevel } from "classic-level";
import { levelLockHeld } from "./level-lock-probe.ts";

test("levelLockHeld: true while a store is open, false once it is closed or when it has no LOCK", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), "level-lock-probe-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const path = join(dir, "store.db");
  assert.equal(await levelLockHeld(path), false, "no store at all");
  const db = new ClassicLevel(path);
  await db.open();
  const held = await levelLockHeld(path);
  if (held === undefined) {
    t.skip("this system lists no locks (/proc/locks)");
    await db.close();
    return;
  }
  assert.equal(held, true);
  await db.close();
  assert.equal(await levelLockHeld(path), false);
});
