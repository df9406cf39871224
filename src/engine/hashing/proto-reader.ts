// The counterpart of ProtoWriter: walks the fields of an encoded message so the block store can decode what it
// wrote. Unknown fields are skipped, so older readers tolerate newer records.
//
// A cursor, not a generator of field objects: the block store decodes a block, its meta and its commit every
// height a node serves or a replay reads, and a generator frame, a field object and bigint arithmetic for every
// varint byte were ~15% of a replayed height's allocations. Varints are read as numbers while they fit in 49 bits
// (seven bytes: field keys, lengths, heights, times) and only longer ones (negative int64s) with bigints.

/** Raised when bytes are not a well-formed protobuf message. */
export class ProtoDecodeError extends Error {
  override name = "ProtoDecodeError";
}

/** The most varint bytes read as a number: 7 × 7 = 49 bits, exact in a double. */
const NUMBER_VARINT_BYTES = 7;

/** A varint of up to 10 bytes as an unsigned 64-bit bigint; `[value, position after it]`. */
function readBigVarint(bytes: Uint8Array, start: number): [bigint, number] {
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

/**
 * Walks one encoded message's fields in wire order: `while (r.next()) switch (r.field) …`, then the value through
 * the accessor of its wire type. Wire types other than 0, 1, 2 and 5 are refused, as is field number 0.
 */
export class FieldReader {
  private readonly bytes: Uint8Array;
  private pos = 0;
  /** The current field's number. */
  field = 0;
  /** The current field's wire type (0 varint, 1 fixed64, 2 length-delimited, 5 fixed32). */
  wire = 0;
  // The current value: a varint that fits in a number, or a bigint (longer varints, fixed64); a length-delimited
  // field's range; a fixed32.
  private small = 0;
  private big: bigint | undefined;
  private start = 0;
  private end = 0;

  constructor(bytes: Uint8Array) {
    this.bytes = bytes;
  }

  /** Reads the next field's key and value; false at the end of the message. */
  next(): boolean {
    const bytes = this.bytes;
    if (this.pos >= bytes.length) return false;
    this.big = undefined;
    const key = this.readVarint();
    // A key longer than seven bytes names a field beyond 2^46: unknown to every decoder, but still well-formed.
    const long = this.big;
    const field = long === undefined ? Math.floor(key / 8) : Number(long >> 3n);
    const wire = long === undefined ? key % 8 : Number(long & 7n);
    if (field === 0) throw new ProtoDecodeError(`field number 0 at offset ${this.pos}`);
    this.field = field;
    this.wire = wire;
    this.big = undefined;
    if (wire === 0) {
      this.small = this.readVarint();
    } else if (wire === 1) {
      if (this.pos + 8 > bytes.length) throw new ProtoDecodeError(`truncated fixed64 field ${field}`);
      this.big = new DataView(bytes.buffer, bytes.byteOffset + this.pos, 8).getBigUint64(0, true);
      this.pos += 8;
    } else if (wire === 2) {
      const len = this.readVarint();
      const end = this.pos + len;
      // A length of eight or more varint bytes (NaN here) is past the end of any message too.
      if (!(end <= bytes.length))
        throw new ProtoDecodeError(`field ${field} claims ${this.lengthText(len)} bytes past the end`);
      this.start = this.pos;
      this.end = end;
      this.pos = end;
    } else if (wire === 5) {
      if (this.pos + 4 > bytes.length) throw new ProtoDecodeError(`truncated fixed32 field ${field}`);
      this.small = new DataView(bytes.buffer, bytes.byteOffset + this.pos, 4).getUint32(0, true);
      this.pos += 4;
    } else {
      throw new ProtoDecodeError(`unsupported wire type ${wire} for field ${field}`);
    }
    return true;
  }

  /** A varint or fixed64 field's value as an unsigned 64-bit integer. */
  uint64(): bigint {
    return this.big ?? BigInt(this.small);
  }

  /** A varint field's value as a signed int64. */
  int64(): bigint {
    return this.big === undefined ? BigInt(this.small) : BigInt.asIntN(64, this.big);
  }

  /** A varint field's value as a JavaScript number, as `Number(asInt64(value))` gives it. */
  int64Number(): number {
    return this.big === undefined ? this.small : Number(BigInt.asIntN(64, this.big));
  }

  /** A varint field's value as a number, as `Number(value)` gives it (unsigned). */
  uint64Number(): number {
    return this.big === undefined ? this.small : Number(this.big);
  }

  /** A fixed32 field's value. */
  fixed32(): number {
    return this.small;
  }

  /** A length-delimited field's bytes (a view into the message). */
  bytesValue(): Uint8Array {
    return this.bytes.subarray(this.start, this.end);
  }

  /**
   * Reads a varint at the cursor and moves past it. One of up to seven bytes is returned as a number; a longer one
   * is kept in `big` (and NaN returned, which no caller of a key or length takes for valid).
   */
  private readVarint(): number {
    const bytes = this.bytes;
    const start = this.pos;
    let value = 0;
    let scale = 1;
    for (let i = 0; i < NUMBER_VARINT_BYTES; i++) {
      const at = start + i;
      if (at >= bytes.length) throw new ProtoDecodeError(`truncated varint at offset ${start}`);
      const b = bytes[at];
      value += (b & 0x7f) * scale;
      if ((b & 0x80) === 0) {
        this.pos = at + 1;
        return value;
      }
      scale *= 128;
    }
    const [big, pos] = readBigVarint(bytes, start);
    this.pos = pos;
    this.big = big;
    return Number.NaN;
  }

  /** A length read as a bigint (more than seven bytes), as the message names it. */
  private lengthText(len: number): string {
    return Number.isNaN(len) ? String(this.big) : String(len);
  }
}

/**
 * The bytes of the last occurrence of length-delimited field `field` in a message (the one a decoder keeps), or
 * undefined when it has none. Only the top level's keys and lengths are read.
 */
export function lastLengthDelimited(bytes: Uint8Array, field: number): Uint8Array | undefined {
  let found: Uint8Array | undefined;
  for (const r = new FieldReader(bytes); r.next(); ) if (r.field === field && r.wire === 2) found = r.bytesValue();
  return found;
}
