// A commit's leaf hashes on two threads. Two of the ~3 SHA-256 per written key (the value's digest
// and the leaf hash) are independent of each other and of the tree, and each is almost all
// node:crypto call overhead, so half of a commit's hashing can run beside the tree updates. stage()
// packs each new leaf's hash input into shared memory as it goes; a worker thread (one per store,
// started at the first large commit, unref'd) and this thread then claim chunks of 128 until none
// is left (leaf-hash-jobs.ts), and inner nodes hash here, bottom-up, once the leaves are done. If
// the worker cannot start, dies or stalls, this thread hashes everything: the result is the same.
import { availableParallelism } from "node:os";
import { extname } from "node:path";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { binaryStringAt } from "../bytes/text.ts";
import { putUvarint } from "../bytes/varint.ts";
import {
  allocateLeafHashBuffers,
  BASE,
  CHUNK,
  ChunkHasher,
  COUNT,
  DONE,
  END,
  type LeafHashBuffers,
  OPEN,
} from "./leaf-hash-jobs.ts";
import { type LeafNode, leafHashOfValue } from "./tree-node.ts";

/**
 * Below this many leaves a commit hashes on this thread: a worker is a V8 isolate (~10-25 MiB), worth it
 * for the large commits of a bulk load or a big block (~1 ms of hashing per 1,000 leaves), not before.
 */
export const MIN_PARALLEL_LEAVES = 4096;
/** A worker with no large commit for this long stops (its memory goes back); the next one starts it again. */
const IDLE_STOP_MS = 10_000;
/** Most records and bytes of one job; leaves beyond them are hashed here as they come. */
const MAX_RECORDS = 1 << 15;
const MAX_BYTES = 8 << 20;
/** A job with no progress for this long means the worker is gone: this thread finishes it alone. */
const STALL_MS = 1000;

/** Hashes the leaves of one commit at a time (begin, add each new leaf, finish). */
export class LeafHasher {
  private buffers: LeafHashBuffers | undefined;
  private local: ChunkHasher | undefined;
  private input: Uint8Array | undefined;
  private offsets: Int32Array | undefined;
  private output: Buffer | undefined;
  private worker: Worker | undefined;
  private workerFailed = false;
  private idleTimer: NodeJS.Timeout | undefined;
  private readonly idleStopMs: number;
  private readonly useWorker: boolean;
  private parallel = false;
  private readonly leaves: LeafNode[] = [];
  private used = 0;
  private published = 0;
  /** A leaf of this job was hashed here because the job was full (a streamed stage then ends the job: `full`). */
  private overflowed = false;
  /** Chunks the worker has hashed so far (a diagnostic: tests check the worker took part). */
  workerChunks = 0;

  /**
   * `useWorker` false: everything on this thread (the same job code). Never a worker on one core.
   * `idleStopMs`: how long the worker waits for the next large commit before it stops.
   */
  constructor(useWorker = true, idleStopMs = IDLE_STOP_MS) {
    this.useWorker = useWorker && availableParallelism() > 1;
    this.idleStopMs = idleStopMs;
  }

  /** Starts a commit's job for about `expected` leaves. */
  begin(expected: number): void {
    this.leaves.length = 0;
    this.used = 0;
    this.published = 0;
    this.overflowed = false;
    this.parallel = expected >= MIN_PARALLEL_LEAVES;
    if (!this.parallel) return;
    if (this.buffers === undefined) this.allocate();
    const control = (this.local as ChunkHasher).control;
    // No chunk of this job is claimable until it is published (END moves past BASE).
    const end = Atomics.load(control, END);
    Atomics.store(control, BASE, end);
    Atomics.store(control, COUNT, 0);
    Atomics.store(control, OPEN, 1);
    if (this.useWorker && this.worker === undefined && !this.workerFailed) this.startWorker();
  }

  /** The leaf for `key` = `value` (its hash is set by finish(), or here when the job is small or full). */
  add(leaf: LeafNode, value: Uint8Array): void {
    const key = leaf.key;
    const recordBytes = key.length + value.length + 64;
    if (!this.parallel || this.leaves.length >= MAX_RECORDS || this.used + recordBytes > MAX_BYTES) {
      if (this.parallel) this.overflowed = true;
      leaf.hash = leafHashOfValue(key, value, leaf.version);
      return;
    }
    const input = this.input as Uint8Array;
    const offsets = this.offsets as Int32Array;
    const i = this.leaves.length;
    let o = this.used;
    offsets[2 * i] = o;
    input[o] = 0; // svarint(height 0)
    input[o + 1] = 2; // svarint(size 1)
    o = putUvarint(input, o + 2, leaf.version * 2);
    o = putUvarint(input, o, key.length);
    input.set(key, o);
    o += key.length;
    input[o] = 32;
    o += 33; // uvarint(32), then the hole for the value's digest
    offsets[2 * i + 1] = o;
    input.set(value, o);
    o += value.length;
    this.used = o;
    offsets[2 * i + 2] = o;
    this.leaves.push(leaf);
    if ((i + 1) % CHUNK === 0) this.publish(i + 1);
  }

  /** Makes the records [0, count) claimable and wakes the worker with the first chunk. */
  private publish(count: number): void {
    const control = (this.local as ChunkHasher).control;
    const base = Atomics.load(control, BASE);
    // COUNT before END: a thread that claims a chunk reads a COUNT that covers it.
    Atomics.store(control, COUNT, count);
    // No wake-up per chunk (a futex call each): a worker short of chunks looks again within 1 ms.
    Atomics.store(control, END, base + Math.ceil(count / CHUNK));
    if (this.published === 0) this.worker?.postMessage({ run: true });
    this.published = count;
  }

  /**
   * Whether the job is full: leaves are hashed on this thread as they come from here on. A stage that streams its tree
   * (tree-stream.ts) then finishes the job and begins the next, so the worker goes on taking half the hashing.
   */
  get full(): boolean {
    return this.overflowed;
  }

  /** Hashes what is left (here and on the worker), waits for the worker's chunks, sets every leaf's hash. */
  finish(): void {
    const count = this.leaves.length;
    if (!this.parallel) return;
    const local = this.local as ChunkHasher;
    if (this.published !== count) this.publish(count);
    // Closed even when empty: a worker following the job stops waiting for more.
    Atomics.store(local.control, OPEN, 0);
    Atomics.notify(local.control, END);
    this.armIdleStop();
    if (count === 0) return;
    const output = this.output as Buffer;
    const mine = local.work(false);
    const control = local.control;
    const end = Atomics.load(control, END);
    this.workerChunks += end - Atomics.load(control, BASE) - mine;
    let done = Atomics.load(control, DONE);
    let since = performance.now();
    while (done < end) {
      Atomics.wait(control, DONE, done, 50);
      const now = Atomics.load(control, DONE);
      if (now !== done) {
        done = now;
        since = performance.now();
      } else if (performance.now() - since > STALL_MS) {
        // The worker claimed a chunk and never finished it: finish the whole job here (the hashes are
        // the same whoever writes them) and go on without it, on buffers it does not know.
        local.hashRecords(0, count);
        this.abandonWorker();
        break;
      }
    }
    const leaves = this.leaves;
    // Not output.toString("latin1", ...): its argument handling cost ~0.3 ms a job.
    for (let i = 0; i < count; i++) leaves[i].hash = binaryStringAt(output, 32 * i, 32 * i + 32);
    leaves.length = 0;
  }

  /** Stops the worker (the store is closing). */
  async close(): Promise<void> {
    if (this.idleTimer !== undefined) clearTimeout(this.idleTimer);
    const worker = this.worker;
    this.worker = undefined;
    this.workerFailed = true;
    if (worker !== undefined) await worker.terminate();
  }

  // (Re)arms the idle stop: the worker and the shared buffers go until the next large commit.
  private armIdleStop(): void {
    if (this.worker === undefined) return;
    if (this.idleTimer !== undefined) this.idleTimer.refresh();
    else {
      this.idleTimer = setTimeout(() => {
        this.idleTimer = undefined;
        const worker = this.worker;
        this.worker = undefined;
        this.buffers = undefined;
        if (worker !== undefined) void worker.terminate().catch(() => undefined);
      }, this.idleStopMs);
      this.idleTimer.unref();
    }
  }

  /** Whether a worker thread is running now (a diagnostic). */
  get workerRunning(): boolean {
    return this.worker !== undefined;
  }

  private allocate(): void {
    const buffers = allocateLeafHashBuffers(MAX_RECORDS, MAX_BYTES);
    this.buffers = buffers;
    this.local = new ChunkHasher(buffers);
    this.input = new Uint8Array(buffers.input);
    this.offsets = new Int32Array(buffers.offsets);
    this.output = Buffer.from(buffers.output);
  }

  private startWorker(): void {
    const here = fileURLToPath(import.meta.url);
    // Runs from source (.ts) in development and from dist (.js) when built.
    const script = new URL(`./leaf-hash-worker${extname(here)}`, import.meta.url);
    let worker: Worker;
    try {
      // It only hashes: a small young generation keeps its memory small.
      worker = new Worker(script, { resourceLimits: { maxYoungGenerationSizeMb: 4 } });
    } catch {
      this.workerFailed = true;
      return;
    }
    const retire = (): void => {
      if (this.worker === worker) this.abandonWorker();
    };
    worker.on("error", retire);
    worker.on("exit", retire);
    worker.unref();
    worker.postMessage({ buffers: this.buffers });
    this.worker = worker;
  }

  /** Drops the worker for good; later jobs use fresh buffers it never saw. */
  private abandonWorker(): void {
    const worker = this.worker;
    this.worker = undefined;
    this.workerFailed = true;
    if (worker !== undefined) void worker.terminate().catch(() => undefined);
    this.allocate();
  }
}
