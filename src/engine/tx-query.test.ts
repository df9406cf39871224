// The query language's canonical form: what CometBFT's parsed query prints, by which subscriptions are told apart.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { canonicalQuery, parseTxQuery, TxQueryError } from "./tx-query.ts";

describe("canonicalQuery", () => {
  it("writes each condition one space apart, joined by ' AND ', operands as written", () => {
    const cases: [string, string][] = [
      ["tm.event='Tx'", "tm.event = 'Tx'"],
      [
        "  tx.height>=5   AND transfer.amount CONTAINS  'stake' ",
        "tx.height >= 5 AND transfer.amount CONTAINS 'stake'",
      ],
      ["a.b EXISTS AND c.d<1.50", "a.b EXISTS AND c.d < 1.50"],
      [
        "block.time >TIME 2024-01-31T10:00:00Z AND b.d<=DATE 2024-01-31",
        "block.time > TIME 2024-01-31T10:00:00Z AND b.d <= DATE 2024-01-31",
      ],
    ];
    for (const [written, canonical] of cases) {
      assert.equal(canonicalQuery(parseTxQuery(written)), canonical, written);
      assert.equal(canonicalQuery(parseTxQuery(canonical)), canonical, "the canonical form is its own");
    }
  });

  it("refuses what CometBFT's scanner refuses: signs, exponents, escapes, a TIME or DATE not one space apart", () => {
    for (const query of [
      "tx.height > -5",
      "tx.height = 1e3",
      "a.b = 'it\\'s'",
      "block.time > TIME  2024-01-31T10:00:00Z",
      "block.time > TIME2024-01-31T10:00:00Z",
      "block.date = DATE 1800-01-31",
      "block.date = DATE 2024-1-31",
    ]) {
      assert.throws(() => parseTxQuery(query), TxQueryError, query);
    }
    // What it accepts: a fraction with no digits after the point, a backslash inside a string as a character.
    assert.equal(parseTxQuery("a.b >= 5.")[0].operand?.kind, "number");
    assert.deepEqual(parseTxQuery("a.b = 'x\\y'")[0].operand, { kind: "string", value: "x\\y" });
  });
});
