// A plain account's stored form — Any{type_url, value: BaseAccount{address, pub_key: Any{type_url,
// value: PubKey{key}}, account_number, sequence}} — encoded by hand: the ante handler rewrites the signer's
// account in every tx (CheckTx and the block), and the general protobuf encoder (create + toBinary three
// levels deep) was ~10 µs of it. The bytes are exactly protobuf's (fields in number order, zero values left
// out, a present message written even when empty), checked against the general encoder in the tests.
import { putUvarint, putVarint64, uvarintLength, varint64Length } from "../../bytes/varint.ts";

const LEN = 2;
const VARINT = 0;
const tag = (field: number, wire: number): number => (field << 3) | wire;

/** The parts of a BaseAccount as stored: the bech32 address, the key's Any type URL and bytes. */
export interface BaseAccountFields {
  typeUrl: string;
  address: string;
  pubKey: { typeUrl: string; key: Uint8Array } | undefined;
  accountNumber: bigint;
  sequence: bigint;
}

/** The Any-wrapped BaseAccount bytes. */
export function encodeBaseAccountAny(fields: BaseAccountFields): Uint8Array {
  const addressLength = utf8Length(fields.address);
  const keyTypeLength = fields.pubKey === undefined ? 0 : utf8Length(fields.pubKey.typeUrl);
  const keyMessage = fields.pubKey === undefined ? 0 : lengthDelimited(fields.pubKey.key.length);
  const keyAny = fields.pubKey === undefined ? 0 : lengthDelimited(keyTypeLength) + lengthDelimited(keyMessage);
  const account =
    lengthDelimited(addressLength) +
    (fields.pubKey === undefined ? 0 : 1 + uvarintLength(keyAny) + keyAny) +
    (fields.accountNumber === 0n ? 0 : 1 + varint64Length(fields.accountNumber)) +
    (fields.sequence === 0n ? 0 : 1 + varint64Length(fields.sequence));
  const typeUrlLength = utf8Length(fields.typeUrl);
  const size = lengthDelimited(typeUrlLength) + lengthDelimited(account);

  const out = Buffer.allocUnsafe(size);
  let at = putString(out, 0, 1, fields.typeUrl, typeUrlLength);
  if (account > 0) {
    out[at++] = tag(2, LEN);
    at = putUvarint(out, at, account);
    at = putString(out, at, 1, fields.address, addressLength);
    if (fields.pubKey !== undefined) {
      out[at++] = tag(2, LEN);
      at = putUvarint(out, at, keyAny);
      at = putString(out, at, 1, fields.pubKey.typeUrl, keyTypeLength);
      if (keyMessage > 0) {
        out[at++] = tag(2, LEN);
        at = putUvarint(out, at, keyMessage);
        if (fields.pubKey.key.length > 0) {
          out[at++] = tag(1, LEN);
          at = putUvarint(out, at, fields.pubKey.key.length);
          out.set(fields.pubKey.key, at);
          at += fields.pubKey.key.length;
        }
      }
    }
    if (fields.accountNumber !== 0n) {
      out[at++] = tag(3, VARINT);
      at = putVarint64(out, at, fields.accountNumber);
    }
    if (fields.sequence !== 0n) {
      out[at++] = tag(4, VARINT);
      at = putVarint64(out, at, fields.sequence);
    }
  }
  if (at !== size) throw new Error(`BaseAccount encoding wrote ${at} bytes, expected ${size}`);
  return new Uint8Array(out.buffer, out.byteOffset, size);
}

function utf8Length(text: string): number {
  return text.length === 0 ? 0 : Buffer.byteLength(text, "utf8");
}

// Bytes of a length-delimited field whose content is `length` bytes (none when empty: proto3 leaves it out).
function lengthDelimited(length: number): number {
  return length === 0 ? 0 : 1 + uvarintLength(length) + length;
}

function putString(out: Buffer, at: number, field: number, text: string, length: number): number {
  if (length === 0) return at;
  out[at++] = tag(field, LEN);
  at = putUvarint(out, at, length);
  return at + out.write(text, at, "utf8");
}
