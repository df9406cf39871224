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
  // For one part (the store's tens of thousands of small hashes per commit), the one-shot `hash()` asked
  // for a "binary" (latin1) string: a small V8 heap string, ~3x cheaper per call than a Buffer digest.
  const out = new Uint8Array(32);
  if (parts.length === 1) {
    const digest = hash("sha256", parts[0] as Uint8Array, "binary");
    for (let i = 0; i < 32; i++) out[i] = digest.charCodeAt(i);
    return out;
  }
  // Several small parts (a Merkle leaf or inner node: two per tx in a block's data_hash and last_results_hash)
  // are joined and hashed in one shot: a hash object with an update per part costs ~3x that.
  let total = 0;
  for (const part of parts) total += part.length;
  if (total <= JOIN_LIMIT) {
    const joined = new Uint8Array(total);
    let at = 0;
    for (const part of parts) {
      joined.set(part, at);
      at += part.length;
    }
    const digest = hash("sha256", joined, "binary");
    for (let i = 0; i < 32; i++) out[i] = digest.charCodeAt(i);
    return out;
  }
  const h = createHash("sha256");
  for (const part of parts) h.update(part);
  out.set(h.digest());
  return out;
}

// Up to this many bytes in all, parts are copied into one array rather than streamed through a hash object.
const JOIN_LIMIT = 4096;
