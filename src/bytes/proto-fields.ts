// The few protobuf field writers the hand-written encoders share (sign bytes, stored accounts, tx results and
// the block store's records): each encoder sizes its message first, then writes into one exact-size buffer.
// Field numbers are 1–15, so a tag is one byte. proto3 leaves empty fields out; the callers decide which.
import { putUvarint, uvarintLength } from "./varint.ts";

/** Wire type of varint fields. */
export const WIRE_VARINT = 0;
/** Wire type of length-delimited fields (bytes, strings, messages). */
export const WIRE_LEN = 2;

/** The one-byte tag of field `field` (1–15) with wire type `wire`. */
export function fieldTag(field: number, wire: number): number {
  return (field << 3) | wire;
}

/** UTF-8 length of `text`. */
export function utf8Length(text: string): number {
  return text.length === 0 ? 0 : Buffer.byteLength(text, "utf8");
}

/** Bytes a length-delimited field with `length` bytes of content takes: tag, length varint, content. */
export function lengthDelimitedSize(length: number): number {
  return 1 + uvarintLength(length) + length;
}

/** {@link lengthDelimitedSize}, or 0 for empty content (a proto3 field left out). */
export function nonEmptyFieldSize(length: number): number {
  return length === 0 ? 0 : lengthDelimitedSize(length);
}

/** Writes a bytes (or embedded message) field at `at`; returns the offset after it. */
export function putBytesField(out: Uint8Array, at: number, field: number, bytes: Uint8Array): number {
  out[at++] = fieldTag(field, WIRE_LEN);
  at = putUvarint(out, at, bytes.length);
  out.set(bytes, at);
  return at + bytes.length;
}

/**
 * Writes a string field whose UTF-8 length (from {@link utf8Length}) is `length`, nothing when it is empty;
 * returns the offset after it.
 */
export function putStringField(out: Buffer, at: number, field: number, text: string, length: number): number {
  if (length === 0) return at;
  out[at++] = fieldTag(field, WIRE_LEN);
  at = putUvarint(out, at, length);
  return at + out.write(text, at, "utf8");
}
