// The byte-keyed table under the latest-value cache (byte-key-table.ts): a key given as bytes and as its binary
// string is one key, a key's bytes are copied on set, and random sets, overwrites and deletes (short keys, keys
// longer than the slot's inline part, keys equal but for their length or their last byte) answer as a Map does,
// through the growth and the rehashes that drop deleted slots.
import assert from "node:assert/strict";
import { test } from "node:test";
import { bytesToBinaryString } from "../bytes/text.ts";
import { ByteKeyTable } from "./byte-key-table.ts";

test("a key set as bytes is found by its binary string and the other way round; the key's bytes are copied", () => {
  const table = new ByteKeyTable<string>();
  const key = Uint8Array.from([1, 2, 3, 200, 255, 0]);
  table.set(key, "one");
  assert.equal(table.getString(bytesToBinaryString(key)), "one");
  table.setString("\x07\xff\x00", "two");
  assert.equal(table.get(Uint8Array.from([7, 255, 0])), "two");
  // The table kept its own copy: changing the caller's array changes nothing.
  key[0] = 9;
  assert.equal(table.get(key), undefined);
  assert.equal(table.get(Uint8Array.from([1, 2, 3, 200, 255, 0])), "one");
  // A key equal but for a trailing zero byte is another key.
  assert.equal(table.get(Uint8Array.from([7, 255, 0, 0])), undefined);
  assert.equal(table.get(Uint8Array.from([7, 255])), undefined);
  assert.equal(table.deleteString("\x07\xff\x00"), true);
  assert.equal(table.deleteString("\x07\xff\x00"), false);
  assert.equal(table.get(Uint8Array.from([7, 255, 0])), undefined);
  assert.equal(table.size, 1);
});

test("random sets, overwrites and deletes answer as a Map does, by bytes and by binary string", () => {
  let seed = 12345;
  const next = (n: number) => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed % n;
  };
  // Keys of 1 to 120 bytes, many sharing long prefixes (the inline part is 56 bytes), some differing only at the end.
  const prefix = Uint8Array.from({ length: 120 }, (_, i) => (i * 37) & 0xff);
  const keys: Uint8Array[] = [];
  for (let i = 0; i < 600; i++) {
    const length = 1 + next(120);
    const key = prefix.slice(0, length);
    key[length - 1] = next(256);
    if (next(3) === 0) key[next(length)] = next(256);
    keys.push(key);
  }
  const table = new ByteKeyTable<number>();
  const reference = new Map<string, number>();
  for (let op = 0; op < 20_000; op++) {
    const key = keys[next(keys.length)];
    const sk = bytesToBinaryString(key);
    const byString = next(2) === 0;
    const action = next(10);
    if (action < 5) {
      if (byString) table.setString(sk, op);
      else table.set(key, op);
      reference.set(sk, op);
    } else if (action < 8) {
      assert.equal(table.deleteString(sk), reference.delete(sk));
    } else {
      assert.equal(byString ? table.getString(sk) : table.get(key), reference.get(sk));
    }
    assert.equal(table.size, reference.size);
  }
  for (const key of keys) {
    const sk = bytesToBinaryString(key);
    assert.equal(table.get(key), reference.get(sk));
    assert.equal(table.getString(sk), reference.get(sk));
  }
});

for (const length of [10, 70]) {
  test(`the table grows past many entries of ${length} bytes and keeps every one, then empties by deletes`, () => {
    const table = new ByteKeyTable<number>();
    // The varying bytes at the end: past the slot's inline 56 bytes for the long keys.
    const key = (i: number) => {
      const out = new Uint8Array(length).fill(9);
      out.set([i & 0xff, (i >> 8) & 0xff, (i >> 16) & 0xff], length - 3);
      return out;
    };
    for (let i = 0; i < 50_000; i++) table.set(key(i), i);
    assert.equal(table.size, 50_000);
    for (let i = 0; i < 50_000; i++) assert.equal(table.get(key(i)), i);
    for (let i = 0; i < 50_000; i++) assert.equal(table.deleteString(bytesToBinaryString(key(i))), true);
    assert.equal(table.size, 0);
    // Deleted slots are reused or dropped by a rehash: sets after the deletes are found as before.
    for (let i = 0; i < 1_000; i++) table.set(key(i * 7), i);
    for (let i = 0; i < 1_000; i++) assert.equal(table.get(key(i * 7)), i);
    assert.equal(table.get(key(1)), undefined);
  });
}

test("a deleted key's entry is reused by the next new key; an overwrite keeps its entry", () => {
  const table = new ByteKeyTable<string>();
  const a = Uint8Array.from([1, 2, 3]);
  const b = Uint8Array.from([4, 5]);
  const long = Uint8Array.from({ length: 90 }, (_, i) => i);
  table.set(a, "a");
  table.set(long, "long");
  table.set(b, "b");
  table.setString(bytesToBinaryString(a), "a2");
  assert.equal(table.get(a), "a2");
  // The long key's entry (with its bytes past the inline part) freed, then taken by a short key and a long one.
  assert.equal(table.deleteString(bytesToBinaryString(long)), true);
  assert.equal(table.get(long), undefined);
  const c = Uint8Array.from([7, 7, 7, 7, 7]);
  table.set(c, "c");
  const other = Uint8Array.from({ length: 90 }, (_, i) => (i === 80 ? 0 : i));
  table.set(other, "other");
  assert.equal(table.get(c), "c");
  assert.equal(table.get(other), "other");
  assert.equal(table.get(long), undefined);
  assert.equal(table.get(a), "a2");
  assert.equal(table.get(b), "b");
  assert.equal(table.size, 4);
});
