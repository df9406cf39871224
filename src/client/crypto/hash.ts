// Hashes used for addresses, sign bytes and tx hashes, computed by the platform's native crypto.
import { createHash } from "node:crypto";

/** SHA-256 of `data` (32 bytes). */
export function sha256(data: Uint8Array): Uint8Array {
  return new Uint8Array(createHash("sha256").update(data).digest());
}

/** RIPEMD-160 of `data` (20 bytes). */
export function ripemd160(data: Uint8Array): Uint8Array {
  return new Uint8Array(createHash("ripemd160").update(data).digest());
}

/** Lower-case hex of `bytes`. */
export function toHex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("hex");
}

/** Bytes of a hex string (either case); throws on odd length or non-hex characters. */
export function fromHex(hex: string): Uint8Array {
  if (hex.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(hex)) {
    throw new TypeError(`invalid hex string of length ${hex.length}: expected an even number of 0-9a-f characters`);
  }
  return new Uint8Array(Buffer.from(hex, "hex"));
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
