// The shared-memory side of hashing a commit's leaves on two threads (leaf-hasher.ts starts the job,
// leaf-hash-worker.ts is the other thread). Only node builtins here: the worker loads this file too.
//
// A job is a list of records in one SharedArrayBuffer, one per written key:
//   prefix = svarint(0) svarint(1) svarint(version) uvarint(len key) key uvarint(32)   (the leaf's hash input)
//   32-byte hole (where the value's digest goes), then the value.
// The leaf hash is sha256(prefix ‖ sha256(value)); it goes to `output` at 32 × the record's index.
// Records are handed out in chunks claimed with compare-and-swap on a counter that never goes back,
// so the two threads share a job without locks and a stale wake-up of the worker can claim nothing.
import { hash } from "node:crypto";

/** Records per claimed chunk: enough to amortise the atomics, small enough to share the work evenly. */
export const CHUNK = 128;
/** Control words (Int32Array over `control`). */
export const NEXT = 0; // next chunk number to claim (monotonic across jobs)
export const END = 1; // one past the current job's last chunk number
export const DONE = 2; // chunks finished (monotonic across jobs)
export const BASE = 3; // chunk number of the current job's first chunk
export const COUNT = 4; // records in the current job
export const OPEN = 5; // 1 while the job may still grow (its thread is still adding records)
const CONTROL_WORDS = 8;

/** The buffers of one hasher, shared with its worker. */
export interface LeafHashBuffers {
  control: SharedArrayBuffer;
  /** The records. */
  input: SharedArrayBuffer;
  /** Per record: start offset, value offset; then one more start (the end of the last record). */
  offsets: SharedArrayBuffer;
  /** 32 bytes per record. */
  output: SharedArrayBuffer;
}

/** Fresh buffers for up to `records` records and `bytes` of record data. */
export function allocateLeafHashBuffers(records: number, bytes: number): LeafHashBuffers {
  return {
    control: new SharedArrayBuffer(CONTROL_WORDS * 4),
    input: new SharedArrayBuffer(bytes),
    offsets: new SharedArrayBuffer((2 * records + 1) * 4),
    output: new SharedArrayBuffer(32 * records),
  };
}

/** Hashes chunks of the job in a set of buffers (one per thread: it keeps its own scratch). */
export class ChunkHasher {
  readonly control: Int32Array;
  private readonly input: Buffer;
  private readonly offsets: Int32Array;
  private readonly output: Uint8Array;
  private scratch = new Uint8Array(4096);
  /** Views of the scratch's first n bytes by n (a view per hash would cost a third of the hash). */
  private views: Uint8Array[] = [];

  constructor(buffers: LeafHashBuffers) {
    this.control = new Int32Array(buffers.control);
    this.input = Buffer.from(buffers.input);
    this.offsets = new Int32Array(buffers.offsets);
    this.output = new Uint8Array(buffers.output);
  }

  private view(length: number): Uint8Array {
    if (this.scratch.length < length) {
      this.scratch = new Uint8Array(Math.max(length, this.scratch.length * 2));
      this.views = [];
    }
    let v = this.views[length];
    if (v === undefined) {
      v = this.scratch.subarray(0, length);
      this.views[length] = v;
    }
    return v;
  }

  /** Hashes records [from, to): sha256 of the value into the hole, then the leaf hash into the output. */
  hashRecords(from: number, to: number): void {
    const input = this.input;
    const offsets = this.offsets;
    const output = this.output;
    for (let i = from; i < to; i++) {
      const start = offsets[2 * i];
      const valueAt = offsets[2 * i + 1];
      const end = offsets[2 * i + 2];
      // Hashed from a copy in this thread's own memory: hashing a view of shared memory is slower.
      const value = this.view(end - valueAt);
      input.copy(value, 0, valueAt, end);
      const digest = hash("sha256", value, "binary");
      const hole = valueAt - 32;
      for (let j = 0; j < 32; j++) input[hole + j] = digest.charCodeAt(j);
      const leafInput = this.view(valueAt - start);
      input.copy(leafInput, 0, start, valueAt);
      const leaf = hash("sha256", leafInput, "binary");
      const o = 32 * i;
      for (let j = 0; j < 32; j++) output[o + j] = leaf.charCodeAt(j);
    }
  }

  /**
   * Claims and hashes chunks of the current job until none is left; returns how many it did. With
   * `follow`, waits for more while the job is open (the worker keeps up with the thread adding records).
   */
  work(follow: boolean): number {
    const control = this.control;
    let done = 0;
    for (;;) {
      const chunk = Atomics.load(control, NEXT);
      const end = Atomics.load(control, END);
      if (chunk >= end) {
        if (!follow || Atomics.load(control, OPEN) === 0) return done;
        Atomics.wait(control, END, end, 1);
        continue;
      }
      if (Atomics.compareExchange(control, NEXT, chunk, chunk + 1) !== chunk) continue;
      // BASE and COUNT cannot change under us: the next job starts only once this chunk is done.
      const first = (chunk - Atomics.load(control, BASE)) * CHUNK;
      this.hashRecords(first, Math.min(Atomics.load(control, COUNT), first + CHUNK));
      Atomics.add(control, DONE, 1);
      Atomics.notify(control, DONE);
      done++;
    }
  }
}
