// SIGN_MODE_DIRECT sign bytes, encoded by hand: every CheckTx and every tx in a block builds them (twice when
// its signature is checked ahead of execution), and the general protobuf encoder (create + toBinary, with
// reflection over the schema) cost ~10 µs a tx on the node's main thread. The layout is SignDoc's proto3
// encoding as every Cosmos signer produces it: fields in number order, empty or zero fields left out.
import {
  fieldTag,
  nonEmptyFieldSize,
  putBytesField,
  putStringField,
  utf8Length,
  WIRE_VARINT,
} from "../../bytes/proto-fields.ts";
import { putVarint64, varint64Length } from "../../bytes/varint.ts";

/** The bytes a SIGN_MODE_DIRECT signer signs: SignDoc{body_bytes, auth_info_bytes, chain_id, account_number}. */
export function encodeSignDoc(
  bodyBytes: Uint8Array,
  authInfoBytes: Uint8Array,
  chainId: string,
  accountNumber: bigint,
): Uint8Array {
  const chainIdLength = utf8Length(chainId);
  const size =
    nonEmptyFieldSize(bodyBytes.length) +
    nonEmptyFieldSize(authInfoBytes.length) +
    nonEmptyFieldSize(chainIdLength) +
    (accountNumber === 0n ? 0 : 1 + varint64Length(accountNumber));
  const out = Buffer.allocUnsafe(size);
  let at = 0;
  if (bodyBytes.length > 0) at = putBytesField(out, at, 1, bodyBytes);
  if (authInfoBytes.length > 0) at = putBytesField(out, at, 2, authInfoBytes);
  at = putStringField(out, at, 3, chainId, chainIdLength);
  if (accountNumber !== 0n) {
    out[at++] = fieldTag(4, WIRE_VARINT);
    at = putVarint64(out, at, accountNumber);
  }
  return new Uint8Array(out.buffer, out.byteOffset, at);
}
