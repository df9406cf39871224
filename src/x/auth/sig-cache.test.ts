// The verified-signature cache holds a tx's outcome from its CheckTx until a block uses it, and no longer.
import assert from "node:assert/strict";
import { test } from "node:test";
import { create } from "@bufbuild/protobuf";
import { MsgSendSchema } from "../../gen/chain/bank/v1beta1/tx_pb.js";
import { CheckTxType, RequestCheckTxSchema } from "../../gen/tendermint/abci/types_pb.js";
import { createTestApp, packAny, signTx, testKey } from "../../testing/app.ts";
import { rememberedOutcomes } from "./sig-cache.ts";

/** A test app one block in, where alice (funded) signs sends of 5stake to bob, at a sequence, for a chain id. */
async function aliceSends() {
  const alice = testKey("sig-cache-alice");
  const bob = testKey("sig-cache-bob");
  const t = await createTestApp({ balances: { [alice.bech32]: [{ denom: "stake", amount: 1_000_000n }] } });
  await t.nextBlock();
  const send = (sequence: bigint, chainId = t.chainId) =>
    signTx({
      key: alice,
      chainId,
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
  return { t, send };
}

test("a signature checked in CheckTx is remembered until its block has run, then forgotten", async () => {
  const { t, send } = await aliceSends();
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

test("a block rejects a bad signature that no CheckTx saw, even beside the same tx's valid twin that one did", async () => {
  const { t, send } = await aliceSends();
  const good = send(0n);
  await t.app.prepareCheckTx(good);
  assert.equal((await t.app.checkTx(create(RequestCheckTxSchema, { tx: good, type: CheckTxType.NEW }))).code, 0);
  // Another proposer's block: the same tx with its signature's last byte flipped, and one signed for another chain.
  const tampered = good.slice();
  tampered[tampered.length - 1] ^= 0x01;
  const block = await t.nextBlock([tampered, send(0n, "other-chain")]);
  assert.deepEqual(
    block.txResults.map((r) => [r.code, r.codespace]),
    [
      [4, "sdk"],
      [4, "sdk"],
    ],
  );
  assert.match(block.txResults[0].log, /^signature verification failed/);
  // The valid one still runs in the next block: the rejected twins consumed nothing of its sequence.
  const next = await t.nextBlock([good]);
  assert.equal(next.txResults[0].code, 0, next.txResults[0].log);
  await t.app.close();
});
