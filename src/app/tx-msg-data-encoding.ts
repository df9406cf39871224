// TxMsgData{msg_responses} (a successful tx's result data) encoded by hand: one per tx in every block, and the
// general protobuf encoder (reflection over the schema, a growing buffer) cost several µs a tx on the node's
// main thread. The bytes are exactly protobuf's (checked against the general encoder in the tests).
import type { Any } from "@bufbuild/protobuf/wkt";
import {
  lengthDelimitedSize,
  nonEmptyFieldSize,
  putBytesField,
  putStringField,
  utf8Length,
} from "../bytes/proto-fields.ts";
import { putUvarint } from "../bytes/varint.ts";

/** The protobuf encoding of `TxMsgData{msg_responses: responses}` (field 1, the deprecated `data`, empty). */
export function encodeTxMsgData(responses: readonly Any[]): Uint8Array {
  const typeUrlLengths: number[] = new Array(responses.length);
  let size = 0;
  for (let i = 0; i < responses.length; i++) {
    typeUrlLengths[i] = utf8Length(responses[i].typeUrl);
    size += lengthDelimitedSize(anyBodySize(responses[i], typeUrlLengths[i]));
  }
  const out = Buffer.allocUnsafe(size);
  let at = 0;
  for (let i = 0; i < responses.length; i++) {
    const any = responses[i];
    out[at++] = (2 << 3) | 2; // field 2, length-delimited
    at = putUvarint(out, at, anyBodySize(any, typeUrlLengths[i]));
    at = putStringField(out, at, 1, any.typeUrl, typeUrlLengths[i]);
    if (any.value.length > 0) at = putBytesField(out, at, 2, any.value);
  }
  if (at !== size) throw new Error(`TxMsgData encoding wrote ${at} bytes, expected ${size}`);
  return new Uint8Array(out.buffer, out.byteOffset, size);
}

function anyBodySize(any: Any, typeUrlLength: number): number {
  return nonEmptyFieldSize(typeUrlLength) + nonEmptyFieldSize(any.value.length);
}
