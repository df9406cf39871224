import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { describe, it } from "node:test";
import { crc32c, maskedCrc32c } from "./crc32c.ts";

/** The plain definition, one bit at a time, to check the sliced tables against. */
function bitwise(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const byte of bytes) {
    c ^= byte;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0x82f63b78 ^ (c >>> 1) : c >>> 1;
  }
  return ~c >>> 0;
}

describe("crc32c", () => {
  it("gives the standard check value and the bitwise definition's CRC at every length and alignment", () => {
    assert.equal(crc32c(Buffer.from("123456789")), 0xe3069283);
    const data = randomBytes(300);
    for (let start = 0; start < 8; start++) {
      for (let end = start; end <= data.length; end += 7) {
        assert.equal(crc32c(data.subarray(start, end)), bitwise(data.subarray(start, end)), `${start}..${end}`);
      }
    }
  });

  it("masks as LevelDB does", () => {
    const c = crc32c(Buffer.from("abc"));
    assert.equal(maskedCrc32c(Buffer.from("abc")), (((c >>> 15) | (c << 17)) + 0xa282ead8) >>> 0);
  });
});
