import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { test } from "node:test";
import { compareBytes } from "../bytes/compare.ts";
import { keyPrefix } from "./tree-node.ts";

test("keyPrefix: a smaller prefix means a smaller key, and it stays a 32-bit integer", () => {
  const keys: Uint8Array[] = [new Uint8Array(0), new Uint8Array([0]), new Uint8Array([255, 255, 255, 255, 1])];
  for (let i = 0; i < 3_000; i++) {
    const key = new Uint8Array(randomBytes(i % 7));
    // Extreme first bytes and shared prefixes, where the sign shift and the padding matter.
    if (key.length > 0 && i % 3 === 0) key[0] = i % 2 === 0 ? 0 : 255;
    if (key.length > 1 && i % 4 === 0) key[1] = 0;
    keys.push(key);
  }
  for (let i = 0; i < keys.length; i++) {
    const a = keys[i];
    const pa = keyPrefix(a);
    assert.ok(Number.isInteger(pa) && pa >= -(2 ** 31) && pa < 2 ** 31, `prefix of [${a}] is ${pa}`);
    for (let j = i + 1; j < Math.min(keys.length, i + 40); j++) {
      const b = keys[j];
      const pb = keyPrefix(b);
      if (pa < pb) assert.ok(compareBytes(a, b) < 0, `[${a}] < [${b}]`);
      if (pa > pb) assert.ok(compareBytes(a, b) > 0, `[${a}] > [${b}]`);
    }
  }
});
