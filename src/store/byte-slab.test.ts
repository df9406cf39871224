// Byte arrays carved from shared slabs (byte-slab.ts): each is zero-filled, of its own length, independent of
// the others carved beside it, and survives the slab being replaced; large ones get a buffer of their own.
import assert from "node:assert/strict";
import { test } from "node:test";
import { slabBytes, slabCopy } from "./byte-slab.ts";

test("carved arrays are zero-filled, sized, and independent of their neighbours", () => {
  const carved: Uint8Array[] = [];
  // Enough to fill several slabs, so arrays from old slabs are checked after new ones were carved.
  for (let i = 0; i < 400; i++) {
    const a = slabBytes(1 + (i % 300));
    assert.equal(a.length, 1 + (i % 300));
    assert.ok(
      a.every((x) => x === 0),
      "a fresh array is zero-filled",
    );
    a.fill(i & 0xff);
    carved.push(a);
  }
  carved.forEach((a, i) => {
    assert.ok(
      a.every((x) => x === (i & 0xff)),
      `array ${i} keeps its bytes`,
    );
  });
  assert.equal(slabBytes(0).length, 0);
});

test("large arrays get a buffer of their own; copies hold the same bytes in a new array", () => {
  const big = slabBytes(64 * 1024);
  assert.equal(big.byteOffset, 0);
  assert.equal(big.buffer.byteLength, 64 * 1024);
  const source = Uint8Array.from({ length: 200 }, (_, i) => i);
  const copy = slabCopy(source);
  assert.deepEqual(copy, source);
  source[0] = 99;
  assert.equal(copy[0], 0, "the copy does not follow its source");
  assert.ok(copy instanceof Uint8Array && Object.getPrototypeOf(copy) === Uint8Array.prototype);
});
