// The tree pages an import builds, set aside in a file of their own while the keys' latest rows are written, and
// handed back once the stream has ended, so LevelDB receives each table's rows in one ascending run. Written as they
// come, a store's pages (n‖sid‖…) and its latest rows (l‖sid‖…) went into the same memtables: each table LevelDB
// flushed spanned from the l range to the n range, overlapped every table before it, and was merged with them
// (a 1,000,000-account restore rewrote the pages and rows it had written two or three times over). One range at a
// time, each flushed table lies past the ones before and LevelDB moves it down a level without rewriting it, as it
// does for the raw load of the same pairs. The rows are the same either way; only when LevelDB receives them moves.
import { type FileHandle, open, rm } from "node:fs/promises";

/** Bytes gathered before a write to the file (and read at a time when the pages come back). */
const BLOCK = 4 * 1024 * 1024;
/** A record's head: the store's sid, the page's number, its length (u32 each). */
const HEAD = 12;

/** Pages appended to a file (sid, page number, bytes), read back in the order they came. */
export class PageSpill {
  private readonly path: string;
  private file: FileHandle | undefined;
  private block: Uint8Array = new Uint8Array(BLOCK);
  private used = 0;
  /** Filled blocks waiting for writeOut(), and a written one kept for reuse. */
  private full: Uint8Array[] = [];
  private spare: Uint8Array | undefined;
  private written = 0;

  constructor(path: string) {
    this.path = path;
  }

  /** Copies the page (its bytes may be scratch memory); a full block waits for writeOut(). */
  add(sid: number, page: number, bytes: Uint8Array): void {
    const need = HEAD + bytes.length;
    if (this.used + need > this.block.length) {
      if (this.used > 0) this.full.push(this.block.subarray(0, this.used));
      const spare = this.spare;
      this.spare = undefined;
      this.block = spare !== undefined && spare.length >= need ? spare : new Uint8Array(Math.max(BLOCK, need));
      this.used = 0;
    }
    const block = this.block;
    const o = this.used;
    writeU32(block, o, sid);
    writeU32(block, o + 4, page);
    writeU32(block, o + 8, bytes.length);
    block.set(bytes, o + HEAD);
    this.used = o + need;
  }

  /** Writes the full blocks to the file (the importer calls it between batches of the stream). */
  async writeOut(): Promise<void> {
    while (this.full.length > 0) {
      const block = this.full.shift() as Uint8Array;
      await this.append(block);
      if (block.buffer.byteLength === BLOCK) this.spare = new Uint8Array(block.buffer);
    }
  }

  /**
   * Every page added, in order; `put` receives each (its bytes valid only during the call) and may return a promise
   * the replay waits for (a full write batch being written).
   */
  async replay(put: (sid: number, page: number, bytes: Uint8Array) => Promise<void> | void): Promise<void> {
    await this.writeOut();
    if (this.file === undefined) {
      // Everything fitted in one block: no file was written.
      await replayRecords(this.block.subarray(0, this.used), put);
    } else {
      await this.append(this.block.subarray(0, this.used));
      const file = this.file;
      let at = 0;
      let carry = new Uint8Array(0);
      while (at < this.written) {
        const room = Math.max(BLOCK, carry.length * 2);
        const buf = room === BLOCK && this.spare !== undefined ? this.spare : new Uint8Array(room);
        buf.set(carry);
        const want = Math.min(room - carry.length, this.written - at);
        const { bytesRead } = await file.read(buf, carry.length, want, at);
        if (bytesRead === 0) throw new Error(`the import's page file ${this.path} ends early`);
        at += bytesRead;
        const end = carry.length + bytesRead;
        const rest = await replayRecords(buf.subarray(0, end), put);
        carry = buf.slice(end - rest, end);
      }
      if (carry.length > 0) throw new Error(`the import's page file ${this.path} ends inside a page`);
    }
    this.used = 0;
    this.written = 0;
  }

  /** Removes the file (after the replay, or on the way out of a failed import). */
  async close(): Promise<void> {
    const file = this.file;
    this.file = undefined;
    if (file !== undefined) {
      await file.close();
      await rm(this.path, { force: true });
    }
  }

  private async append(bytes: Uint8Array): Promise<void> {
    this.file ??= await open(this.path, "w+");
    let done = 0;
    while (done < bytes.length) {
      const { bytesWritten } = await this.file.write(bytes, done, bytes.length - done, this.written + done);
      done += bytesWritten;
    }
    this.written += bytes.length;
  }
}

/** Hands out the whole records of `bytes`; returns how many bytes at its end belong to a record not yet complete. */
async function replayRecords(
  bytes: Uint8Array,
  put: (sid: number, page: number, bytes: Uint8Array) => Promise<void> | void,
): Promise<number> {
  let o = 0;
  while (o + HEAD <= bytes.length) {
    const length = readU32(bytes, o + 8);
    if (o + HEAD + length > bytes.length) break;
    const pending = put(readU32(bytes, o), readU32(bytes, o + 4), bytes.subarray(o + HEAD, o + HEAD + length));
    if (pending !== undefined) await pending;
    o += HEAD + length;
  }
  return bytes.length - o;
}

function writeU32(buf: Uint8Array, at: number, n: number): void {
  buf[at] = n >>> 24;
  buf[at + 1] = (n >>> 16) & 0xff;
  buf[at + 2] = (n >>> 8) & 0xff;
  buf[at + 3] = n & 0xff;
}

function readU32(buf: Uint8Array, at: number): number {
  return ((buf[at] << 24) | (buf[at + 1] << 16) | (buf[at + 2] << 8) | buf[at + 3]) >>> 0;
}
