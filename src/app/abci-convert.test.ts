import assert from "node:assert/strict";
import { test } from "node:test";
import { create, toBinary } from "@bufbuild/protobuf";
import { EventSchema, ExecTxResultSchema } from "../gen/tendermint/abci/types_pb.js";
import { toAbciEvents, toExecTxResult } from "./abci-convert.ts";
import type { AbciEvent } from "./events.ts";

const events: AbciEvent[] = [
  { type: "message", attributes: [{ key: "action", value: "/cosmos.bank.v1beta1.MsgSend", index: true }] },
  {
    type: "transfer",
    attributes: [
      { key: "recipient", value: "chain1xyz", index: true },
      { key: "amount", value: "", index: false },
    ],
  },
  { type: "empty", attributes: [] },
];

// What create() makes of the same events: the reference the hand-built messages are compared with.
const createdEvents = events.map((e) =>
  create(EventSchema, { type: e.type, attributes: e.attributes.map((a) => ({ ...a })) }),
);

test("toAbciEvents builds the same messages as create()", () => {
  assert.deepEqual(toAbciEvents(events), createdEvents);
  assert.deepEqual(toAbciEvents([]), []);
});

test("toExecTxResult builds the same message (and bytes) as create()", () => {
  const result = {
    code: 5,
    codespace: "sdk",
    log: "insufficient funds",
    data: Uint8Array.of(1, 2, 3),
    gasWanted: 200000n,
    gasUsed: 51234n,
    events,
    msgResponses: [],
  };
  const { msgResponses: _, ...fields } = result;
  const expected = create(ExecTxResultSchema, { ...fields, events: createdEvents });
  const got = toExecTxResult(result);
  assert.deepEqual(got, expected);
  assert.deepEqual(toBinary(ExecTxResultSchema, got), toBinary(ExecTxResultSchema, expected));
});
