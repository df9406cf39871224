import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { SnappyError, snappyUncompress } from "./snappy.ts";

const text = (bytes: Uint8Array) => Buffer.from(bytes).toString("latin1");

describe("snappyUncompress", () => {
  it("decodes literals and the three kinds of copy, overlapping runs among them", () => {
    // "abc", then a 1-byte-offset copy of 9 bytes from 3 back (it overlaps what it writes).
    assert.equal(text(snappyUncompress(Uint8Array.of(12, 0x08, 97, 98, 99, 0x15, 3))), "abcabcabcabc");
    // 70 literal bytes (length in one extra byte), then 10 bytes from 70 back (2-byte offset), then 5 from 80 back
    // (4-byte offset).
    const literal = Buffer.from("x".repeat(35) + "y".repeat(35), "latin1");
    const stream = Uint8Array.from([85, 60 << 2, 69, ...literal, (9 << 2) | 2, 70, 0, (4 << 2) | 3, 80, 0, 0, 0]);
    assert.equal(text(snappyUncompress(stream)), `${"x".repeat(35)}${"y".repeat(35)}${"x".repeat(10)}${"x".repeat(5)}`);
  });

  it("refuses a stream that does not decode to its stated length", () => {
    for (const bad of [
      Uint8Array.of(4, 0x08, 97, 98, 99), // 3 bytes where 4 are stated
      Uint8Array.of(2, 0x08, 97, 98, 99), // more than stated
      Uint8Array.of(6, 0x08, 97, 98, 99, 0x01, 9), // a copy from before the start
      Uint8Array.of(6, 0x08, 97, 98), // a literal cut short
      Uint8Array.of(0x80), // a length cut short
    ]) {
      assert.throws(() => snappyUncompress(bad), SnappyError);
    }
  });

  it("refuses a stated length no input of its size can decode to, before allocating it", () => {
    // 2 GiB stated over four bytes of body: refused by the header check, not by running out of memory or input.
    const huge = Uint8Array.of(0x80, 0x80, 0x80, 0x80, 0x08, 0x08, 97, 98, 99, 0);
    assert.throws(() => snappyUncompress(huge), /stated length 2147483648 is more than 5 bytes can hold/);
    // The densest stream there is, a literal then 3-byte copies of 64 bytes, is still read whole.
    const copies = 40;
    const length = 1 + copies * 64;
    const header = [(length & 0x7f) | 0x80, length >>> 7];
    const stream = Uint8Array.from([
      ...header,
      0x00,
      97,
      ...Array.from({ length: copies }, () => [(63 << 2) | 2, 1, 0]).flat(),
    ]);
    assert.equal(text(snappyUncompress(stream)), "a".repeat(length));
  });
});
