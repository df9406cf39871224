import assert from "node:assert/strict";
import { test } from "node:test";
import { fromStoreJson, toStoreJson } from "./store-json.ts";

/** The format's definition: JSON.stringify with this replacer (what toStoreJson did before it wrote plain data itself). */
function byReplacer(value: unknown): string | undefined {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v === "bigint") return { $n: v.toString() };
    if (v instanceof Uint8Array) return { $b: Buffer.from(v).toString("hex") };
    return v;
  });
}

test("writes the same text as JSON.stringify with the store's replacer, whatever the value", () => {
  const offset = new Uint8Array(new ArrayBuffer(8), 2, 3).fill(0xab);
  const values: unknown[] = [
    undefined,
    null,
    0,
    -0,
    1.5,
    Number.NaN,
    Number.POSITIVE_INFINITY,
    'quote " backslash \\ line\u2028 lone \ud800',
    -12345678901234567890n,
    new Uint8Array(0),
    offset,
    // A Buffer's toJSON runs before any replacer: the format keeps what JSON.stringify makes of it.
    Buffer.from([1, 2]),
    { skipped: undefined, fn: () => 1, sym: Symbol("s"), 2: "int keys first", 1: true, a: [undefined, () => 2, 3n] },
    { nested: { deeper: [{ id: offset, height: 7n }] } },
    new Date(0),
    { toJSON: () => "own toJSON" },
    new Map([[1, 2]]),
    Object.assign(Object.create(null) as object, { x: 1n }),
    [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1n]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]],
  ];
  for (const [index, value] of values.entries()) assert.equal(toStoreJson(value), byReplacer(value), `value ${index}`);
});

test("round-trips bigints and byte arrays", () => {
  const value = { height: 7n, hash: Uint8Array.of(1, 2, 255), list: [{ power: -1n }], name: "v" };
  assert.deepEqual(fromStoreJson(toStoreJson(value)), value);
});

test("a cycle throws as JSON.stringify does", () => {
  const cycle: Record<string, unknown> = {};
  cycle.self = cycle;
  assert.throws(() => toStoreJson(cycle), TypeError);
});

test("a shared memo writes an array met again as it was first written, to the same text", () => {
  const set = [{ address: Uint8Array.of(1, 2), votingPower: 10n, proposerPriority: -3n }];
  const state = { lastValidators: set, validators: set, nextValidators: [...set], height: 4n };
  const memo = new Map();
  assert.equal(toStoreJson(set, memo), byReplacer(set));
  assert.equal(toStoreJson(state, memo), byReplacer(state));
  assert.ok(memo.has(set));
  const cycle: unknown[] = [1n];
  cycle.push(cycle);
  assert.throws(() => toStoreJson(cycle, new Map()), TypeError);
});
