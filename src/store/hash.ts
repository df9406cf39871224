// SHA-256 for the tree, the RFC 6962 merkle root and the proof verifier. A commit computes tens of
// thousands of small hashes, so the per-call cost matters more than throughput: node:crypto's
// one-shot `hash()` asked for a "binary" (latin1) string returns a small V8 heap string, ~3× cheaper than
// asking it for a Buffer (a native backing store per digest, which also loads the GC). The 32
// chars are copied into an on-heap Uint8Array. (src/bytes/sha256.ts, which this file used to
// re-export, still returns through a Buffer; the same change there would serve every layer.)
import { hash } from "node:crypto";

/** SHA-256 of `data` (32 bytes, a plain Uint8Array). */
export function sha256(data: Uint8Array): Uint8Array {
  const s = hash("sha256", data, "binary");
  const out = new Uint8Array(32);
  for (let i = 0; i < 32; i++) out[i] = s.charCodeAt(i);
  return out;
}

/** SHA-256 of the empty string: the root of an empty tree. */
export const EMPTY_HASH: Uint8Array = sha256(new Uint8Array(0));
