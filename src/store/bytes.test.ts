// prefixEnd: the first key after every key with the prefix, as a fresh array: a Buffer's slice() is a view, so
// an increment written into it once changed the caller's own bytes (an ABCI Query's request, before its frames
// became plain Uint8Arrays).
import assert from "node:assert/strict";
import { test } from "node:test";
import { prefixEnd } from "../bytes/compare.ts";

test("prefixEnd increments the last byte below 0xff and leaves the prefix untouched, Buffer or not", () => {
  for (const make of [(bytes: number[]) => Uint8Array.from(bytes), (bytes: number[]) => Buffer.from(bytes)]) {
    const prefix = make([0x01, 0x02, 0xff]);
    assert.deepEqual([...(prefixEnd(prefix) ?? [])], [0x01, 0x03]);
    assert.deepEqual([...prefix], [0x01, 0x02, 0xff], "the caller's prefix is not changed");
  }
  assert.equal(prefixEnd(Uint8Array.from([0xff, 0xff])), undefined);
  assert.equal(prefixEnd(new Uint8Array(0)), undefined);
});
