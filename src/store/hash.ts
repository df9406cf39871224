// SHA-256 through node:crypto's one-shot hash (native, no per-call object), used by the tree,
// the RFC 6962 merkle root and the proof verifier.
import { hash } from "node:crypto";

/** SHA-256 digest of `data`. */
export function sha256(data: Uint8Array): Uint8Array {
  // Copied into a small array V8 keeps inside its own heap: digests live long (in tree nodes) and
  // millions of tiny native buffers fragment the process heap. Also a plain Uint8Array, not a Buffer.
  const out = new Uint8Array(32);
  out.set(hash("sha256", data, "buffer"));
  return out;
}

/** SHA-256 of the empty string: the root of an empty tree. */
export const EMPTY_HASH: Uint8Array = sha256(new Uint8Array(0));
