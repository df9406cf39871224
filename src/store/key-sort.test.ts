import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { test } from "node:test";
import { bytesToBinaryString } from "../bytes/text.ts";
import { sortByBinaryKey } from "./key-sort.ts";

function keyed(keys: Uint8Array[]): { sk: string; n: number }[] {
  return keys.map((k, n) => ({ sk: bytesToBinaryString(k), n }));
}

function bySortedComparison(items: { sk: string; n: number }[]): number[] {
  return [...items].sort((a, b) => (a.sk < b.sk ? -1 : a.sk > b.sk ? 1 : 0)).map((i) => i.n);
}

test("sortByBinaryKey orders as a comparison sort does, for every key shape", () => {
  const cases: Uint8Array[][] = [
    [],
    [new Uint8Array([1])],
    Array.from({ length: 10_000 }, () => new Uint8Array(randomBytes(32))),
    // A shared module prefix, then random bytes of varying lengths (including keys that are prefixes of others).
    Array.from({ length: 5_000 }, (_, i) => new Uint8Array([2, 20, ...randomBytes(i % 7), ...(i % 3 ? [] : [0])])),
    // Long shared prefixes (past the radix depth), all bytes 0 and 255, one-byte keys.
    Array.from({ length: 3_000 }, () => new Uint8Array([...new Uint8Array(70).fill(255), ...randomBytes(2)])),
    Array.from({ length: 600 }, (_, i) => new Uint8Array([i % 2 === 0 ? 0 : 255, ...randomBytes(1 + (i % 3))])),
    Array.from({ length: 256 }, (_, i) => new Uint8Array([255 - i])),
  ];
  for (const keys of cases) {
    // Distinct keys only, as a layer's pending writes are.
    const unique = [...new Map(keys.map((k) => [bytesToBinaryString(k), k])).values()];
    const items = keyed(unique);
    const expected = bySortedComparison(items);
    assert.deepEqual(
      sortByBinaryKey(items).map((i) => i.n),
      expected,
    );
  }
});
