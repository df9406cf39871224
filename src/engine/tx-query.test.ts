// The query language's canonical form: what CometBFT's parsed query prints, by which subscriptions are told apart.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { canonicalQuery, parseTxQuery } from "./tx-query.ts";

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
});
