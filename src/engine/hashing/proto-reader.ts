// The counterpart of ProtoWriter: walks the fields of an encoded message so the block store can decode what it
// wrote. Unknown fields are skipped, so older readers tolerate newer records.

/** One decoded field: varints and fixed64 as bigint, length-delimited fields as bytes. */
export type ProtoField =
  | { field: number; wire: 0; value: bigint }
  | { field: number; wire: 1; value: bigint }
  | { field: number; wire: 2; value: Uint8Array }
  | { field: number; wire: 5; value: number };

/** Raised when bytes are not a well-formed protobuf message. */
export class ProtoDecodeError extends Error {
  override name = "ProtoDecodeError";
}

function readVarint(bytes: Uint8Array, start: number): [bigint, number] {
  let result = 0n;
  let shift = 0n;
  let pos = start;
  for (;;) {
    if (pos >= bytes.length) throw new ProtoDecodeError(`truncated varint at offset ${start}`);
    const b = bytes[pos++];
    result |= BigInt(b & 0x7f) << shift;
    if ((b & 0x80) === 0) break;
    shift += 7n;
    if (shift > 63n) throw new ProtoDecodeError(`varint longer than 10 bytes at offset ${start}`);
  }
  return [BigInt.asUintN(64, result), pos];
}

/** Iterates over the fields of one encoded message, in wire order. */
export function* readFields(bytes: Uint8Array): Generator<ProtoField> {
  let pos = 0;
  while (pos < bytes.length) {
    const [key, afterKey] = readVarint(bytes, pos);
    pos = afterKey;
    const field = Number(key >> 3n);
    const wire = Number(key & 7n);
    if (field === 0) throw new ProtoDecodeError(`field number 0 at offset ${pos}`);
    if (wire === 0) {
      const [value, next] = readVarint(bytes, pos);
      pos = next;
      yield { field, wire, value };
    } else if (wire === 1) {
      if (pos + 8 > bytes.length) throw new ProtoDecodeError(`truncated fixed64 field ${field}`);
      const value = new DataView(bytes.buffer, bytes.byteOffset + pos, 8).getBigUint64(0, true);
      pos += 8;
      yield { field, wire, value };
    } else if (wire === 2) {
      const [len, next] = readVarint(bytes, pos);
      const end = next + Number(len);
      if (end > bytes.length) throw new ProtoDecodeError(`field ${field} claims ${len} bytes past the end`);
      yield { field, wire, value: bytes.subarray(next, end) };
      pos = end;
    } else if (wire === 5) {
      if (pos + 4 > bytes.length) throw new ProtoDecodeError(`truncated fixed32 field ${field}`);
      const value = new DataView(bytes.buffer, bytes.byteOffset + pos, 4).getUint32(0, true);
      pos += 4;
      yield { field, wire, value };
    } else {
      throw new ProtoDecodeError(`unsupported wire type ${wire} for field ${field}`);
    }
  }
}

/** Interprets a varint field as a signed int64. */
export function asInt64(value: bigint): bigint {
  return BigInt.asIntN(64, value);
}
