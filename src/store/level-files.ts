// A LevelDB directory read where it lies, without LevelDB and without writing a byte (`upgrade rehearse` reads two
// blocks of the source's block store this way: src/node/rehearse/source-blocks.ts). LevelDB has no read-only
// open: its open replays the write-ahead log into a new table and writes a new MANIFEST and CURRENT (four syncs),
// so a reader that must leave a store as it found it had to open a copy of it. What an open would see is in the
// files: CURRENT names the MANIFEST, whose edits give the live tables of each level and the first log still to
// replay; those logs' write batches are the records not yet in a table (what LevelDB's recovery would put in its
// memtable). A read looks where LevelDB's does, newest first: those records, then the level-0 tables from the
// newest, then the one table of each deeper level whose key range holds the key.
//
// For a store at rest (not open in another process: check with src/store/level-lock-probe.ts), and exact only
// where it reads cleanly: anything LevelDB would treat as damage or that this reader does not know (a missing
// table, a bad checksum in the log or MANIFEST, another comparator, an unknown record) throws LevelFileError, and
// the caller reads the store the ordinary way instead, so that LevelDB's own handling decides as it always has.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ByteReader, LevelFileError, logRecords } from "./level-log-records.ts";
import { compareBytes, compareInternal, LevelTable, type TableHit, userKey } from "./level-table.ts";

export { LevelFileError } from "./level-log-records.ts";

const COMPARATOR = "leveldb.BytewiseComparator";
const LEVELS = 7;

interface TableFile {
  number: number;
  smallest: Uint8Array;
  largest: Uint8Array;
}

/** A LevelDB directory's records, read from its files; {@link close} closes the tables it opened. */
export interface LevelFiles {
  /** The value stored for `key`, undefined when none (never stored, or deleted). */
  get(key: Uint8Array): Uint8Array | undefined;
  close(): void;
}

/** Reads the LevelDB directory `dir` (its CURRENT, MANIFEST and logs now; its tables as reads need them). */
export function openLevelFiles(dir: string): LevelFiles {
  const names = new Set(readdirSync(dir));
  const current = readFileSync(join(dir, "CURRENT"), "latin1");
  if (!/^MANIFEST-\d+\n$/.test(current)) throw new LevelFileError(`${dir}: CURRENT does not name a MANIFEST`);
  const manifest = current.slice(0, -1);
  const { levels, logNumber, previousLogNumber } = readManifest(join(dir, manifest));
  // LevelDB refuses to open a store whose MANIFEST names a table that is not there.
  const tablePath = (number: number): string => {
    const name = `${String(number).padStart(6, "0")}`;
    if (names.has(`${name}.ldb`)) return join(dir, `${name}.ldb`);
    if (names.has(`${name}.sst`)) return join(dir, `${name}.sst`);
    throw new LevelFileError(`${dir}: table ${name} is missing`);
  };
  const paths = new Map<number, string>();
  for (const level of levels) for (const file of level) paths.set(file.number, tablePath(file.number));
  // The logs LevelDB's recovery replays, oldest first, into what it would hold in memory.
  const logs = [...names]
    .map((name) => /^(\d+)\.log$/.exec(name))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => Number(m[1]))
    .filter((n) => n >= logNumber || n === previousLogNumber)
    .sort((a, b) => a - b);
  const recent = new Map<string, Uint8Array | null>();
  for (const log of logs) {
    const path = join(dir, `${String(log).padStart(6, "0")}.log`);
    for (const batch of logRecords(readFileSync(path), path)) applyBatch(batch, recent, path);
  }
  // Level 0's tables may overlap: the newest (the highest number) is searched first, as LevelDB does. A deeper
  // level's tables are in key order; two neighbours may both hold a user key (LevelDB 1.20 can end a compaction's
  // output table between two of its versions, kept for a snapshot), the newer version in the first of them.
  levels[0].sort((a, b) => b.number - a.number);
  for (const level of levels.slice(1)) level.sort((a, b) => compareInternal(a.smallest, b.smallest));
  const open = new Map<number, LevelTable>();
  const table = (number: number): LevelTable => {
    let t = open.get(number);
    if (t === undefined) {
      t = new LevelTable(paths.get(number) as string);
      open.set(number, t);
    }
    return t;
  };
  return {
    get(key) {
      const held = recent.get(Buffer.from(key.buffer, key.byteOffset, key.length).toString("latin1"));
      if (held !== undefined) return held ?? undefined;
      for (let level = 0; level < LEVELS; level++) {
        for (const file of levels[level]) {
          if (compareBytes(key, userKey(file.smallest)) < 0 || compareBytes(key, userKey(file.largest)) > 0) continue;
          const hit: TableHit = table(file.number).get(key);
          if (hit === "deleted") return undefined;
          if (hit !== undefined) return hit.value;
        }
      }
      return undefined;
    },
    close() {
      for (const t of open.values()) t.close();
      open.clear();
    },
  };
}

/** The live tables of each level and the logs to replay, from the MANIFEST's edits applied in order. */
function readManifest(path: string): { levels: TableFile[][]; logNumber: number; previousLogNumber: number } {
  const levels = new Map<number, Map<number, TableFile>>();
  for (let level = 0; level < LEVELS; level++) levels.set(level, new Map());
  let logNumber: number | undefined;
  let previousLogNumber = 0;
  const levelOf = (reader: ByteReader): Map<number, TableFile> => {
    const files = levels.get(reader.varint());
    if (files === undefined) throw new LevelFileError(`${path}: level out of range`);
    return files;
  };
  for (const record of logRecords(readFileSync(path), path)) {
    const reader = new ByteReader(record, path);
    while (!reader.done) {
      const tag = reader.varint();
      if (tag === 1) {
        const name = Buffer.from(reader.slice()).toString("latin1");
        if (name !== COMPARATOR) throw new LevelFileError(`${path}: comparator ${name}`);
      } else if (tag === 2) logNumber = reader.varint();
      else if (tag === 3 || tag === 4)
        reader.varint(); // next file number, last sequence
      else if (tag === 5) {
        levelOf(reader); // a compaction pointer: where LevelDB's next compaction of a level starts
        reader.slice();
      } else if (tag === 6) {
        const files = levelOf(reader);
        files.delete(reader.varint());
      } else if (tag === 7) {
        const files = levelOf(reader);
        const number = reader.varint();
        reader.varint(); // its size
        const smallest = reader.slice();
        const largest = reader.slice();
        if (smallest.length < 8 || largest.length < 8) throw new LevelFileError(`${path}: table ${number}'s key range`);
        files.set(number, { number, smallest, largest });
      } else if (tag === 9) previousLogNumber = reader.varint();
      else throw new LevelFileError(`${path}: edit tag ${tag}`);
    }
  }
  if (logNumber === undefined) throw new LevelFileError(`${path}: no log number`);
  return {
    levels: [...levels.values()].map((files) => [...files.values()]),
    logNumber,
    previousLogNumber,
  };
}

/** Applies one write batch of the log (a sequence number, a count, then puts and deletes) to `records`. */
function applyBatch(batch: Uint8Array, records: Map<string, Uint8Array | null>, path: string): void {
  if (batch.length < 12) throw new LevelFileError(`${path}: write batch too short`);
  const count = new DataView(batch.buffer, batch.byteOffset, batch.length).getUint32(8, true);
  const reader = new ByteReader(batch, path, 12);
  let seen = 0;
  while (!reader.done) {
    const type = reader.byte();
    const key = reader.slice();
    const name = Buffer.from(key.buffer, key.byteOffset, key.length).toString("latin1");
    if (type === 1) records.set(name, reader.slice());
    else if (type === 0) records.set(name, null);
    else throw new LevelFileError(`${path}: write batch record type ${type}`);
    seen++;
  }
  if (seen !== count) throw new LevelFileError(`${path}: write batch of ${count} records holds ${seen}`);
}
