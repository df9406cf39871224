import assert from "node:assert/strict";
import { test } from "node:test";
import { fetchFailure, fetchFailureCause } from "./fetch-failure.ts";

test("a failed fetch names its reason: the cause, or the first of an AggregateError's", () => {
  const refused = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:1"), { code: "ECONNREFUSED" });
  assert.equal(
    fetchFailure(new TypeError("fetch failed", { cause: refused })),
    "fetch failed (connect ECONNREFUSED 127.0.0.1:1)",
  );
  const both = new AggregateError([refused, new Error("connect ECONNREFUSED ::1:1")], "");
  assert.equal(
    fetchFailure(new TypeError("fetch failed", { cause: both })),
    "fetch failed (connect ECONNREFUSED 127.0.0.1:1)",
  );
  assert.equal(fetchFailureCause(new TypeError("fetch failed", { cause: both }))?.code, "ECONNREFUSED");
});

test("other errors give their own message", () => {
  assert.equal(fetchFailure(new TypeError("fetch failed")), "fetch failed");
  assert.equal(
    fetchFailure(new Error("The operation was aborted due to timeout")),
    "The operation was aborted due to timeout",
  );
  assert.equal(fetchFailure("text"), "text");
  assert.equal(fetchFailureCause(new Error("x", { cause: new Error("y") })), undefined);
});
