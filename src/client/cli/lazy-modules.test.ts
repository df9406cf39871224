// Which answers a light command may print without the type registry: those that cannot hold an Any.
import assert from "node:assert/strict";
import { test } from "node:test";
import { Query as BankQuery } from "../../gen/chain/bank/v1beta1/query_pb.js";
import { TxResponseSchema } from "../../gen/chain/base/abci/v1beta1/abci_pb.js";
import { hasAny } from "./lazy-modules.ts";

test("every bank query answer is Any-free (query bank runs light); a tx response holds one", () => {
  for (const method of BankQuery.methods) assert.equal(hasAny(method.output), false, method.name);
  assert.equal(hasAny(TxResponseSchema), true);
});
