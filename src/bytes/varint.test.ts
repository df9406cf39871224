import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { encodeUvarint, readUvarint, UvarintError } from "./varint.ts";

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");

test("encodes the reference check values", () => {
  const cases: Array<[number, string]> = [
    [0, "00"],
    [5, "05"],
    [127, "7f"],
    [128, "8001"],
    [300, "ac02"],
    [65536, "808004"],
    [22020096, "8080c00a"],
    // 2^32 + 1: must not wrap like a 32-bit bit operation would.
    [4294967297, "8180808010"],
  ];
  for (const [value, expected] of cases) {
    assert.equal(hex(encodeUvarint(value)), expected, `encode ${value}`);
    assert.deepEqual(
      readUvarint(Buffer.from(expected, "hex")),
      { value, length: expected.length / 2 },
      `read ${value}`,
    );
  }
});

test("reads at an offset and ignores bytes after the varint", () => {
  assert.deepEqual(readUvarint(Uint8Array.from([0xff, 0xac, 0x02, 0x99]), 1), { value: 300, length: 2 });
});

test("an unterminated varint is incomplete, not an error", () => {
  assert.equal(readUvarint(new Uint8Array(0)), undefined);
  assert.equal(readUvarint(Uint8Array.from([0x80])), undefined);
  assert.equal(readUvarint(Uint8Array.from([0x80, 0x80, 0x80])), undefined);
});

test("a varint longer than 10 bytes or beyond 2^53 is refused with a reason", () => {
  assert.throws(
    () => readUvarint(new Uint8Array(11).fill(0x80)),
    (e: unknown) => {
      assert.ok(e instanceof UvarintError);
      assert.match(e.message, /longer than 10 bytes/);
      return true;
    },
  );
  assert.throws(() => readUvarint(Buffer.from("ffffffffffffffffff01", "hex")), /exceeds 9007199254740991/);
});

test("encode refuses values a length can never have", () => {
  assert.throws(() => encodeUvarint(-1), /non-negative safe integer, got -1/);
  assert.throws(() => encodeUvarint(1.5), /got 1.5/);
});

test("round trips every safe integer", () => {
  fc.assert(
    fc.property(fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), (n) => {
      const bytes = encodeUvarint(n);
      assert.deepEqual(readUvarint(bytes), { value: n, length: bytes.length });
      // Every strict prefix is incomplete.
      for (let i = 0; i < bytes.length; i++) assert.equal(readUvarint(bytes.subarray(0, i)), undefined);
    }),
  );
});
