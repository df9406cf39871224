// How signature jobs travel to a verify worker: packed into one compact buffer, which is copied (not
// transferred: a transfer detaches it, which costs every typed array access in the process a check from then
// on, verify-pool.ts). Posting the jobs themselves would structured-clone every Uint8Array with its whole
// backing ArrayBuffer — and a signature or key is usually a view into a much larger one (a request body, a
// pooled Buffer, a LevelDB value): profiled at ~130 µs of the node's main thread per tx.
// Layout per job: u8 key length ‖ key ‖ u8 signature length ‖ signature ‖ u32 message length ‖ message.

/** One signature to check: SHA-256(message) signed by the compressed secp256k1 `publicKey`. */
export interface VerifyJob {
  publicKey: Uint8Array;
  message: Uint8Array;
  signature: Uint8Array;
}

/** The jobs in one buffer of their exact size (posted as a copy). */
export function packJobs(jobs: readonly VerifyJob[]): Uint8Array<ArrayBuffer> {
  let size = 0;
  for (const job of jobs) {
    size += 6 + Math.min(job.publicKey.length, 255) + Math.min(job.signature.length, 255) + job.message.length;
  }
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  let at = 0;
  for (const job of jobs) {
    // Keys and signatures are at most 65 and 64 bytes; anything longer cannot verify anyway.
    const key = job.publicKey.subarray(0, 255);
    const signature = job.signature.subarray(0, 255);
    out[at++] = key.length;
    out.set(key, at);
    at += key.length;
    out[at++] = signature.length;
    out.set(signature, at);
    at += signature.length;
    view.setUint32(at, job.message.length);
    at += 4;
    out.set(job.message, at);
    at += job.message.length;
  }
  return out;
}

/** The jobs of a packed buffer, as views into it. */
export function unpackJobs(packed: Uint8Array): VerifyJob[] {
  const view = new DataView(packed.buffer, packed.byteOffset, packed.byteLength);
  const jobs: VerifyJob[] = [];
  let at = 0;
  while (at < packed.length) {
    const keyLength = packed[at++];
    const publicKey = packed.subarray(at, at + keyLength);
    at += keyLength;
    const signatureLength = packed[at++];
    const signature = packed.subarray(at, at + signatureLength);
    at += signatureLength;
    const messageLength = view.getUint32(at);
    at += 4;
    const message = packed.subarray(at, at + messageLength);
    at += messageLength;
    jobs.push({ publicKey, signature, message });
  }
  return jobs;
}

// A shared batch (single-tx jobs, which this thread helps verify): a SharedArrayBuffer holding two Int32
// counters — jobs claimed, jobs done — then one outcome byte per job.
export const SHARED_HEADER_BYTES = 8;
/** Index of the claimed-jobs counter in the shared batch's Int32 header. */
export const CLAIMED = 0;
/** Index of the finished-jobs counter in the shared batch's Int32 header. */
export const DONE = 1;
export const OUTCOME_PENDING = 0;
export const OUTCOME_INVALID = 1;
export const OUTCOME_VALID = 2;
