import assert from "node:assert/strict";
import { test } from "node:test";
import { FieldReader, lastLengthDelimited, ProtoDecodeError } from "./proto-reader.ts";

/** What the reader sees of a message: each field as [number, wire, value], or the error it stops with. */
function fieldsOf(bytes: Uint8Array): unknown[] {
  const out: unknown[] = [];
  try {
    for (const r = new FieldReader(bytes); r.next(); ) {
      if (r.wire === 2) out.push([r.field, 2, Buffer.from(r.bytesValue()).toString("hex")]);
      else if (r.wire === 5) out.push([r.field, 5, r.fixed32()]);
      else out.push([r.field, r.wire, r.uint64(), r.int64(), r.int64Number(), r.uint64Number()]);
    }
  } catch (err) {
    assert.ok(err instanceof ProtoDecodeError, String(err));
    out.push(err.message);
  }
  return out;
}

/** A varint's bytes, written the plain way (7 bits a byte, low first). */
function varint(value: bigint): number[] {
  const out: number[] = [];
  let v = BigInt.asUintN(64, value);
  do {
    const low = Number(v & 0x7fn);
    v >>= 7n;
    out.push(v === 0n ? low : low | 0x80);
  } while (v !== 0n);
  return out;
}

test("reads varints of every length, as numbers while they fit and as 64-bit integers beyond", () => {
  for (const value of [
    0n,
    1n,
    127n,
    128n,
    300n,
    2n ** 48n,
    2n ** 49n - 1n,
    2n ** 49n,
    2n ** 53n + 1n,
    2n ** 63n,
    -1n,
    -(2n ** 63n),
  ]) {
    const unsigned = BigInt.asUintN(64, value);
    const signed = BigInt.asIntN(64, value);
    assert.deepEqual(fieldsOf(Uint8Array.from([0x08, ...varint(value)])), [
      [1, 0, unsigned, signed, Number(signed), Number(unsigned)],
    ]);
  }
});

test("reads fixed64, fixed32 and length-delimited fields, and keys of large field numbers", () => {
  const fixed64 = [0x11, 1, 0, 0, 0, 0, 0, 0, 0x80];
  const fixed32 = [0x1d, 4, 3, 2, 1];
  const bytes = [0x22, 2, 0xaa, 0xbb];
  const farKey = [...varint(((2n ** 50n) << 3n) | 2n), 1, 0xcc];
  assert.deepEqual(fieldsOf(Uint8Array.from([...fixed64, ...fixed32, ...bytes, ...farKey])), [
    [2, 1, 2n ** 63n + 1n, -(2n ** 63n) + 1n, Number(-(2n ** 63n) + 1n), Number(2n ** 63n + 1n)],
    [3, 5, 0x01020304],
    [4, 2, "aabb"],
    [2 ** 50, 2, "cc"],
  ]);
});

test("refuses malformed messages with a reason", () => {
  const cases: [number[], string][] = [
    [[0x08], "truncated varint at offset 1"],
    [[0x08, 0x80], "truncated varint at offset 1"],
    [[0x08, ...Array(10).fill(0xff), 1], "varint longer than 10 bytes at offset 1"],
    [[0x00, 1], "field number 0 at offset 1"],
    [[0x11, 1, 2], "truncated fixed64 field 2"],
    [[0x1d, 1], "truncated fixed32 field 3"],
    [[0x0b], "unsupported wire type 3 for field 1"],
    [[0x0a, 3, 1], "field 1 claims 3 bytes past the end"],
    [[0x0a, ...varint(2n ** 60n)], `field 1 claims ${2n ** 60n} bytes past the end`],
  ];
  for (const [bytes, message] of cases) assert.deepEqual(fieldsOf(Uint8Array.from(bytes)).at(-1), message);
});

test("finds the last occurrence of a length-delimited field", () => {
  const message = Uint8Array.from([0x0a, 1, 0xaa, 0x10, 5, 0x0a, 1, 0xbb]);
  assert.deepEqual(lastLengthDelimited(message, 1), Uint8Array.of(0xbb));
  assert.equal(lastLengthDelimited(message, 3), undefined);
});
