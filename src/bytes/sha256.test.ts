import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { test } from "node:test";
import { sha256 } from "./sha256.ts";

function reference(...parts: Uint8Array[]): Uint8Array {
  const h = createHash("sha256");
  for (const part of parts) h.update(part);
  return new Uint8Array(h.digest());
}

test("sha256 of parts is the digest of their concatenation: one part, small parts joined, large parts streamed", () => {
  const cases: Uint8Array[][] = [
    [new Uint8Array(0)],
    [new Uint8Array(randomBytes(75))],
    [Uint8Array.of(1), new Uint8Array(randomBytes(32)), new Uint8Array(randomBytes(32))],
    [Uint8Array.of(0), new Uint8Array(0), new Uint8Array(randomBytes(100))],
    [Uint8Array.of(0), new Uint8Array(randomBytes(4095))], // 4,096 bytes: still joined
    [Uint8Array.of(0), new Uint8Array(randomBytes(5000))], // past the limit: streamed
    // A view into a larger buffer must hash its own bytes only.
    [new Uint8Array(randomBytes(64)).subarray(8, 40), new Uint8Array(randomBytes(64)).subarray(3)],
  ];
  for (const parts of cases) {
    const got = sha256(...parts);
    assert.equal(got.length, 32);
    assert.deepEqual(got, reference(...parts), `parts of sizes ${parts.map((p) => p.length)}`);
  }
});
