// SHA-256 through the platform's native crypto: the one copy the store's trees, the engine's header
// hashes and the client's addresses and tx hashes share.
import { createHash, hash } from "node:crypto";

/**
 * SHA-256 of the concatenation of `parts` (32 bytes).
 *
 * @example sha256(utf8("abc")); sha256(Uint8Array.of(1), left, right)
 */
export function sha256(...parts: Uint8Array[]): Uint8Array {
  // Copied into a small array V8 keeps inside its own heap: digests live long (in tree nodes) and
  // millions of tiny native buffers fragment the process heap. Also a plain Uint8Array, not a Buffer.
  const out = new Uint8Array(32);
  if (parts.length === 1) {
    out.set(hash("sha256", parts[0] as Uint8Array, "buffer"));
    return out;
  }
  const h = createHash("sha256");
  for (const part of parts) h.update(part);
  out.set(h.digest());
  return out;
}
