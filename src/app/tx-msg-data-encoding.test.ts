import assert from "node:assert/strict";
import { test } from "node:test";
import { create, toBinary } from "@bufbuild/protobuf";
import { AnySchema } from "@bufbuild/protobuf/wkt";
import { TxMsgDataSchema } from "../gen/chain/base/abci/v1beta1/abci_pb.js";
import { encodeTxMsgData } from "./tx-msg-data-encoding.ts";

test("encodeTxMsgData writes the general encoder's bytes", () => {
  const cases = [
    [],
    [create(AnySchema, { typeUrl: "/cosmos.bank.v1beta1.MsgSendResponse", value: new Uint8Array() })],
    [
      create(AnySchema, { typeUrl: "/x.y.MsgDoResponse", value: Uint8Array.of(10, 3, 1, 2, 3) }),
      create(AnySchema, { typeUrl: "", value: new Uint8Array(200).fill(7) }),
      create(AnySchema, { typeUrl: `/é.${"long".repeat(40)}`, value: new Uint8Array() }),
    ],
  ];
  for (const responses of cases) {
    const expected = toBinary(TxMsgDataSchema, create(TxMsgDataSchema, { msgResponses: responses }));
    assert.deepEqual(encodeTxMsgData(responses), expected);
  }
});
