// Worker side of the signature-verification pool: verifies batches of secp256k1 signatures with
// node:crypto and answers with one boolean per job.
import { parentPort } from "node:worker_threads";
import { verifySecp256k1 } from "../../client/crypto/index.ts";
import {
  CLAIMED,
  DONE,
  OUTCOME_INVALID,
  OUTCOME_VALID,
  SHARED_HEADER_BYTES,
  unpackJobs,
  type VerifyJob,
} from "./verify-wire.ts";

interface Batch {
  id: number;
  /** The jobs, packed by `packJobs`. */
  packed: Uint8Array;
  /** Present when the main thread shares the batch: claim jobs one at a time (see verify-pool.ts). */
  shared?: SharedArrayBuffer;
}

parentPort?.on("message", (batch: Batch) => {
  const jobs = unpackJobs(batch.packed);
  if (batch.shared !== undefined) {
    claimShared(batch.id, jobs, batch.shared);
    return;
  }
  const results = jobs.map((job) => verifySecp256k1(job.publicKey, job.message, job.signature));
  parentPort?.postMessage({ id: batch.id, results });
});

// Verifies the jobs of a shared batch that the main thread has not claimed; answers only when this side
// finished the batch's last job (otherwise the main thread did, and needs no message).
function claimShared(id: number, jobs: VerifyJob[], shared: SharedArrayBuffer): void {
  const control = new Int32Array(shared, 0, 2);
  const outcomes = new Uint8Array(shared, SHARED_HEADER_BYTES, jobs.length);
  for (;;) {
    const next = Atomics.add(control, CLAIMED, 1);
    if (next >= jobs.length) return;
    const job = jobs[next];
    outcomes[next] = verifySecp256k1(job.publicKey, job.message, job.signature) ? OUTCOME_VALID : OUTCOME_INVALID;
    if (Atomics.add(control, DONE, 1) + 1 === jobs.length) parentPort?.postMessage({ id });
  }
}
