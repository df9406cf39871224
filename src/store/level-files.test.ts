import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { ClassicLevel } from "classic-level";
import { LevelFileError, openLevelFiles } from "./level-files.ts";

const dirs: string[] = [];
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "chaind-level-files-"));
  dirs.push(dir);
  return dir;
}

/** Every file's name, size, mtime and content hash: what a reader that writes nothing leaves as it was. */
function fingerprint(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .map((name) => {
      const stat = statSync(join(dir, name));
      const hash = createHash("sha256")
        .update(readFileSync(join(dir, name)))
        .digest("hex");
      return `${name} ${stat.size} ${stat.mtimeMs} ${hash}`;
    });
}

const key = (i: number) => Buffer.from(`k${String(i).padStart(5, "0")}`);

/** A value of `i`'s: some compress well (repeated text, long enough for multi-byte literal lengths), some do not. */
function value(i: number, round: number): Uint8Array {
  if (i % 3 === 0) return randomBytes(20 + (i % 200));
  return Buffer.from(`${round}:${i}:`.repeat(1 + (i % 400)));
}

/**
 * A store written in three sessions with small write buffers: puts, overwrites and deletes, compactions that move
 * tables to deeper levels, and the last session's writes left in its log (LevelDB does not flush it on close).
 * Returns what each key should read.
 */
async function writeStore(dir: string): Promise<Map<number, Uint8Array | undefined>> {
  const expected = new Map<number, Uint8Array | undefined>();
  for (let round = 0; round < 3; round++) {
    const db = new ClassicLevel<Uint8Array, Uint8Array>(dir, {
      keyEncoding: "view",
      valueEncoding: "view",
      writeBufferSize: 64 * 1024,
    });
    await db.open();
    for (let i = 0; i < 4000; i++) {
      const k = (i * 7919 + round * 13) % 6000;
      if ((i + round) % 11 === 0) {
        await db.del(key(k));
        expected.set(k, undefined);
      } else {
        const v = value(k + i, round);
        await db.put(key(k), v);
        expected.set(k, v);
      }
    }
    if (round === 0) await db.compactRange(key(0), key(6000));
    if (round === 1) await db.compactRange(key(0), key(2000));
    if (round === 2) {
      // The last writes, after the compactions, are in the log only.
      for (let k = 5000; k < 5100; k++) {
        const v = value(k, 9);
        await db.put(key(k), v);
        expected.set(k, v);
      }
      await db.del(key(10));
      expected.set(10, undefined);
      const tables = Array.from({ length: 7 }, (_, level) =>
        Number(db.getProperty(`leveldb.num-files-at-level${level}`)),
      );
      assert.ok(tables.filter((n) => n > 0).length >= 2, `tables on two levels at least: ${tables}`);
    }
    await db.close();
  }
  return expected;
}

describe("openLevelFiles", () => {
  it("reads every key as LevelDB does, from the log, level 0 and deeper levels, writing nothing", async () => {
    const dir = tempDir();
    const expected = await writeStore(dir);
    const before = fingerprint(dir);
    const files = openLevelFiles(dir);
    const read = new Map<number, Uint8Array | undefined>();
    for (let k = 0; k < 6100; k++) read.set(k, files.get(key(k)));
    assert.equal(files.get(Buffer.from("absent")), undefined);
    assert.equal(files.get(Buffer.from("")), undefined);
    files.close();
    assert.deepEqual(fingerprint(dir), before, "nothing in the directory changed");

    const db = new ClassicLevel<Uint8Array, Uint8Array>(dir, { keyEncoding: "view", valueEncoding: "view" });
    await db.open();
    try {
      for (let k = 0; k < 6100; k++) {
        const level = await db.get(key(k));
        assert.deepEqual(
          read.get(k) && Buffer.from(read.get(k) as Uint8Array),
          level && Buffer.from(level),
          `key ${k}`,
        );
        if (expected.has(k)) {
          const e = expected.get(k);
          assert.deepEqual(level && Buffer.from(level), e && Buffer.from(e), `key ${k} as written`);
        }
      }
    } finally {
      await db.close();
    }
  });

  it("refuses what LevelDB would treat as damage: a log record's checksum, a missing table, no CURRENT", async () => {
    const dir = tempDir();
    await writeStore(dir);
    const log = readdirSync(dir).find((name) => name.endsWith(".log")) as string;
    const bytes = readFileSync(join(dir, log));
    assert.ok(bytes.length > 100, "the last session's writes are in the log");
    const flipped = Buffer.from(bytes);
    flipped[50] ^= 1;
    writeFileSync(join(dir, log), flipped);
    assert.throws(() => openLevelFiles(dir), LevelFileError);
    writeFileSync(join(dir, log), bytes);
    openLevelFiles(dir).close();

    const table = readdirSync(dir).find((name) => name.endsWith(".ldb")) as string;
    unlinkSync(join(dir, table));
    assert.throws(() => openLevelFiles(dir), LevelFileError);
    unlinkSync(join(dir, "CURRENT"));
    assert.throws(() => openLevelFiles(dir), { code: "ENOENT" });
  });

  it("reads a store cut short in the middle of its last log record as LevelDB recovers it", async () => {
    const dir = tempDir();
    await writeStore(dir);
    const log = readdirSync(dir).find((name) => name.endsWith(".log")) as string;
    const bytes = readFileSync(join(dir, log));
    writeFileSync(join(dir, log), bytes.subarray(0, bytes.length - 3)); // the writer stopped mid-record
    const files = openLevelFiles(dir);
    const read = Array.from({ length: 6100 }, (_, k) => files.get(key(k)));
    files.close();
    const db = new ClassicLevel<Uint8Array, Uint8Array>(dir, { keyEncoding: "view", valueEncoding: "view" });
    await db.open();
    try {
      for (let k = 0; k < 6100; k++) {
        const level = await db.get(key(k));
        assert.deepEqual(read[k] && Buffer.from(read[k] as Uint8Array), level && Buffer.from(level), `key ${k}`);
      }
    } finally {
      await db.close();
    }
  });
});
