// A minimal protobuf writer that reproduces gogoproto's byte layout for the handful of CometBFT messages the
// engine hashes and stores. Hashes must match CometBFT byte for byte, so the rules are explicit here rather than
// left to a general-purpose encoder: fields are written in field-number order by the caller, zero scalars are
// skipped by the `*IfSet` helpers, and "non-nullable" sub-messages are written even when empty.

const WIRE_VARINT = 0;
const WIRE_FIXED64 = 1;
const WIRE_LEN = 2;

const textEncoder = new TextEncoder();

/** Appends protobuf fields to a growing buffer; `finish()` returns the encoded bytes. */
export class ProtoWriter {
  private chunks: number[] = [];
  private parts: Uint8Array[] = [];
  private length = 0;

  private flushBytes(): void {
    if (this.chunks.length > 0) {
      const part = Uint8Array.from(this.chunks);
      this.parts.push(part);
      this.length += part.length;
      this.chunks = [];
    }
  }

  private tag(field: number, wire: number): void {
    this.rawVarint(BigInt((field << 3) | wire));
  }

  /** Writes an unsigned varint (callers pass two's-complement values for negative int64). */
  rawVarint(value: bigint): void {
    let v = BigInt.asUintN(64, value);
    while (v >= 0x80n) {
      this.chunks.push(Number(v & 0x7fn) | 0x80);
      v >>= 7n;
    }
    this.chunks.push(Number(v));
  }

  /** Writes raw bytes with no tag or length. */
  raw(bytes: Uint8Array): void {
    this.flushBytes();
    this.parts.push(bytes);
    this.length += bytes.length;
  }

  /** int64/uint64/int32/enum field, skipped when zero (proto3 default). */
  varintIfSet(field: number, value: bigint | number): void {
    const v = BigInt(value);
    if (v === 0n) return;
    this.tag(field, WIRE_VARINT);
    this.rawVarint(v);
  }

  /** bool field, skipped when false. */
  boolIfSet(field: number, value: boolean): void {
    if (!value) return;
    this.tag(field, WIRE_VARINT);
    this.rawVarint(1n);
  }

  /** sfixed64 field (little-endian 8 bytes), skipped when zero. */
  sfixed64IfSet(field: number, value: bigint): void {
    if (value === 0n) return;
    this.tag(field, WIRE_FIXED64);
    const buf = new Uint8Array(8);
    new DataView(buf.buffer).setBigInt64(0, value, true);
    this.raw(buf);
  }

  /** bytes field, skipped when empty. */
  bytesIfSet(field: number, value: Uint8Array): void {
    if (value.length === 0) return;
    this.bytes(field, value);
  }

  /** bytes field, always written (used for repeated bytes, where empty elements still count). */
  bytes(field: number, value: Uint8Array): void {
    this.tag(field, WIRE_LEN);
    this.rawVarint(BigInt(value.length));
    this.raw(value);
  }

  /** string field, skipped when empty. */
  stringIfSet(field: number, value: string): void {
    if (value.length === 0) return;
    this.bytes(field, textEncoder.encode(value));
  }

  /** Embedded message field, always written (gogoproto non-nullable, or a present nullable message). */
  message(field: number, encoded: Uint8Array): void {
    this.bytes(field, encoded);
  }

  /** The encoded bytes. */
  finish(): Uint8Array {
    this.flushBytes();
    if (this.parts.length === 1) return this.parts[0];
    const out = new Uint8Array(this.length);
    let offset = 0;
    for (const part of this.parts) {
      out.set(part, offset);
      offset += part.length;
    }
    return out;
  }
}
