// Byte arrays carved from shared slabs (byte-slab.ts): each is zero-filled, of its own length, independent of
// the others carved beside it, and survives the slab being replaced; large ones get a buffer of their own.
import assert from "node:assert/strict";
import { test } from "node:test";
import { ByteSlab, slabBytes, slabCopy } from "./byte-slab.ts";

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

test("a slab sequence of its own carves from its own slabs, a fresh one when full, own buffers past its size", () => {
  const slabs = new ByteSlab(64);
  const a = slabs.copy(Uint8Array.of(1, 2, 3));
  const b = slabs.copy(Uint8Array.of(4, 5));
  assert.equal(a.buffer, b.buffer, "small arrays share the current slab");
  assert.equal(a.buffer.byteLength, 64);
  assert.equal(b.byteOffset, 3);
  const c = slabs.bytes(60);
  assert.notEqual(c.buffer, a.buffer, "an array that does not fit starts a fresh slab");
  assert.deepEqual([...a, ...b], [1, 2, 3, 4, 5], "the old slab's arrays keep their bytes");
  const big = slabs.bytes(65);
  assert.equal(big.buffer.byteLength, 65, "an array larger than the slab gets its own buffer");
  assert.equal(slabs.bytes(4).buffer, c.buffer, "and does not take the current slab's room");
});
