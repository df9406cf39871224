// Worker side of the signature-verification pool: verifies batches of secp256k1 signatures with
// node:crypto and answers with one boolean per job.
import { parentPort } from "node:worker_threads";
import { verifySecp256k1 } from "../../client/crypto/index.ts";
import { unpackJobs } from "./verify-wire.ts";

interface Batch {
  id: number;
  /** The jobs, packed by `packJobs`. */
  packed: Uint8Array;
}

parentPort?.on("message", (batch: Batch) => {
  const results = unpackJobs(batch.packed).map((job) => verifySecp256k1(job.publicKey, job.message, job.signature));
  parentPort?.postMessage({ id: batch.id, results });
});
