// Arbitrary JSON for the file formats under fuzz. Purely random keys almost never hit the fields a parser reads, so
// object keys are drawn mostly from the format's own field names, and leaves lean towards the values that sit on a
// parser's edges: numbers beyond 2^53 and 2^63, integers written as strings, empty and odd strings.
import fc from "fast-check";

/** A parsed JSON value (what JSON.parse returns). */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Integers that sit on the edges parsers check: 0, ±1, 2^53, 2^63, 2^64 and beyond. */
export const edgeIntegers: fc.Arbitrary<bigint> = fc.oneof(
  fc.constantFrom(
    0n,
    1n,
    -1n,
    2n ** 53n,
    2n ** 53n + 1n,
    2n ** 63n - 1n,
    2n ** 63n,
    -(2n ** 63n),
    2n ** 64n,
    10n ** 30n,
  ),
  fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }),
);

/** Leaves: strings (often digits or near the given words), numbers of every kind, booleans, null. */
export function jsonLeaf(words: readonly string[] = []): fc.Arbitrary<Json> {
  const strings: fc.Arbitrary<string>[] = [fc.string({ maxLength: 20 }), fc.string({ unit: "grapheme", maxLength: 8 })];
  if (words.length > 0) strings.push(fc.constantFrom(...words));
  return fc.oneof(
    fc.oneof(...strings),
    edgeIntegers.map(String),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    edgeIntegers.map(Number),
    fc.boolean(),
    fc.constant(null),
  );
}

/**
 * Any JSON value whose object keys are mostly `keys` (the format's field names), nested a few levels at most and
 * with a few entries per level, so one case stays small.
 */
export function jsonNear(keys: readonly string[], words: readonly string[] = []): fc.Arbitrary<Json> {
  const key =
    keys.length > 0
      ? fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...keys) }, fc.string({ maxLength: 8 }))
      : fc.string();
  const { value } = fc.letrec<{ value: Json }>((tie) => ({
    value: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      jsonLeaf(words),
      fc.array(tie("value"), { maxLength: 3 }),
      fc.dictionary(key, tie("value"), { maxKeys: 4 }),
    ),
  }));
  return value;
}
