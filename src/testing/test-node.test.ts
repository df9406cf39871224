// startTestNode with a chain: the test node serves that chain's identity, as the chain's own binary does, so the kit's
// keys print the chain's prefix and its Msgs (signers in that prefix) are accepted.
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { create } from "@bufbuild/protobuf";
import { MsgSendSchema } from "../gen/chain/bank/v1beta1/tx_pb.js";
import { defineChain } from "../runtime/release.ts";
import { packAny } from "./app.ts";
import { tempDir } from "./processes.ts";
import { PROPOSER, startTestNode, VALIDATOR } from "./test-node.ts";

test("a test node of a chain with its own identity uses the chain's bech32 prefix", async () => {
  const v1 = { name: "v1", version: "1.0.0", modules: () => [] };
  const chain = defineChain({ name: "tallyd", releases: [v1], identity: { bech32Prefix: "tally" } });
  const dir = await tempDir("test-node-identity-");
  const node = await startTestNode({ home: join(dir.path, "node"), release: v1, chain });
  try {
    await node.nextBlock();
    assert.match(PROPOSER.bech32, /^tally1/);
    const send = create(MsgSendSchema, {
      fromAddress: PROPOSER.bech32,
      toAddress: VALIDATOR.bech32,
      amount: [{ denom: "stake", amount: "1" }],
    });
    const result = await node.deliver(PROPOSER, [packAny(MsgSendSchema, send)]);
    assert.equal(result.code, 0, result.log);
  } finally {
    await node.close();
    await dir.remove();
  }
});
