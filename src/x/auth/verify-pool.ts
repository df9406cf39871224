// Signature verification spread over the machine's cores. FinalizeBlock verifies a block's
// signatures up front — this thread and the worker threads claiming jobs from one shared batch — and records the outcomes
// in the verified-signature cache that the ante handler consults. Workers start on first use, are
// unref'd (they never keep the process alive) and stop with closeVerifyPool() — or by themselves after
// a while without work: each worker is a V8 isolate of ~25 MiB, which a node that has gone quiet
// should give back (issue 15: memory back near idle after a load).
import { availableParallelism } from "node:os";
import { extname } from "node:path";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { verifySecp256k1 } from "../../crypto/index.ts";
import { nativeSecp256k1Verify } from "../../crypto/native-secp256k1.ts";
import {
  CLAIMED,
  DONE,
  OUTCOME_INVALID,
  OUTCOME_PENDING,
  OUTCOME_VALID,
  packJobs,
  SHARED_HEADER_BYTES,
  type VerifyJob,
} from "./verify-wire.ts";

export type { VerifyJob };

interface PoolWorker {
  worker: Worker;
  /** Batches this worker holds, by message id: called when it finished a batch's last job, or stopped. */
  pending: Map<number, () => void>;
}

// Below this many jobs the messaging costs more than it saves.
const MIN_PARALLEL_JOBS = 16;
// Single-tx jobs (CheckTx) go to the workers once this many arrive within one second: only a load that
// makes verification a large share of the main thread (at ~0.3 ms a check, 300/s is ~10% of a core) is
// worth a worker's memory.
const STREAM_START_PER_SECOND = 300;
const MAX_WORKERS = 7;

let workers: PoolWorker[] | undefined;
let nextId = 1;
let idleMs = 10_000;
let idleTimer: NodeJS.Timeout | undefined;

/** How long the workers may sit without work before they stop (default 10 s; tests shorten it). */
export function setVerifyPoolIdleMs(ms: number): void {
  idleMs = ms;
}

/** Whether verifyOffThread hands jobs to the workers: undefined decides by the verifier in use. */
let singlesOnWorkers: boolean | undefined;

/**
 * Makes verifyOffThread use the workers (true) or never (false) whichever verifier is in use; undefined
 * restores the default (workers only where OpenSSL verifies). For tests of either path.
 */
export function setSingleJobsOnWorkers(onWorkers: boolean | undefined): void {
  singlesOnWorkers = onWorkers;
}

let verifiedHereInSharedBatches = 0;

/** How many jobs of shared batches this thread has verified itself (in turns it had nothing else to do). */
export function sharedJobsVerifiedHere(): number {
  return verifiedHereInSharedBatches;
}

/** Worker threads running now (0 before the first large batch and after an idle stop). */
export function activeVerifyWorkers(): number {
  return workers?.length ?? 0;
}

// (Re)arms the idle stop: when it fires with nothing pending, the workers are terminated.
function armIdleStop(): void {
  if (idleTimer !== undefined) clearTimeout(idleTimer);
  idleTimer = setTimeout(() => {
    idleTimer = undefined;
    if (workers?.every((w) => w.pending.size === 0)) void closeVerifyPool();
  }, idleMs);
  idleTimer.unref();
}

// Read once: availableParallelism() is a system call, and CheckTx asks for every tx.
const WORKER_COUNT = Math.min(MAX_WORKERS, Math.max(0, availableParallelism() - 1));

function startWorkers(): PoolWorker[] {
  const here = fileURLToPath(import.meta.url);
  // Runs from source (.ts) in development and from dist (.js) when built.
  const script = new URL(`./verify-worker${extname(here)}`, import.meta.url);
  const started: PoolWorker[] = [];
  for (let i = 0; i < WORKER_COUNT; i++) {
    // A worker only verifies signatures and allocates little: a small young generation keeps its
    // memory small (V8 would otherwise grow it like the main thread's).
    const worker = new Worker(script, { resourceLimits: { maxYoungGenerationSizeMb: 4 } });
    const entry: PoolWorker = { worker, pending: new Map() };
    worker.on("message", (message: { id: number }) => {
      const complete = entry.pending.get(message.id);
      entry.pending.delete(message.id);
      if (entry.pending.size === 0) worker.unref();
      complete?.();
    });
    // A broken or stopped worker answers nothing more: its batches complete now, the jobs it left unfinished
    // verified on this thread (a CheckTx waiting under the app lock must never wait for an answer that cannot
    // come), and a pool left empty starts afresh on next use.
    const retire = (): void => {
      const held = [...entry.pending.values()];
      entry.pending.clear();
      for (const complete of held) complete();
      const left = workers?.filter((w) => w !== entry);
      workers = left === undefined || left.length === 0 ? undefined : left;
    };
    worker.on("error", retire);
    worker.on("exit", retire);
    worker.unref();
    started.push(entry);
  }
  return started;
}

/**
 * Verifies every job, using worker threads for large batches; the result has one boolean per job.
 * Never throws: a job a worker could not answer is verified here.
 */
export async function verifyBatch(jobs: readonly VerifyJob[]): Promise<boolean[]> {
  if (jobs.length < MIN_PARALLEL_JOBS || WORKER_COUNT === 0) return jobs.map(verifyHere);
  workers ??= startWorkers();
  const results = await shareBatch(workers, jobs, "eager");
  armIdleStop();
  return results;
}

/**
 * Whether verifyOffThread verifies on this thread whatever the load: with libsecp256k1 a verify (~65 µs) costs
 * this thread less than handing it to a worker and taking the answer back (measured end to end, node CPU per tx
 * 0.72–0.76 → 0.64–0.65 ms and ~5% more txs a second), and a one-core machine has no worker. Through OpenSSL
 * (~400 µs) the worker pays off. A caller that would only verify ahead of time can then leave the check to
 * the one that needs its outcome.
 */
export function singleJobsStayHere(): boolean {
  if (WORKER_COUNT === 0) return true;
  return singlesOnWorkers === undefined ? nativeSecp256k1Verify() !== undefined : !singlesOnWorkers;
}

/**
 * Verifies a few jobs (one tx's signatures, as it arrives for CheckTx) on the least busy worker
 * thread, leaving this thread free for the rest of the node; verifies here on a one-core machine and
 * wherever libsecp256k1 verifies.
 * Never throws: a job a worker could not answer is verified here.
 */
export async function verifyOffThread(jobs: readonly VerifyJob[]): Promise<boolean[]> {
  if (jobs.length === 0) return [];
  if (singleJobsStayHere()) return jobs.map(verifyHere);
  // A tx now and then is verified here: starting a worker (a V8 isolate of ~25 MiB, tens of ms) for it
  // would cost more than it saves. A steady stream of txs starts the pool.
  if (workers === undefined && !busyStream()) return jobs.map(verifyHere);
  return new Promise<boolean[]>((resolve) => {
    waitingSingles.push({ jobs, resolve });
    if (waitingSingles.length === 1) setImmediate(postWaitingSingles);
  });
}

// Single-tx jobs that arrived in this turn of the event loop: they go to a worker in one message once the
// turn's I/O callbacks have run (setImmediate). Several requests usually arrive together, and each message
// costs the main thread a post and the worker a wake-up (profiled at ~10% of the node's main thread at
// 1,000 txs/s when every tx had its own).
const waitingSingles: { jobs: readonly VerifyJob[]; resolve: (results: boolean[]) => void }[] = [];

async function postWaitingSingles(): Promise<void> {
  const batch = waitingSingles.splice(0);
  if (batch.length === 0) return;
  const jobs = batch.flatMap((waiting) => waiting.jobs);
  let results: boolean[];
  try {
    workers ??= startWorkers();
    const entry = workers.reduce((best, w) => (w.pending.size < best.pending.size ? w : best));
    results = await shareBatch([entry], jobs, "when-idle");
    armIdleStop();
  } catch {
    // No worker could take them (one failed to start): every caller still gets its answers, from here.
    results = jobs.map(verifyHere);
  }
  let at = 0;
  for (const waiting of batch) {
    waiting.resolve(results.slice(at, at + waiting.jobs.length));
    at += waiting.jobs.length;
  }
}

// A loop turn shorter than this did no other work (no request parsed, no tx checked): this thread is idle.
const IDLE_TURN_MS = 0.1;

// Sends `jobs` to `entries` (worker threads) as one batch that this thread shares: each side claims the next
// unclaimed job (an atomic counter in shared memory), so the work spreads by how fast each side goes, not by a
// fixed split (a worker the OS has descheduled on a loaded machine no longer holds back a block). Whichever
// side finishes the batch's last job completes it: a worker with a message, this thread directly; jobs a
// stopped worker left unfinished are verified here.
// This thread claims jobs `eager`ly (a block's batch: it has nothing better to do) or only `when-idle`: one job in
// each turn of its event loop that found nothing else to do. Under a closed loop of senders (each waits for its
// answer before sending again), the main thread was ~40% idle while every tx in flight waited for the worker;
// now those idle turns verify, and a busy main thread leaves the jobs to the worker.
function shareBatch(
  entries: readonly PoolWorker[],
  jobs: readonly VerifyJob[],
  claims: "eager" | "when-idle",
): Promise<boolean[]> {
  const count = jobs.length;
  const shared = new SharedArrayBuffer(SHARED_HEADER_BYTES + count);
  const control = new Int32Array(shared, 0, 2);
  const outcomes = new Uint8Array(shared, SHARED_HEADER_BYTES, count);
  const packed = packJobs(jobs);
  return new Promise<boolean[]>((resolve) => {
    const id = nextId++;
    let settled = false;
    const settle = (): void => {
      if (settled) return;
      settled = true;
      for (const entry of entries) {
        if (entry.pending.delete(id) && entry.pending.size === 0) entry.worker.unref();
      }
      resolve(
        jobs.map((job, i) => (outcomes[i] === OUTCOME_PENDING ? verifyHere(job) : outcomes[i] === OUTCOME_VALID)),
      );
    };
    for (const entry of entries) {
      entry.pending.set(id, settle);
      entry.worker.ref();
      // Each worker gets a copy of the packed jobs (their bytes only: a few hundred a tx), none transferred: a
      // transfer detaches the buffer here, and the first ArrayBuffer detached in a process invalidates V8's
      // ArrayBufferDetaching protector for good — from then on every typed array access in optimized code loads
      // its buffer to check it (the latest-value cache's hit loads the caller's key's buffer: a cache miss more;
      // docs/PERFORMANCE.md, "Beside IAVL", round 3 session 16).
      entry.worker.postMessage({ id, packed, shared });
    }
    // Claims and verifies one job here; false once every job is claimed (or the batch is complete).
    const claimOne = (): boolean => {
      const next = Atomics.add(control, CLAIMED, 1);
      if (next >= count) return false; // the workers hold the rest; the last to finish completes the batch
      outcomes[next] = verifyHere(jobs[next]) ? OUTCOME_VALID : OUTCOME_INVALID;
      verifiedHereInSharedBatches++;
      if (Atomics.add(control, DONE, 1) + 1 !== count) return true;
      settle();
      return false;
    };
    if (claims === "eager") {
      while (!settled && claimOne()) {}
      return;
    }
    let turnStart = performance.now();
    const turn = (): void => {
      if (settled) return;
      if (performance.now() - turnStart < IDLE_TURN_MS && !claimOne()) return;
      turnStart = performance.now();
      setImmediate(turn);
    };
    setImmediate(turn);
  });
}

// Arrivals of single-tx jobs in the current and the previous second.
let streamSecond = 0;
let arrivalsThisSecond = 0;
let arrivalsLastSecond = 0;

/** Whether single-tx jobs arrive often enough (≥ STREAM_START_PER_SECOND in a second) to start the pool for them. */
function busyStream(): boolean {
  const second = Math.floor(performance.now() / 1000);
  if (second !== streamSecond) {
    arrivalsLastSecond = second === streamSecond + 1 ? arrivalsThisSecond : 0;
    arrivalsThisSecond = 0;
    streamSecond = second;
  }
  arrivalsThisSecond++;
  return Math.max(arrivalsThisSecond, arrivalsLastSecond) >= STREAM_START_PER_SECOND;
}

/** Stops the worker threads (they restart on the next large batch). */
export async function closeVerifyPool(): Promise<void> {
  if (idleTimer !== undefined) clearTimeout(idleTimer);
  idleTimer = undefined;
  const pool = workers;
  workers = undefined;
  if (pool !== undefined) await Promise.all(pool.map((entry) => entry.worker.terminate()));
}

function verifyHere(job: VerifyJob): boolean {
  return verifySecp256k1(job.publicKey, job.message, job.signature);
}
