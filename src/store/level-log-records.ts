// The record format of LevelDB's write-ahead log and MANIFEST (LevelDB 1.20, the one classic-level builds), read
// without LevelDB (level-files.ts): 32 KiB blocks of physical records, each a 7-byte header (masked CRC-32C of the
// type and payload, payload length, type) and its payload; a logical record is one FULL record or a FIRST, any
// MIDDLEs and a LAST. As LevelDB's own reader does, an incomplete record at the end of the file (a writer stopped
// mid-write) ends the file quietly. Anything LevelDB would report or skip as damage — a bad checksum, a record
// overrunning its block, fragments out of order, an unknown or zero type — throws LevelFileError instead: the caller
// then reads the store the ordinary way, through LevelDB, which treats the damage as it always has.

import { maskedCrc32c } from "./crc32c.ts";

/** A LevelDB file this reader does not read exactly as LevelDB would. */
export class LevelFileError extends Error {
  override name = "LevelFileError";
}

const BLOCK = 32 * 1024;
const HEADER = 7;
const FULL = 1;
const FIRST = 2;
const MIDDLE = 3;
const LAST = 4;

/** The logical records of a log-format file's bytes, in order. */
export function logRecords(bytes: Uint8Array, file: string): Uint8Array[] {
  const records: Uint8Array[] = [];
  let fragments: Uint8Array[] | undefined;
  let pos = 0;
  while (pos < bytes.length) {
    const blockEnd = Math.min(bytes.length, (Math.floor(pos / BLOCK) + 1) * BLOCK);
    const lastBlock = blockEnd === bytes.length;
    if (blockEnd - pos < HEADER) {
      if (lastBlock) break; // a header cut short at the end: the writer stopped there
      pos = blockEnd; // a block's trailer, too short for a header, is padding
      continue;
    }
    const length = bytes[pos + 4] | (bytes[pos + 5] << 8);
    const type = bytes[pos + 6];
    if (pos + HEADER + length > blockEnd) {
      if (lastBlock) break; // a payload cut short at the end, likewise
      throw new LevelFileError(`${file}: a record overruns its block at offset ${pos}`);
    }
    const stored = (bytes[pos] | (bytes[pos + 1] << 8) | (bytes[pos + 2] << 16) | (bytes[pos + 3] << 24)) >>> 0;
    if (maskedCrc32c(bytes.subarray(pos + 6, pos + HEADER + length)) !== stored) {
      throw new LevelFileError(`${file}: checksum mismatch at offset ${pos}`);
    }
    const payload = bytes.subarray(pos + HEADER, pos + HEADER + length);
    pos += HEADER + length;
    if (type === FULL && fragments === undefined) records.push(payload);
    else if (type === FIRST && fragments === undefined) fragments = [payload];
    else if (type === MIDDLE && fragments !== undefined) fragments.push(payload);
    else if (type === LAST && fragments !== undefined) {
      fragments.push(payload);
      records.push(Buffer.concat(fragments));
      fragments = undefined;
    } else throw new LevelFileError(`${file}: record type ${type} out of place at offset ${pos - HEADER - length}`);
  }
  // A FIRST without its LAST at the end is a record the writer did not finish: LevelDB drops it too.
  return records;
}

/** Reads LevelDB's varints and length-prefixed slices from `bytes`, throwing LevelFileError past its end. */
export class ByteReader {
  pos: number;
  readonly bytes: Uint8Array;
  readonly what: string;
  constructor(bytes: Uint8Array, what: string, start = 0) {
    this.bytes = bytes;
    this.what = what;
    this.pos = start;
  }

  get done(): boolean {
    return this.pos >= this.bytes.length;
  }

  /** An unsigned varint (up to 64 bits; exact as a number up to 2^53, which file numbers and sizes stay under). */
  varint(): number {
    let value = 0;
    for (let shift = 0; shift < 64; shift += 7) {
      if (this.pos >= this.bytes.length) throw new LevelFileError(`${this.what}: truncated varint`);
      const byte = this.bytes[this.pos++];
      value += (byte & 0x7f) * 2 ** shift;
      if (byte < 0x80) return value;
    }
    throw new LevelFileError(`${this.what}: varint too long`);
  }

  /** `n` bytes (a view, not a copy). */
  take(n: number): Uint8Array {
    if (this.pos + n > this.bytes.length) throw new LevelFileError(`${this.what}: truncated`);
    const out = this.bytes.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  /** A varint length, then that many bytes. */
  slice(): Uint8Array {
    return this.take(this.varint());
  }

  byte(): number {
    return this.take(1)[0];
  }
}
