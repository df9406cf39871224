// ValueDigests reuses the previous value's digest only for the same bytes: every digest it returns is the value's own
// SHA-256, whatever repeats, lengths and reused input buffers the stream has.
import assert from "node:assert/strict";
import { hash } from "node:crypto";
import { test } from "node:test";
import { ValueDigests } from "./value-digests.ts";

const sha = (bytes: Uint8Array) => hash("sha256", bytes, "binary");

test("every digest is the value's own SHA-256, across repeats, near-misses, long values and a reused buffer", () => {
  const digests = new ValueDigests();
  const long = new Uint8Array(200).fill(7);
  const values = [
    new Uint8Array(0),
    new Uint8Array(0),
    Uint8Array.of(1, 2, 3),
    Uint8Array.of(1, 2, 3),
    Uint8Array.of(1, 2, 4), // same length, last byte differs
    Uint8Array.of(1, 2),
    new Uint8Array(64).fill(9),
    new Uint8Array(64).fill(9),
    long,
    long,
    new Uint8Array(200).fill(8), // a long value after a long one: never taken for the remembered short one
    Uint8Array.of(1, 2),
  ];
  for (const value of values) assert.equal(digests.of(value), sha(value));
  // The caller may reuse its buffer: what is remembered is a copy, not the caller's array.
  const reused = Uint8Array.of(5, 5, 5);
  assert.equal(digests.of(reused), sha(Uint8Array.of(5, 5, 5)));
  reused[2] = 6;
  assert.equal(digests.of(reused), sha(Uint8Array.of(5, 5, 6)));
});
