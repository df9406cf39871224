// The store's own record encodings: an arena for the many small rows of a commit, and a growable writer and a
// reader for the varint-framed records (tree nodes, commit rows). The generic byte helpers are in src/bytes.

/**
 * Hands out byte ranges from large chunks. A commit encodes tens of thousands of rows; one
 * native allocation per row fragments the process heap, one per megabyte does not.
 */
export class Arena {
  private chunk = new Uint8Array(0);
  private used = 0;
  private readonly chunkSize: number;

  constructor(chunkSize = 1 << 20) {
    this.chunkSize = chunkSize;
  }

  /** A fresh zeroed range of `size` bytes. */
  alloc(size: number): Uint8Array {
    if (size > this.chunkSize / 4) return new Uint8Array(size);
    if (this.used + size > this.chunk.length) {
      this.chunk = new Uint8Array(this.chunkSize);
      this.used = 0;
    }
    const out = this.chunk.subarray(this.used, this.used + size);
    this.used += size;
    return out;
  }
}

/** A copy of `bytes` in its own small array (V8 keeps arrays of up to 64 bytes inside its heap). */
export function copyBytes(bytes: Uint8Array): Uint8Array {
  const out = new Uint8Array(bytes.length);
  out.set(bytes);
  return out;
}

/** Appends values to a growable buffer. */
export class ByteWriter {
  private buf: Uint8Array;
  length = 0;

  constructor(initialCapacity = 64) {
    this.buf = new Uint8Array(initialCapacity);
  }

  private ensure(extra: number): void {
    const need = this.length + extra;
    if (need <= this.buf.length) return;
    let cap = this.buf.length * 2;
    while (cap < need) cap *= 2;
    const next = new Uint8Array(cap);
    next.set(this.buf.subarray(0, this.length));
    this.buf = next;
  }

  byte(value: number): this {
    this.ensure(1);
    this.buf[this.length++] = value;
    return this;
  }

  bytes(value: Uint8Array): this {
    this.ensure(value.length);
    this.buf.set(value, this.length);
    this.length += value.length;
    return this;
  }

  /** Unsigned LEB128 varint (protobuf's encoding) of a non-negative safe integer. */
  uvarint(value: number): this {
    this.ensure(10);
    while (value >= 0x80) {
      this.buf[this.length++] = (value % 128) | 0x80;
      value = Math.floor(value / 128);
    }
    this.buf[this.length++] = value;
    return this;
  }

  /** Zig-zag signed varint (Go's binary.PutVarint), as IAVL encodes heights, sizes and versions. */
  svarint(value: number): this {
    return this.uvarint(value >= 0 ? value * 2 : -value * 2 - 1);
  }

  /** uvarint length followed by the bytes. */
  lengthPrefixed(value: Uint8Array): this {
    this.uvarint(value.length);
    return this.bytes(value);
  }

  u32be(value: number): this {
    this.ensure(4);
    const b = this.buf;
    const o = this.length;
    b[o] = value >>> 24;
    b[o + 1] = (value >>> 16) & 0xff;
    b[o + 2] = (value >>> 8) & 0xff;
    b[o + 3] = value & 0xff;
    this.length += 4;
    return this;
  }

  /** Big-endian unsigned integer in 8 bytes (order-preserving for LevelDB keys). */
  u64be(value: number): this {
    this.u32be(Math.floor(value / 0x100000000));
    return this.u32be(value >>> 0);
  }

  /** The bytes written so far, without copying (valid until the next write). */
  view(): Uint8Array {
    return this.buf.subarray(0, this.length);
  }

  /** A copy of the bytes written so far. */
  finish(): Uint8Array {
    return this.buf.slice(0, this.length);
  }
}

/** Raised when a record cannot be decoded (truncated or malformed bytes). */
export class DecodeError extends Error {
  override name = "DecodeError";
}

/** Reads values written by ByteWriter. Views returned by `bytes` share the input's memory. */
export class ByteReader {
  offset: number;
  readonly buf: Uint8Array;

  constructor(buf: Uint8Array, offset = 0) {
    this.buf = buf;
    this.offset = offset;
  }

  get done(): boolean {
    return this.offset >= this.buf.length;
  }

  byte(): number {
    if (this.offset >= this.buf.length) throw new DecodeError("unexpected end of record");
    return this.buf[this.offset++];
  }

  bytes(length: number): Uint8Array {
    const end = this.offset + length;
    if (end > this.buf.length) throw new DecodeError("unexpected end of record");
    // A plain Uint8Array view even when the input is a Buffer (LevelDB returns Buffers).
    const out = new Uint8Array(this.buf.buffer, this.buf.byteOffset + this.offset, length);
    this.offset = end;
    return out;
  }

  uvarint(): number {
    let result = 0;
    let scale = 1;
    for (let i = 0; i < 8; i++) {
      const b = this.byte();
      result += (b & 0x7f) * scale;
      if (b < 0x80) return result;
      scale *= 128;
    }
    throw new DecodeError("varint too long");
  }

  svarint(): number {
    const u = this.uvarint();
    return u % 2 === 0 ? u / 2 : -(u + 1) / 2;
  }

  lengthPrefixed(): Uint8Array {
    return this.bytes(this.uvarint());
  }

  u32be(): number {
    if (this.offset + 4 > this.buf.length) throw new DecodeError("unexpected end of record");
    const b = this.buf;
    const o = this.offset;
    this.offset += 4;
    return ((b[o] << 24) | (b[o + 1] << 16) | (b[o + 2] << 8) | b[o + 3]) >>> 0;
  }

  u64be(): number {
    const high = this.u32be();
    return high * 0x100000000 + this.u32be();
  }
}
