// Hex text of bytes: the one copy the store, the engine and the client share (src/bytes sits at the
// bottom of the import graph and imports nothing of ours).

/** Lower-case hex of `bytes`. */
export function toHex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("hex");
}

/** Bytes of a hex string (either case, no 0x prefix); throws on odd length or non-hex characters. */
export function fromHex(hex: string): Uint8Array {
  if (hex.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(hex)) {
    throw new TypeError(`invalid hex string of length ${hex.length}: expected an even number of 0-9a-f characters`);
  }
  return new Uint8Array(Buffer.from(hex, "hex"));
}
