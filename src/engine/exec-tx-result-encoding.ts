// ExecTxResult encoded by hand for the block store: every tx of every block is stored with its result (~15
// events, ~30 attributes for a bank send), and the general protobuf encoder (reflection over the schema, a
// growing buffer) cost ~25 µs a tx on the node's main thread. The bytes are exactly protobuf's: fields in
// number order, proto3 zero values left out (checked against the general encoder in the tests).

import { putUvarint, putVarint64, uvarintLength, varint64Length } from "../bytes/varint.ts";
import type { ExecTxResult } from "../gen/tendermint/abci/types_pb.js";

const LEN = 2;
const tag = (field: number, wire: number): number => (field << 3) | wire;

/** The protobuf encoding of one ExecTxResult. */
export function encodeExecTxResult(result: ExecTxResult): Uint8Array {
  // Pass 1: sizes (each event's and each attribute's body, in order, for the length prefixes).
  const bodySizes: number[] = [];
  let size = 0;
  if (result.code !== 0) size += 1 + uvarintLength(result.code);
  size += bytesFieldSize(result.data.length);
  size += bytesFieldSize(utf8Length(result.log));
  size += bytesFieldSize(utf8Length(result.info));
  size += int64FieldSize(result.gasWanted);
  size += int64FieldSize(result.gasUsed);
  for (const event of result.events) {
    const at = bodySizes.length;
    bodySizes.push(0);
    let eventBody = bytesFieldSize(utf8Length(event.type));
    for (const attribute of event.attributes) {
      const attributeBody =
        bytesFieldSize(utf8Length(attribute.key)) +
        bytesFieldSize(utf8Length(attribute.value)) +
        (attribute.index ? 2 : 0);
      bodySizes.push(attributeBody);
      eventBody += 1 + uvarintLength(attributeBody) + attributeBody;
    }
    bodySizes[at] = eventBody;
    size += 1 + uvarintLength(eventBody) + eventBody;
  }
  size += bytesFieldSize(utf8Length(result.codespace));

  // Pass 2: the bytes.
  const out = Buffer.allocUnsafe(size);
  let pos = 0;
  if (result.code !== 0) {
    out[pos++] = tag(1, 0);
    pos = putUvarint(out, pos, result.code);
  }
  if (result.data.length > 0) {
    out[pos++] = tag(2, LEN);
    pos = putUvarint(out, pos, result.data.length);
    out.set(result.data, pos);
    pos += result.data.length;
  }
  pos = putString(out, pos, 3, result.log);
  pos = putString(out, pos, 4, result.info);
  pos = putInt64(out, pos, 5, result.gasWanted);
  pos = putInt64(out, pos, 6, result.gasUsed);
  let next = 0;
  for (const event of result.events) {
    out[pos++] = tag(7, LEN);
    pos = putUvarint(out, pos, bodySizes[next++]);
    pos = putString(out, pos, 1, event.type);
    for (const attribute of event.attributes) {
      out[pos++] = tag(2, LEN);
      pos = putUvarint(out, pos, bodySizes[next++]);
      pos = putString(out, pos, 1, attribute.key);
      pos = putString(out, pos, 2, attribute.value);
      if (attribute.index) {
        out[pos++] = tag(3, 0);
        out[pos++] = 1;
      }
    }
  }
  pos = putString(out, pos, 8, result.codespace);
  if (pos !== size) throw new Error(`ExecTxResult encoding wrote ${pos} bytes, expected ${size}`);
  return new Uint8Array(out.buffer, out.byteOffset, size);
}

function utf8Length(text: string): number {
  return text.length === 0 ? 0 : Buffer.byteLength(text, "utf8");
}

// A length-delimited field of `length` bytes; proto3 leaves an empty one out.
function bytesFieldSize(length: number): number {
  return length === 0 ? 0 : 1 + uvarintLength(length) + length;
}

function putString(out: Buffer, pos: number, field: number, text: string): number {
  if (text.length === 0) return pos;
  out[pos++] = tag(field, LEN);
  pos = putUvarint(out, pos, Buffer.byteLength(text, "utf8"));
  return pos + out.write(text, pos, "utf8");
}

// int64 fields, skipped when zero (a negative value is its 10-byte two's complement varint).
function int64FieldSize(value: bigint): number {
  return value === 0n ? 0 : 1 + varint64Length(value);
}

function putInt64(out: Buffer, pos: number, field: number, value: bigint): number {
  if (value === 0n) return pos;
  out[pos++] = tag(field, 0);
  return putVarint64(out, pos, value);
}
