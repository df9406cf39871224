// TxMsgData{msg_responses} (a successful tx's result data) encoded by hand: one per tx in every block, and the
// general protobuf encoder (reflection over the schema, a growing buffer) cost several µs a tx on the node's
// main thread. The bytes are exactly protobuf's (checked against the general encoder in the tests). The output
// is a plain Uint8Array, not a slice of Node's shared Buffer pool: it lives as long as the tx's result, and
// a pooled slice would keep its whole 8 KiB slab alive (and make the node allocate slabs all the time).
import type { Any } from "@bufbuild/protobuf/wkt";
import { lengthDelimitedSize, nonEmptyFieldSize, putBytesField } from "../bytes/proto-fields.ts";
import { putUvarint } from "../bytes/varint.ts";

// UTF-8 bytes of the response type URLs: a handful of registered message names, so the map stays small.
const typeUrlBytes = new Map<string, Uint8Array>();
const utf8 = new TextEncoder();

function bytesOfTypeUrl(typeUrl: string): Uint8Array {
  let bytes = typeUrlBytes.get(typeUrl);
  if (bytes === undefined) {
    bytes = utf8.encode(typeUrl);
    if (typeUrlBytes.size < 1024) typeUrlBytes.set(typeUrl, bytes);
  }
  return bytes;
}

/** The protobuf encoding of `TxMsgData{msg_responses: responses}` (field 1, the deprecated `data`, empty). */
export function encodeTxMsgData(responses: readonly Any[]): Uint8Array {
  const typeUrls: Uint8Array[] = new Array(responses.length);
  let size = 0;
  for (let i = 0; i < responses.length; i++) {
    typeUrls[i] = bytesOfTypeUrl(responses[i].typeUrl);
    size += lengthDelimitedSize(anyBodySize(responses[i], typeUrls[i]));
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (let i = 0; i < responses.length; i++) {
    const any = responses[i];
    out[at++] = (2 << 3) | 2; // field 2, length-delimited
    at = putUvarint(out, at, anyBodySize(any, typeUrls[i]));
    if (typeUrls[i].length > 0) at = putBytesField(out, at, 1, typeUrls[i]);
    if (any.value.length > 0) at = putBytesField(out, at, 2, any.value);
  }
  if (at !== size) throw new Error(`TxMsgData encoding wrote ${at} bytes, expected ${size}`);
  return out;
}

function anyBodySize(any: Any, typeUrl: Uint8Array): number {
  return nonEmptyFieldSize(typeUrl.length) + nonEmptyFieldSize(any.value.length);
}
