// The verified-signature cache holds a tx's outcome from its CheckTx until a block uses it, and no longer.
import assert from "node:assert/strict";
import { test } from "node:test";
import { create } from "@bufbuild/protobuf";
import { MsgSendSchema } from "../../gen/chain/bank/v1beta1/tx_pb.js";
import { CheckTxType, RequestCheckTxSchema } from "../../gen/tendermint/abci/types_pb.js";
import { createTestApp, packAny, signTx, testKey } from "../../testing/app.ts";
import { rememberedOutcomes } from "./sig-cache.ts";

test("a signature checked in CheckTx is remembered until its block has run, then forgotten", async () => {
  const alice = testKey("sig-cache-alice");
  const bob = testKey("sig-cache-bob");
  const t = await createTestApp({ balances: { [alice.bech32]: [{ denom: "stake", amount: 1_000_000n }] } });
  await t.nextBlock();
  const send = (sequence: bigint) =>
    signTx({
      key: alice,
      chainId: t.chainId,
      accountNumber: 0n,
      sequence,
      fee: [{ denom: "stake", amount: 200n }],
      messages: [
        packAny(
          MsgSendSchema,
          create(MsgSendSchema, {
            fromAddress: alice.bech32,
            toAddress: bob.bech32,
            amount: [{ denom: "stake", amount: "5" }],
          }),
        ),
      ],
    });
  const txs = [send(0n), send(1n)];
  const before = rememberedOutcomes();
  for (const tx of txs) {
    await t.app.prepareCheckTx(tx);
    const res = await t.app.checkTx(create(RequestCheckTxSchema, { tx, type: CheckTxType.NEW }));
    assert.equal(res.code, 0, res.log);
  }
  assert.equal(rememberedOutcomes(), before + 2, "CheckTx remembers each tx's outcome for its block");
  const block = await t.nextBlock(txs);
  assert.deepEqual(
    block.txResults.map((r) => r.code),
    [0, 0],
  );
  assert.equal(rememberedOutcomes(), before, "the block used them: nothing is kept");
  // A tx whose signature a block checks without a CheckTx before leaves nothing behind either.
  await t.nextBlock([send(2n)]);
  assert.equal(rememberedOutcomes(), before);
  await t.app.close();
});
