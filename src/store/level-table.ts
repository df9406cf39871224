// One LevelDB table file (*.ldb, *.sst) read without LevelDB (level-files.ts): its footer names the index block,
// whose entries name the data blocks; a block is stored plain or snappy-compressed (LevelDB's only two choices)
// and holds prefix-compressed entries in key order. Keys in a table are LevelDB's internal keys: the user key, then
// 8 bytes of sequence number and type (1 a value, 0 a deletion), newest first among equal user keys. The filter
// block is not read (it only lets LevelDB skip a table), nor are the blocks' checksums (LevelDB does not check them
// on reads either, unless asked). Reads are synchronous `pread`s of the blocks a lookup needs.
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { ByteReader, LevelFileError } from "./level-log-records.ts";
import { snappyUncompress } from "./snappy.ts";

const FOOTER = 48;
const TRAILER = 5; // a block's type byte and checksum
const MAGIC = Uint8Array.of(0x57, 0xfb, 0x80, 0x8b, 0x24, 0x75, 0x47, 0xdb);

/** What a table holds for a user key: its newest value, a deletion, or nothing. */
export type TableHit = { value: Uint8Array } | "deleted" | undefined;

interface Entry {
  key: Uint8Array;
  value: Uint8Array;
}

/** Bytewise comparison of a and b (LevelDB's default comparator, the one classic-level uses). */
export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  return Buffer.compare(a, b);
}

/** LevelDB's order of internal keys: by user key, then newest (the larger sequence and type) first. */
export function compareInternal(a: Uint8Array, b: Uint8Array): number {
  const order = compareBytes(userKey(a), userKey(b));
  if (order !== 0) return order;
  const trailer = (k: Uint8Array) => new DataView(k.buffer, k.byteOffset + k.length - 8, 8).getBigUint64(0, true);
  const ta = trailer(a);
  const tb = trailer(b);
  return ta === tb ? 0 : ta > tb ? -1 : 1;
}

/** The user key of an internal key. */
export function userKey(internal: Uint8Array): Uint8Array {
  return internal.subarray(0, internal.length - 8);
}

/** An open table file; close it with {@link close}. */
export class LevelTable {
  readonly path: string;
  private readonly fd: number;
  private index: Entry[] | undefined;

  constructor(path: string) {
    this.path = path;
    this.fd = openSync(path, "r");
  }

  /** The newest record for `key` in this table. */
  get(key: Uint8Array): TableHit {
    this.index ??= this.entries(this.block(this.footer().index));
    // The first data block whose separator (≥ every key in it, < every key after it) is ≥ the key.
    const at = this.index.find((e) => compareBytes(userKey(e.key), key) >= 0);
    if (at === undefined) return undefined;
    const handle = new ByteReader(at.value, this.path);
    for (const entry of this.entries(this.block({ offset: handle.varint(), size: handle.varint() }))) {
      const order = compareBytes(userKey(entry.key), key);
      if (order < 0) continue;
      if (order > 0) return undefined;
      const type = entry.key[entry.key.length - 8];
      if (type === 1) return { value: entry.value };
      if (type === 0) return "deleted";
      throw new LevelFileError(`${this.path}: record type ${type}`);
    }
    return undefined;
  }

  close(): void {
    closeSync(this.fd);
  }

  private footer(): { index: { offset: number; size: number } } {
    const size = fstatSync(this.fd).size;
    if (size < FOOTER) throw new LevelFileError(`${this.path}: too short for a table`);
    const bytes = this.read(size - FOOTER, FOOTER);
    if (Buffer.compare(bytes.subarray(FOOTER - 8), MAGIC) !== 0) throw new LevelFileError(`${this.path}: not a table`);
    const reader = new ByteReader(bytes, this.path);
    reader.varint(); // the metaindex block (the filter's): not needed
    reader.varint();
    return { index: { offset: reader.varint(), size: reader.varint() } };
  }

  private block(handle: { offset: number; size: number }): Uint8Array {
    const stored = this.read(handle.offset, handle.size + TRAILER);
    const type = stored[handle.size];
    if (type === 0) return stored.subarray(0, handle.size);
    if (type === 1) return snappyUncompress(stored.subarray(0, handle.size));
    throw new LevelFileError(`${this.path}: block compression ${type}`);
  }

  /** A block's entries, in order (the restart points at its end only speed up LevelDB's seeks). */
  private entries(block: Uint8Array): Entry[] {
    if (block.length < 4) throw new LevelFileError(`${this.path}: block too short`);
    const view = new DataView(block.buffer, block.byteOffset, block.length);
    const restarts = view.getUint32(block.length - 4, true);
    const end = block.length - 4 - 4 * restarts;
    if (end < 0) throw new LevelFileError(`${this.path}: bad restart count`);
    const reader = new ByteReader(block.subarray(0, end), this.path);
    const out: Entry[] = [];
    let previous = new Uint8Array(0);
    while (!reader.done) {
      const shared = reader.varint();
      const own = reader.varint();
      const valueLength = reader.varint();
      if (shared > previous.length) throw new LevelFileError(`${this.path}: bad key prefix`);
      const key = new Uint8Array(shared + own);
      key.set(previous.subarray(0, shared));
      key.set(reader.take(own), shared);
      if (key.length < 8) throw new LevelFileError(`${this.path}: key too short`);
      out.push({ key, value: reader.take(valueLength) });
      previous = key;
    }
    return out;
  }

  private read(offset: number, length: number): Uint8Array {
    const out = new Uint8Array(length);
    let done = 0;
    while (done < length) {
      const n = readSync(this.fd, out, done, length - done, offset + done);
      if (n === 0) throw new LevelFileError(`${this.path}: truncated at ${offset + done}`);
      done += n;
    }
    return out;
  }
}
