// SIGN_MODE_DIRECT sign bytes, encoded by hand: every CheckTx and every tx in a block builds them (twice when
// its signature is checked ahead of execution), and the general protobuf encoder (create + toBinary, with
// reflection over the schema) cost ~10 µs a tx on the node's main thread. The layout is SignDoc's proto3
// encoding as every Cosmos signer produces it: fields in number order, empty or zero fields left out.
import { putUvarint, putVarint64, uvarintLength, varint64Length } from "../../bytes/varint.ts";

const BODY_BYTES_TAG = (1 << 3) | 2;
const AUTH_INFO_BYTES_TAG = (2 << 3) | 2;
const CHAIN_ID_TAG = (3 << 3) | 2;
const ACCOUNT_NUMBER_TAG = (4 << 3) | 0;

/** The bytes a SIGN_MODE_DIRECT signer signs: SignDoc{body_bytes, auth_info_bytes, chain_id, account_number}. */
export function encodeSignDoc(
  bodyBytes: Uint8Array,
  authInfoBytes: Uint8Array,
  chainId: string,
  accountNumber: bigint,
): Uint8Array {
  const chainIdLength = Buffer.byteLength(chainId, "utf8");
  const size =
    lengthDelimitedSize(bodyBytes.length) +
    lengthDelimitedSize(authInfoBytes.length) +
    lengthDelimitedSize(chainIdLength) +
    (accountNumber === 0n ? 0 : 1 + varint64Length(accountNumber));
  const out = Buffer.allocUnsafe(size);
  let at = 0;
  at = putLengthDelimited(out, at, BODY_BYTES_TAG, bodyBytes);
  at = putLengthDelimited(out, at, AUTH_INFO_BYTES_TAG, authInfoBytes);
  if (chainIdLength > 0) {
    out[at++] = CHAIN_ID_TAG;
    at = putUvarint(out, at, chainIdLength);
    at += out.write(chainId, at, "utf8");
  }
  if (accountNumber !== 0n) {
    out[at++] = ACCOUNT_NUMBER_TAG;
    at = putVarint64(out, at, accountNumber);
  }
  return new Uint8Array(out.buffer, out.byteOffset, at);
}

// Bytes taken by a length-delimited field of `length` bytes (none when empty: proto3 leaves it out).
function lengthDelimitedSize(length: number): number {
  return length === 0 ? 0 : 1 + uvarintLength(length) + length;
}

function putLengthDelimited(out: Buffer, at: number, tag: number, value: Uint8Array): number {
  if (value.length === 0) return at;
  out[at++] = tag;
  at = putUvarint(out, at, value.length);
  out.set(value, at);
  return at + value.length;
}
