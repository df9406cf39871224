// A plain account's stored form — Any{type_url, value: BaseAccount{address, pub_key: Any{type_url,
// value: PubKey{key}}, account_number, sequence}} — encoded by hand: the ante handler rewrites the signer's
// account in every tx (CheckTx and the block), and the general protobuf encoder (create + toBinary three
// levels deep) was ~10 µs of it. The bytes are exactly protobuf's (fields in number order, zero values left
// out, a present message written even when empty), checked against the general encoder in the tests.
import {
  fieldTag,
  lengthDelimitedSize,
  nonEmptyFieldSize,
  putBytesField,
  putStringField,
  utf8Length,
  WIRE_LEN,
  WIRE_VARINT,
} from "../../bytes/proto-fields.ts";
import { putUvarint, putVarint64, varint64Length } from "../../bytes/varint.ts";

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
  const keyMessage = fields.pubKey === undefined ? 0 : nonEmptyFieldSize(fields.pubKey.key.length);
  const keyAny = fields.pubKey === undefined ? 0 : nonEmptyFieldSize(keyTypeLength) + nonEmptyFieldSize(keyMessage);
  const account =
    nonEmptyFieldSize(addressLength) +
    (fields.pubKey === undefined ? 0 : lengthDelimitedSize(keyAny)) +
    (fields.accountNumber === 0n ? 0 : 1 + varint64Length(fields.accountNumber)) +
    (fields.sequence === 0n ? 0 : 1 + varint64Length(fields.sequence));
  const typeUrlLength = utf8Length(fields.typeUrl);
  const size = nonEmptyFieldSize(typeUrlLength) + nonEmptyFieldSize(account);

  const out = Buffer.allocUnsafe(size);
  let at = putStringField(out, 0, 1, fields.typeUrl, typeUrlLength);
  if (account > 0) {
    out[at++] = fieldTag(2, WIRE_LEN);
    at = putUvarint(out, at, account);
    at = putStringField(out, at, 1, fields.address, addressLength);
    if (fields.pubKey !== undefined) {
      out[at++] = fieldTag(2, WIRE_LEN);
      at = putUvarint(out, at, keyAny);
      at = putStringField(out, at, 1, fields.pubKey.typeUrl, keyTypeLength);
      if (keyMessage > 0) {
        out[at++] = fieldTag(2, WIRE_LEN);
        at = putUvarint(out, at, keyMessage);
        if (fields.pubKey.key.length > 0) at = putBytesField(out, at, 1, fields.pubKey.key);
      }
    }
    if (fields.accountNumber !== 0n) {
      out[at++] = fieldTag(3, WIRE_VARINT);
      at = putVarint64(out, at, fields.accountNumber);
    }
    if (fields.sequence !== 0n) {
      out[at++] = fieldTag(4, WIRE_VARINT);
      at = putVarint64(out, at, fields.sequence);
    }
  }
  if (at !== size) throw new Error(`BaseAccount encoding wrote ${at} bytes, expected ${size}`);
  return new Uint8Array(out.buffer, out.byteOffset, size);
}
