// The verified-signature cache holds a tx's outcome from its CheckTx until a block uses it, and no longer. A CheckTx's
// preparation fills it ahead only when a worker thread would verify; where signatures stay on this thread
// (libsecp256k1), CheckTx verifies them itself. Either way a tx gets the same answer (code, log, gas) and a bad
// signature is refused, in CheckTx and in a block.
import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import { create } from "@bufbuild/protobuf";
import { MsgSendSchema } from "../../gen/chain/bank/v1beta1/tx_pb.js";
import { CheckTxType, RequestCheckTxSchema } from "../../gen/tendermint/abci/types_pb.js";
import { createTestApp, packAny, signTx, testKey } from "../../testing/app.ts";
import { rememberedOutcomes } from "./sig-cache.ts";
import { closeVerifyPool, setSingleJobsOnWorkers, singleJobsStayHere } from "./verify-pool.ts";

afterEach(async () => {
  setSingleJobsOnWorkers(undefined);
  await closeVerifyPool();
});

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

/** The engine's order for one tx: precheck, preparation, CheckTx. Returns the answer and the outcomes the preparation left. */
async function admit(t: Awaited<ReturnType<typeof aliceSends>>["t"], tx: Uint8Array) {
  assert.equal(t.app.precheckTx(tx), undefined);
  const before = rememberedOutcomes();
  await t.app.prepareCheckTx(tx);
  const preparedOutcomes = rememberedOutcomes() - before;
  const res = await t.app.checkTx(create(RequestCheckTxSchema, { tx, type: CheckTxType.NEW }));
  return { res, preparedOutcomes, afterCheck: rememberedOutcomes() - before };
}

function tampered(tx: Uint8Array): Uint8Array {
  const copy = tx.slice();
  copy[copy.length - 1] ^= 0x01; // the signature's last byte
  return copy;
}

/** Admits a bad then a good tx at sequence 0 and commits a block of both; returns what each step answered. */
async function run(singlesOnWorkers: boolean) {
  setSingleJobsOnWorkers(singlesOnWorkers);
  const { t, send } = await aliceSends();
  const good = send(0n);
  const bad = await admit(t, tampered(good));
  const ok = await admit(t, good);
  const block = await t.nextBlock([tampered(good), good]);
  await t.app.close();
  return { bad, ok, block: block.txResults.map((r) => [r.code, r.log, r.gasUsed]) };
}

test("where signatures stay on this thread, the preparation verifies nothing and CheckTx verifies each tx itself", async () => {
  const here = await run(false);
  assert.equal(here.bad.preparedOutcomes, 0);
  assert.equal(here.ok.preparedOutcomes, 0);
  assert.equal(here.bad.afterCheck, 1, "CheckTx remembers the bad outcome it found");
  assert.equal(here.ok.afterCheck, 1);
  assert.equal(here.bad.res.code, 4);
  assert.match(here.bad.res.log, /^signature verification failed/);
  assert.equal(here.ok.res.code, 0, here.ok.res.log);
});

test("where a worker verifies, the preparation verifies ahead and CheckTx finds the outcome", async () => {
  const ahead = await run(true);
  assert.equal(ahead.bad.preparedOutcomes, 1);
  assert.equal(ahead.ok.preparedOutcomes, 1);
  assert.equal(ahead.bad.res.code, 4);
  assert.equal(ahead.ok.res.code, 0, ahead.ok.res.log);
});

test("both ways give the same CheckTx answers (code, log, gas) and the same block results", async () => {
  const here = await run(false);
  const ahead = await run(true);
  for (const key of ["bad", "ok"] as const) {
    const a = here[key].res;
    const b = ahead[key].res;
    assert.deepEqual(
      [a.code, a.codespace, a.log, a.gasWanted, a.gasUsed],
      [b.code, b.codespace, b.log, b.gasWanted, b.gasUsed],
    );
  }
  assert.deepEqual(here.block, ahead.block);
  assert.equal(here.block[0][0], 4, "the block refuses the bad signature");
  assert.equal(here.block[1][0], 0);
});

test("singleJobsStayHere follows the setting, and by default whether libsecp256k1 verifies", async () => {
  setSingleJobsOnWorkers(false);
  assert.equal(singleJobsStayHere(), true);
  setSingleJobsOnWorkers(true);
  // A one-core machine has no worker to hand them to.
  const { availableParallelism } = await import("node:os");
  assert.equal(singleJobsStayHere(), availableParallelism() <= 1);
  const { nativeSecp256k1Verify } = await import("../../crypto/native-secp256k1.ts");
  setSingleJobsOnWorkers(undefined);
  assert.equal(singleJobsStayHere(), availableParallelism() <= 1 || nativeSecp256k1Verify() !== undefined);
});
