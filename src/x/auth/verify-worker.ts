// Worker side of the signature-verification pool: verifies secp256k1 signatures with node:crypto, claiming
// the jobs of a batch it shares with the main thread one at a time; the outcomes go into shared memory.
import { parentPort } from "node:worker_threads";
import { verifySecp256k1 } from "../../crypto/index.ts";
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
  /** The claim counters and outcome bytes this worker and the main thread share (see verify-pool.ts). */
  shared: SharedArrayBuffer;
}

parentPort?.on("message", (batch: Batch) => claimShared(batch.id, unpackJobs(batch.packed), batch.shared));

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
