// ExecTxResult encoded by hand for the block store: every tx of every block is stored with its result (~15
// events, ~30 attributes for a bank send), and the general protobuf encoder (reflection over the schema, a
// growing buffer) cost ~25 µs a tx on the node's main thread. The bytes are exactly protobuf's: fields in
// number order, proto3 zero values left out (checked against the general encoder in the tests).
import {
  fieldTag,
  nonEmptyFieldSize,
  putBytesField,
  putStringField,
  utf8Length,
  WIRE_LEN,
  WIRE_VARINT,
} from "../bytes/proto-fields.ts";
import { putUvarint, putVarint64, uvarintLength, varint64Length } from "../bytes/varint.ts";
import type { ExecTxResult } from "../gen/tendermint/abci/types_pb.js";

/** The protobuf encoding of one ExecTxResult. */
export function encodeExecTxResult(result: ExecTxResult): Uint8Array {
  // Pass 1: sizes (each event's and each attribute's body, in order, for the length prefixes).
  const bodySizes: number[] = [];
  let size = 0;
  if (result.code !== 0) size += 1 + uvarintLength(result.code);
  size += nonEmptyFieldSize(result.data.length);
  size += nonEmptyFieldSize(utf8Length(result.log));
  size += nonEmptyFieldSize(utf8Length(result.info));
  size += int64FieldSize(result.gasWanted);
  size += int64FieldSize(result.gasUsed);
  for (const event of result.events) {
    const at = bodySizes.length;
    bodySizes.push(0);
    let eventBody = nonEmptyFieldSize(utf8Length(event.type));
    for (const attribute of event.attributes) {
      const attributeBody =
        nonEmptyFieldSize(utf8Length(attribute.key)) +
        nonEmptyFieldSize(utf8Length(attribute.value)) +
        (attribute.index ? 2 : 0);
      bodySizes.push(attributeBody);
      eventBody += 1 + uvarintLength(attributeBody) + attributeBody;
    }
    bodySizes[at] = eventBody;
    size += 1 + uvarintLength(eventBody) + eventBody;
  }
  size += nonEmptyFieldSize(utf8Length(result.codespace));

  // Pass 2: the bytes.
  const out = Buffer.allocUnsafe(size);
  let pos = 0;
  if (result.code !== 0) {
    out[pos++] = fieldTag(1, WIRE_VARINT);
    pos = putUvarint(out, pos, result.code);
  }
  if (result.data.length > 0) pos = putBytesField(out, pos, 2, result.data);
  pos = putStringField(out, pos, 3, result.log, utf8Length(result.log));
  pos = putStringField(out, pos, 4, result.info, utf8Length(result.info));
  pos = putInt64(out, pos, 5, result.gasWanted);
  pos = putInt64(out, pos, 6, result.gasUsed);
  let next = 0;
  for (const event of result.events) {
    out[pos++] = fieldTag(7, WIRE_LEN);
    pos = putUvarint(out, pos, bodySizes[next++]);
    pos = putStringField(out, pos, 1, event.type, utf8Length(event.type));
    for (const attribute of event.attributes) {
      out[pos++] = fieldTag(2, WIRE_LEN);
      pos = putUvarint(out, pos, bodySizes[next++]);
      pos = putStringField(out, pos, 1, attribute.key, utf8Length(attribute.key));
      pos = putStringField(out, pos, 2, attribute.value, utf8Length(attribute.value));
      if (attribute.index) {
        out[pos++] = fieldTag(3, WIRE_VARINT);
        out[pos++] = 1;
      }
    }
  }
  pos = putStringField(out, pos, 8, result.codespace, utf8Length(result.codespace));
  if (pos !== size) throw new Error(`ExecTxResult encoding wrote ${pos} bytes, expected ${size}`);
  return new Uint8Array(out.buffer, out.byteOffset, size);
}

// int64 fields, skipped when zero (a negative value is its 10-byte two's complement varint).
function int64FieldSize(value: bigint): number {
  return value === 0n ? 0 : 1 + varint64Length(value);
}

function putInt64(out: Buffer, pos: number, field: number, value: bigint): number {
  if (value === 0n) return pos;
  out[pos++] = fieldTag(field, WIRE_VARINT);
  return putVarint64(out, pos, value);
}
