// The hashes and encodings only addresses and keys need (RIPEMD-160, base64), by the platform's native crypto.
// SHA-256 and hex are src/bytes' one copy.
import { createHash } from "node:crypto";

/** RIPEMD-160 of `data` (20 bytes). */
export function ripemd160(data: Uint8Array): Uint8Array {
  return new Uint8Array(createHash("ripemd160").update(data).digest());
}

/** Standard base64 (with padding) of `bytes`. */
export function toBase64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
}

/** Bytes of a standard base64 string; throws when the text is not base64. */
export function fromBase64(text: string): Uint8Array {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 !== 0) {
    throw new TypeError("invalid base64 string: expected standard base64 with padding");
  }
  return new Uint8Array(Buffer.from(text, "base64"));
}
