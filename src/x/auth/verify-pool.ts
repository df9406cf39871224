// Signature verification spread over the machine's cores. FinalizeBlock verifies a block's
// signatures up front — part on this thread, the rest on worker threads — and records the outcomes
// in the verified-signature cache that the ante handler consults. Workers start on first use, are
// unref'd (they never keep the process alive) and stop with closeVerifyPool().
import { availableParallelism } from "node:os";
import { extname } from "node:path";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { verifySecp256k1 } from "../../client/crypto/index.ts";

/** One signature to check: SHA-256(message) signed by the compressed secp256k1 `publicKey`. */
export interface VerifyJob {
  publicKey: Uint8Array;
  message: Uint8Array;
  signature: Uint8Array;
}

interface PoolWorker {
  worker: Worker;
  pending: Map<number, (results: boolean[]) => void>;
}

// Below this many jobs the messaging costs more than it saves.
const MIN_PARALLEL_JOBS = 16;
const MAX_WORKERS = 7;

let workers: PoolWorker[] | undefined;
let nextId = 1;

function workerCount(): number {
  return Math.min(MAX_WORKERS, Math.max(0, availableParallelism() - 1));
}

function startWorkers(): PoolWorker[] {
  const here = fileURLToPath(import.meta.url);
  // Runs from source (.ts) in development and from dist (.js) when built.
  const script = new URL(`./verify-worker${extname(here)}`, import.meta.url);
  const started: PoolWorker[] = [];
  for (let i = 0; i < workerCount(); i++) {
    const worker = new Worker(script);
    const entry: PoolWorker = { worker, pending: new Map() };
    worker.on("message", (message: { id: number; results: boolean[] }) => {
      const resolve = entry.pending.get(message.id);
      entry.pending.delete(message.id);
      if (entry.pending.size === 0) worker.unref();
      resolve?.(message.results);
    });
    worker.on("error", () => {
      // A broken worker answers nothing; its callers fall back to verifying on this thread.
      for (const resolve of entry.pending.values()) resolve([]);
      entry.pending.clear();
      workers = workers?.filter((w) => w !== entry);
    });
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
  if (jobs.length < MIN_PARALLEL_JOBS || workerCount() === 0) return jobs.map(verifyHere);
  workers ??= startWorkers();
  const pool = workers;
  const shares = pool.length + 1;
  const size = Math.ceil(jobs.length / shares);
  const remote = pool.map((entry, i) => {
    const slice = jobs.slice((i + 1) * size, (i + 2) * size);
    if (slice.length === 0) return Promise.resolve<boolean[]>([]);
    return new Promise<boolean[]>((resolve) => {
      const id = nextId++;
      entry.pending.set(id, resolve);
      entry.worker.ref();
      entry.worker.postMessage({ id, jobs: slice });
    }).then((results) => (results.length === slice.length ? results : slice.map(verifyHere)));
  });
  const local = jobs.slice(0, size).map(verifyHere);
  const rest = await Promise.all(remote);
  return [...local, ...rest.flat()];
}

/** Stops the worker threads (they restart on the next large batch). */
export async function closeVerifyPool(): Promise<void> {
  const pool = workers;
  workers = undefined;
  if (pool !== undefined) await Promise.all(pool.map((entry) => entry.worker.terminate()));
}

function verifyHere(job: VerifyJob): boolean {
  return verifySecp256k1(job.publicKey, job.message, job.signature);
}
