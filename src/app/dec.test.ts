import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import {
  chopPrecisionAndRound,
  DEC_ONE,
  formatDecimal,
  mulDec,
  parseDecimal,
  parseDecimalInput,
  quoDec,
  truncateDec,
} from "./dec.ts";

test("chopPrecisionAndRound rounds half to even, symmetric for negatives", () => {
  const half = DEC_ONE / 2n;
  assert.equal(chopPrecisionAndRound(2n * DEC_ONE + half), 2n);
  assert.equal(chopPrecisionAndRound(3n * DEC_ONE + half), 4n);
  assert.equal(chopPrecisionAndRound(3n * DEC_ONE + half - 1n), 3n);
  assert.equal(chopPrecisionAndRound(3n * DEC_ONE + half + 1n), 4n);
  assert.equal(chopPrecisionAndRound(-(3n * DEC_ONE + half)), -4n);
});

test("quo and mul match upstream LegacyDec results", () => {
  // 1/3 = 0.333333333333333333; 2/3 rounds up at the 18th place.
  assert.equal(formatDecimal(quoDec(DEC_ONE, 3n * DEC_ONE)), "0.333333333333333333");
  assert.equal(formatDecimal(quoDec(2n * DEC_ONE, 3n * DEC_ONE)), "0.666666666666666667");
  assert.equal(
    formatDecimal(mulDec(parseDecimal("0.5"), parseDecimal("0.000000000000000001"))),
    "0.000000000000000000",
  );
  assert.equal(
    formatDecimal(mulDec(parseDecimal("1.5"), parseDecimal("0.000000000000000001"))),
    "0.000000000000000002",
  );
  assert.equal(truncateDec(parseDecimal("9.99")), 9n);
  assert.throws(() => quoDec(DEC_ONE, 0n), /division by zero/);
  assert.throws(() => parseDecimal("1.0000000000000000001"), /at most 18 decimal places/);
});

test("property: quo(mul(a, b), b) is within one unit of a for b ≥ 1", () => {
  fc.assert(
    fc.property(fc.bigInt({ min: 0n, max: 10n ** 30n }), fc.bigInt({ min: DEC_ONE, max: 10n ** 30n }), (a, b) => {
      const back = quoDec(mulDec(a, b), b);
      const diff = back > a ? back - a : a - back;
      assert.ok(diff <= 1n, `a=${a} b=${b} back=${back}`);
    }),
  );
});

test("user input is parsed as upstream's LegacyNewDecFromStr: no spaces, no bare point, no empty text", () => {
  assert.equal(parseDecimalInput("0.5"), DEC_ONE / 2n);
  assert.equal(parseDecimalInput("-1"), -DEC_ONE);
  assert.equal(parseDecimalInput("7"), 7n * DEC_ONE);
  assert.equal(parseDecimalInput("1.000000000000000000"), DEC_ONE);
  for (const bad of [
    " 0.5",
    "0.5 ",
    "0.",
    ".5",
    "",
    "-",
    "1.2.3",
    "0x1",
    "1e3",
    "0.0000000000000000001",
    `1${"0".repeat(80)}`,
  ]) {
    assert.throws(
      () => parseDecimalInput(bad, "weight"),
      new RegExp(
        `^DecimalError: invalid weight ${JSON.stringify(bad).replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: expected a decimal number`,
      ),
      bad,
    );
  }
});

test("values read back from state keep the lenient parse they always had (an unset field is 0)", () => {
  assert.equal(parseDecimal(""), 0n);
  assert.equal(parseDecimal(" 0.5"), DEC_ONE / 2n);
  assert.equal(parseDecimal("5."), 5n * DEC_ONE);
  assert.throws(() => parseDecimal(".5"), /invalid decimal "\.5"/);
});
