// The unsigned base-128 varint (LEB128, Go's PutUvarint) of a non-negative safe integer: the one copy
// shared by the ABCI socket framing (CometBFT v0.37+ prefixes every message with it; v0.34's signed
// zigzag varint is NOT what we speak), the store's records and IAVL hashing, and the tx decoder.
// Values are plain JS numbers and arithmetic uses multiplication, never 32-bit bit operations (a 3 GiB
// length must not wrap).

/** The longest valid uvarint of a 64-bit value. */
export const MAX_UVARINT_BYTES = 10;

/** Encodes a non-negative safe integer as a uvarint. */
export function encodeUvarint(value: number): Uint8Array {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(`a uvarint holds a non-negative safe integer, got ${value}`);
  }
  const out: number[] = [];
  let rest = value;
  while (rest >= 0x80) {
    out.push((rest % 0x80) + 0x80);
    rest = Math.floor(rest / 0x80);
  }
  out.push(rest);
  return Uint8Array.from(out);
}

/** Length in bytes of the uvarint of `value` (a non-negative safe integer). */
export function uvarintLength(value: number): number {
  let n = 1;
  while (value >= 0x80) {
    value = Math.floor(value / 128);
    n++;
  }
  return n;
}

/** Writes the uvarint of `value` into `buf` at `offset` (the caller made room); returns the new offset. */
export function putUvarint(buf: Uint8Array, offset: number, value: number): number {
  while (value >= 0x80) {
    buf[offset++] = (value % 128) | 0x80;
    value = Math.floor(value / 128);
  }
  buf[offset++] = value;
  return offset;
}

/**
 * Length of the protobuf varint of a 64-bit integer given as a bigint: its 64-bit two's complement, so a
 * negative int64 takes 10 bytes (protobuf's rule; account numbers and gas can exceed 2^53).
 */
export function varint64Length(value: bigint): number {
  let n = 1;
  for (let v = BigInt.asUintN(64, value); v >= 0x80n; v >>= 7n) n++;
  return n;
}

/** Writes the varint of {@link varint64Length} into `buf` at `offset`; returns the new offset. */
export function putVarint64(buf: Uint8Array, offset: number, value: bigint): number {
  let v = BigInt.asUintN(64, value);
  if (v <= 0x1fffffffffffffn) return putUvarint(buf, offset, Number(v));
  while (v >= 0x80n) {
    buf[offset++] = Number(v & 0x7fn) | 0x80;
    v >>= 7n;
  }
  buf[offset++] = Number(v);
  return offset;
}

/** A decoded uvarint and how many bytes it took. */
export interface DecodedUvarint {
  value: number;
  length: number;
}

/** Why a byte sequence is not a usable uvarint. */
export class UvarintError extends Error {
  override name = "UvarintError";
}

/**
 * Reads a uvarint starting at `offset` of `bytes`. Returns undefined while the terminating byte (high bit
 * clear) has not arrived yet — callers feed more bytes and try again. Throws when the varint is longer than
 * 10 bytes or its value exceeds `Number.MAX_SAFE_INTEGER`.
 */
export function readUvarint(bytes: Uint8Array, offset = 0): DecodedUvarint | undefined {
  let value = 0;
  let scale = 1;
  for (let i = 0; i < MAX_UVARINT_BYTES; i++) {
    const at = offset + i;
    if (at >= bytes.length) return undefined;
    const byte = bytes[at]!;
    value += (byte & 0x7f) * scale;
    if (!Number.isSafeInteger(value)) {
      throw new UvarintError(`varint value exceeds ${Number.MAX_SAFE_INTEGER}`);
    }
    if (byte < 0x80) return { value, length: i + 1 };
    scale *= 0x80;
  }
  throw new UvarintError(`varint longer than ${MAX_UVARINT_BYTES} bytes`);
}

/** {@link readUvarint} giving the offset just past the varint (`next`) instead of its length, for sequential parsers. */
export function readUvarintAt(bytes: Uint8Array, offset: number): { value: number; next: number } | undefined {
  const decoded = readUvarint(bytes, offset);
  return decoded === undefined ? undefined : { value: decoded.value, next: offset + decoded.length };
}
