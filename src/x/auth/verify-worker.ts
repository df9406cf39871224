// Worker side of the signature-verification pool: verifies batches of secp256k1 signatures with
// node:crypto and answers with one boolean per job.
import { parentPort } from "node:worker_threads";
import { verifySecp256k1 } from "../../client/crypto/index.ts";

interface Batch {
  id: number;
  jobs: { publicKey: Uint8Array; message: Uint8Array; signature: Uint8Array }[];
}

parentPort?.on("message", (batch: Batch) => {
  const results = batch.jobs.map((job) => verifySecp256k1(job.publicKey, job.message, job.signature));
  parentPort?.postMessage({ id: batch.id, results });
});
