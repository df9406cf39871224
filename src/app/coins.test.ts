// Coins and decimal coins: upstream's denom rule, validation messages, parsing and arithmetic.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import {
  addCoins,
  type Coin,
  coinsToString,
  isAllGTE,
  isAnyGTE,
  normalizeCoins,
  parseCoins,
  subCoins,
  validateCoins,
  validateDenom,
} from "./coins.ts";
import { decCoinsToString, parseDec, parseDecCoins, requiredFees } from "./dec-coins.ts";

const denomArb = fc.stringMatching(/^[a-z][a-z0-9]{2,8}$/);
const coinsArb = fc
  .uniqueArray(fc.record({ denom: denomArb, amount: fc.bigInt({ min: 1n, max: 10n ** 30n }) }), {
    selector: (c) => c.denom,
    maxLength: 5,
  })
  .map((list) => normalizeCoins(list));

describe("coins", () => {
  it("validates denoms and lists with upstream's messages", () => {
    validateDenom("stake");
    validateDenom("ibc/27394FB092D2ECCD56123C74F36E4C1F926001CEADA9CA97EA622B25F41E5EB2");
    assert.throws(() => validateDenom("ab"), { message: "invalid denom: ab" });
    assert.throws(() => validateDenom("1abc"), { message: "invalid denom: 1abc" });
    assert.throws(() => validateCoins([{ denom: "stake", amount: 0n }]), {
      message: "coin 0stake amount is not positive",
    });
    assert.throws(
      () =>
        validateCoins([
          { denom: "zzz", amount: 1n },
          { denom: "aaa", amount: 1n },
        ]),
      { message: "denomination aaa is not sorted" },
    );
    assert.throws(
      () =>
        validateCoins([
          { denom: "aaa", amount: 1n },
          { denom: "aaa", amount: 2n },
        ]),
      { message: "duplicate denomination aaa" },
    );
  });

  it("parses coin strings (sorted, zero dropped, decimals truncated) and prints them back", () => {
    assert.deepEqual(parseCoins("10stake,5 atom, 0zero, 1.9uatom"), [
      { denom: "atom", amount: 5n },
      { denom: "stake", amount: 10n },
      { denom: "uatom", amount: 1n },
    ]);
    assert.deepEqual(parseCoins(""), []);
    assert.throws(() => parseCoins("ten stake"), { message: "invalid decimal coin expression: ten stake" });
    fc.assert(fc.property(coinsArb, (coins) => assert.deepEqual(parseCoins(coinsToString(coins)), coins)));
  });

  it("adds, subtracts and compares like upstream", () => {
    fc.assert(
      fc.property(coinsArb, coinsArb, (a, b) => {
        const sum = addCoins(a, b);
        validateCoins(sum);
        const back = subCoins(sum, b);
        assert.equal(back.negative, false);
        assert.deepEqual(back.coins, a);
        assert.ok(isAllGTE(sum, a) && isAllGTE(sum, b));
      }),
    );
    const fee: Coin[] = [{ denom: "stake", amount: 200n }];
    assert.equal(isAnyGTE(fee, [{ denom: "stake", amount: 200n }]), true);
    assert.equal(isAnyGTE(fee, [{ denom: "stake", amount: 201n }]), false);
    assert.equal(isAnyGTE(fee, []), false);
    assert.equal(isAnyGTE(fee, [{ denom: "stake", amount: 0n }]), false, "a zero requirement never counts");
    assert.equal(subCoins(fee, [{ denom: "stake", amount: 300n }]).negative, true);
  });

  it("parses decimal gas prices and computes ceil(price × gas)", () => {
    assert.equal(parseDec("0.025"), 25n * 10n ** 15n);
    assert.throws(() => parseDec("0.0000000000000000001"), /too much precision/);
    const prices = parseDecCoins("0.025stake,0uatom");
    assert.equal(decCoinsToString(prices), "0.025000000000000000stake");
    assert.deepEqual(requiredFees(prices, 200_000n), [{ denom: "stake", amount: 5000n }]);
    assert.deepEqual(requiredFees(parseDecCoins("0.0001stake"), 15n), [{ denom: "stake", amount: 1n }]);
    assert.throws(() => parseDecCoins("1stake,2stake"), /duplicate denomination stake/);
  });

  it("takes decimal amounts only in upstream's form: digits, then a point only with digits after it", () => {
    assert.equal(
      decCoinsToString(parseDecCoins(" 0.5stake , 1uatom ")),
      "0.500000000000000000stake,1.000000000000000000uatom",
    );
    assert.throws(() => parseDecCoins("0.stake"), /invalid decimal coin expression: 0\.stake/);
    assert.throws(() => parseDecCoins(".5stake"), /invalid decimal coin expression: \.5stake/);
    for (const bad of [" 0.5", "0.", ".5", ""]) assert.throws(() => parseDec(bad), /invalid decimal/, bad);
  });
});
