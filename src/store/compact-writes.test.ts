// The compact form of a layer's pending writes (compact-writes.ts) and a layer's switch to it (cache-layer.ts):
// checked against a plain model of the same writes over the same parent — reads, merged iteration in both
// directions over ranges, deletes, overwrites, writes made while iterating, very long keys and values, flushes.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import fc from "fast-check";
import { compareBytes } from "../bytes/compare.ts";
import { bytesToBinaryString } from "../bytes/text.ts";
import { CacheLayer, setCompactAfter } from "./cache-layer.ts";
import { CompactSortedWrites, CompactWrites } from "./compact-writes.ts";
import type { KVSource, ScanRange } from "./kv-source.ts";

/** A parent layer over fixed entries. */
class FixedSource implements KVSource {
  readonly rows: [Uint8Array, Uint8Array][];
  constructor(rows: [Uint8Array, Uint8Array][]) {
    this.rows = [...rows].sort((x, y) => compareBytes(x[0], y[0]));
  }
  readSync(key: Uint8Array): Uint8Array | undefined {
    return this.rows.find(([k]) => compareBytes(k, key) === 0)?.[1];
  }
  async *scan(range: ScanRange): AsyncIterable<[Uint8Array, Uint8Array]> {
    const inRange = this.rows.filter(
      ([k]) =>
        (range.lo === undefined || compareBytes(k, range.lo) >= 0) &&
        (range.hi === undefined || compareBytes(k, range.hi) < 0),
    );
    if (range.reverse) inRange.reverse();
    for (const row of inRange) yield row;
  }
}

/** What a layer over `parent` holding `writes` should show (null: deleted). */
function expected(
  parent: FixedSource,
  writes: Map<string, Uint8Array | null>,
  lo?: Uint8Array,
  hi?: Uint8Array,
  reverse = false,
): string[] {
  const all = new Map<string, Uint8Array>();
  for (const [k, v] of parent.rows) all.set(bytesToBinaryString(k), v);
  for (const [k, v] of writes) {
    if (v === null) all.delete(k);
    else all.set(k, v);
  }
  const loS = lo === undefined ? undefined : bytesToBinaryString(lo);
  const hiS = hi === undefined ? undefined : bytesToBinaryString(hi);
  const keys = [...all.keys()].filter((k) => (loS === undefined || k >= loS) && (hiS === undefined || k < hiS)).sort();
  if (reverse) keys.reverse();
  return keys.map((k) => `${k}=${bytesToBinaryString(all.get(k) as Uint8Array)}`);
}

async function scanned(layer: CacheLayer, range: ScanRange): Promise<string[]> {
  const out: string[] = [];
  for await (const [k, v] of layer.scan(range)) out.push(`${bytesToBinaryString(k)}=${bytesToBinaryString(v)}`);
  return out;
}

function bytesOf(...xs: number[]): Uint8Array {
  return new Uint8Array(xs);
}

describe("compact layers", () => {
  let previous: number;
  before(() => {
    previous = setCompactAfter(8);
  });
  after(() => {
    setCompactAfter(previous);
  });

  test("random writes, reads and scans match the model, before and after the switch", async () => {
    const keyArb = fc
      .uint8Array({ minLength: 1, maxLength: 4 })
      .map((k) => k.map((x) => [0, 1, 0x61, 0x62, 0xff][x % 5]));
    const opArb = fc.oneof(
      fc.record({ kind: fc.constant("set" as const), key: keyArb, value: fc.uint8Array({ maxLength: 6 }) }),
      fc.record({ kind: fc.constant("delete" as const), key: keyArb }),
      fc.record({ kind: fc.constant("get" as const), key: keyArb }),
      fc.record({
        kind: fc.constant("scan" as const),
        lo: fc.option(keyArb, { nil: undefined }),
        hi: fc.option(keyArb, { nil: undefined }),
        reverse: fc.boolean(),
        // Writes made after the scan began and before it is read: the scan must not see them.
        during: fc.array(fc.tuple(keyArb, fc.option(fc.uint8Array({ maxLength: 3 }), { nil: null })), {
          maxLength: 4,
        }),
      }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(keyArb, fc.uint8Array({ maxLength: 4 })), { maxLength: 12 }),
        fc.array(opArb, { minLength: 1, maxLength: 80 }),
        async (rows, ops) => {
          const parent = new FixedSource(dedupe(rows));
          const layer = new CacheLayer(parent);
          const model = new Map<string, Uint8Array | null>();
          const write = (key: Uint8Array, value: Uint8Array | null) => {
            if (value === null) layer.delete(key);
            else layer.set(key, value);
            model.set(bytesToBinaryString(key), value === null ? null : value.slice());
          };
          for (const op of ops) {
            if (op.kind === "set") write(op.key, op.value);
            else if (op.kind === "delete") write(op.key, null);
            else if (op.kind === "get") {
              const sk = bytesToBinaryString(op.key);
              const want = model.has(sk) ? (model.get(sk) ?? undefined) : parent.readSync(op.key);
              assert.deepEqual(layer.getNow(op.key), want);
            } else {
              const range = { lo: op.lo, hi: op.hi, reverse: op.reverse };
              if (op.lo !== undefined && op.hi !== undefined && compareBytes(op.lo, op.hi) >= 0) continue;
              const want = expected(parent, model, op.lo, op.hi, op.reverse);
              const iterator = layer.scan(range)[Symbol.asyncIterator]();
              for (const [k, v] of op.during) write(k, v);
              const got: string[] = [];
              for (let r = await iterator.next(); !r.done; r = await iterator.next()) {
                got.push(`${bytesToBinaryString(r.value[0])}=${bytesToBinaryString(r.value[1])}`);
              }
              assert.deepEqual(got, want);
            }
          }
          assert.equal(layer.size, model.size);
          assert.deepEqual([...layer.pendingKeys()].sort(), [...model.keys()].sort());
          assert.deepEqual(
            await scanned(layer, { lo: undefined, hi: undefined, reverse: false }),
            expected(parent, model),
          );
        },
      ),
      { numRuns: 300 },
    );
  });

  test("a layer switches to the compact form past the threshold and keeps every write", async () => {
    const layer = new CacheLayer(new FixedSource([[bytesOf(10), bytesOf(50)]]));
    for (let i = 0; i < 8; i++) layer.set(bytesOf(9 - i), bytesOf(i));
    assert.ok(Array.isArray(layer.sortedWrites()), "8 writes: the small form");
    layer.delete(bytesOf(10));
    const sorted = layer.sortedWrites();
    assert.ok(sorted instanceof CompactSortedWrites, "9 writes > 8: compact");
    assert.deepEqual(
      [...sorted].map((w) => [w.key[0], w.value?.[0] ?? null]),
      [
        [2, 7],
        [3, 6],
        [4, 5],
        [5, 4],
        [6, 3],
        [7, 2],
        [8, 1],
        [9, 0],
        [10, null],
      ],
    );
    assert.equal(layer.getNow(bytesOf(10)), undefined);
    assert.deepEqual(layer.getNow(bytesOf(9)), bytesOf(0));
    assert.equal(layer.size, 9);
    layer.clear();
    assert.equal(layer.size, 0);
    assert.deepEqual(layer.getNow(bytesOf(10)), bytesOf(50));
    layer.set(bytesOf(1), bytesOf(1));
    assert.ok(Array.isArray(layer.sortedWrites()), "cleared: the small form again");
  });

  test("a value written again over and over, with scans between: each scan sees its own moment", async () => {
    const layer = new CacheLayer(new FixedSource([]));
    for (let i = 0; i < 20; i++) layer.set(bytesOf(i), bytesOf(i));
    const key = bytesOf(3);
    const iterators: [AsyncIterator<[Uint8Array, Uint8Array]>, number][] = [];
    for (let round = 0; round < 5; round++) {
      // Same length and shorter values: written over in place unless a scan began since.
      layer.set(key, bytesOf(100 + round, 7));
      layer.set(key, bytesOf(100 + round));
      iterators.push([layer.scan({ lo: key, hi: bytesOf(4), reverse: false })[Symbol.asyncIterator](), 100 + round]);
    }
    layer.set(key, bytesOf(200));
    for (const [iterator, want] of iterators) {
      const first = await iterator.next();
      assert.deepEqual(first.value, [key, bytesOf(want)]);
      assert.equal((await iterator.next()).done, true);
    }
    assert.deepEqual(layer.getNow(key), bytesOf(200));
  });

  test("keys and values of any length, past a chunk's and an own array's bounds", async () => {
    const layer = new CacheLayer(new FixedSource([]));
    const long = (n: number, fill: number) => new Uint8Array(n).fill(fill);
    const cases: [Uint8Array, Uint8Array][] = [
      [long(70, 1), long(0, 0)],
      [long(20_000, 2), long(5, 9)],
      [long(3, 3), long(300_000, 8)],
      [long(300_000, 4), long(17_000, 7)],
    ];
    for (let i = 0; i < 2000; i++) layer.set(bytesOf(0x10, i >> 8, i & 0xff), long(150, i & 0xff));
    for (const [k, v] of cases) layer.set(k, v);
    for (const [k, v] of cases) assert.deepEqual(layer.getNow(k), v);
    assert.deepEqual(layer.getNow(long(20_000, 2).fill(3, 19_999)), undefined);
    const keys = (await collect(layer)).map(([k]) => k);
    const sorted = [...keys].sort(compareBytes);
    assert.deepEqual(keys, sorted);
    assert.equal(keys.length, 2004);
    // Written again, longer: appended; shorter: in place.
    layer.set(cases[1][0], long(40_000, 6));
    layer.set(cases[2][0], long(2, 6));
    assert.deepEqual(layer.getNow(cases[1][0]), long(40_000, 6));
    assert.deepEqual(layer.getNow(cases[2][0]), long(2, 6));
  });

  test("a value read back is a copy: the caller's array is neither kept nor shared", () => {
    const layer = new CacheLayer(new FixedSource([]));
    for (let i = 0; i < 9; i++) layer.set(bytesOf(i), bytesOf(i));
    const value = bytesOf(1, 2, 3);
    layer.set(bytesOf(1), value);
    value[0] = 99;
    assert.deepEqual(layer.getNow(bytesOf(1)), bytesOf(1, 2, 3));
  });

  test("flushInto: an empty parent takes the compact set whole; a parent with writes takes each write", () => {
    const base = new FixedSource([]);
    const parent = new CacheLayer(base);
    const child = new CacheLayer(parent);
    for (let i = 0; i < 12; i++) child.set(bytesOf(i), bytesOf(i));
    const before = child.sortedWrites() as CompactSortedWrites;
    child.flushInto(parent);
    assert.equal(child.size, 0);
    const handed = parent.sortedWrites() as CompactSortedWrites;
    assert.equal(handed.writes, before.writes, "the same set, no copy");
    assert.equal(handed.stamp, before.stamp);

    const other = new CacheLayer(parent);
    other.set(bytesOf(3), bytesOf(33));
    other.delete(bytesOf(4));
    for (let i = 20; i < 40; i++) other.set(bytesOf(i), bytesOf(i));
    other.flushInto(parent);
    assert.equal(parent.size, 12 + 20);
    assert.deepEqual(parent.getNow(bytesOf(3)), bytesOf(33));
    assert.equal(parent.getNow(bytesOf(4)), undefined);
    assert.deepEqual(parent.getNow(bytesOf(39)), bytesOf(39));

    // A compact child into a small parent that holds writes.
    const small = new CacheLayer(base);
    small.set(bytesOf(7), bytesOf(70));
    const big = new CacheLayer(small);
    for (let i = 0; i < 10; i++) big.set(bytesOf(i + 1), bytesOf(i));
    big.flushInto(small);
    assert.equal(small.size, 10);
    assert.deepEqual(small.getNow(bytesOf(7)), bytesOf(6));
  });

  test("the sort of many keys in random order is byte order (the radix pass over the chunks)", () => {
    const writes = new CompactWrites();
    const keys: Uint8Array[] = [];
    let seed = 12345;
    const rand = () => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed >>> 8;
    };
    for (let i = 0; i < 20_000; i++) {
      // Shared prefixes of several lengths, then random bytes; some keys are prefixes of others.
      const prefix = rand() % 4;
      const n = 1 + (rand() % 12);
      const key = new Uint8Array(prefix + n);
      for (let j = 0; j < prefix; j++) key[j] = 0x42;
      for (let j = prefix; j < key.length; j++) key[j] = rand() % 7 === 0 ? 0 : rand() & 0xff;
      keys.push(key);
      writes.put(key, key);
    }
    const want = [...new Map(keys.map((k) => [bytesToBinaryString(k), k])).values()].sort(compareBytes);
    const got = [...writes.sorted()].map((w) => w.key);
    assert.equal(got.length, want.length);
    assert.deepEqual(got, want);
    // More writes after a sort merge into the order.
    for (let i = 0; i < 500; i++) writes.put(bytesOf(rand() & 0xff, rand() & 0xff), bytesOf(1));
    const again = [...writes.sorted().keys()];
    for (let i = 1; i < again.length; i++) assert.ok(compareBytes(again[i - 1], again[i]) < 0);
  });
});

function dedupe(rows: [Uint8Array, Uint8Array][]): [Uint8Array, Uint8Array][] {
  return [...new Map(rows.map(([k, v]) => [bytesToBinaryString(k), [k, v] as [Uint8Array, Uint8Array]])).values()];
}

async function collect(layer: CacheLayer): Promise<[Uint8Array, Uint8Array][]> {
  const out: [Uint8Array, Uint8Array][] = [];
  for await (const entry of layer.scan({ lo: undefined, hi: undefined, reverse: false })) out.push(entry);
  return out;
}
