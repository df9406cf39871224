// The tx pipeline end to end through CheckTx and FinalizeBlock: each rejection with upstream's code,
// codespace and text, and what sticks (fees, sequences) when messages fail.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { create, toBinary } from "@bufbuild/protobuf";
import { AnySchema } from "@bufbuild/protobuf/wkt";
import { MsgSendSchema } from "../gen/chain/bank/v1beta1/tx_pb.js";
import { file_chain_gov_v1_tx, MsgVoteSchema } from "../gen/chain/gov/v1/tx_pb.js";
import { TxRawSchema } from "../gen/chain/tx/v1beta1/tx_pb.js";
import { RequestCheckTxSchema, type ResponseCheckTx } from "../gen/tendermint/abci/types_pb.js";
import { createTestApp, packAny, signTx, type TestApp, testKey } from "../testing/app.ts";
import type { AppModule } from "./module.ts";

const alice = testKey("alice");
const bob = testKey("bob");
const FUNDS = 1_000_000n;

async function setup(minGasPrices?: string, extraModules?: () => AppModule[]): Promise<TestApp> {
  const t = await createTestApp({
    balances: { [alice.bech32]: [{ denom: "stake", amount: FUNDS }] },
    minGasPrices,
    extraModules,
  });
  await t.nextBlock();
  return t;
}

function send(amount: bigint, to = bob.bech32) {
  return packAny(
    MsgSendSchema,
    create(MsgSendSchema, {
      fromAddress: alice.bech32,
      toAddress: to,
      amount: [{ denom: "stake", amount: String(amount) }],
    }),
  );
}

function aliceTx(t: TestApp, overrides: Partial<Parameters<typeof signTx>[0]> = {}): Uint8Array {
  return signTx({
    key: alice,
    chainId: t.chainId,
    accountNumber: 0n,
    sequence: 0n,
    fee: [{ denom: "stake", amount: 200n }],
    messages: [send(10n)],
    ...overrides,
  });
}

async function checkTx(t: TestApp, tx: Uint8Array): Promise<ResponseCheckTx> {
  return t.app.checkTx(create(RequestCheckTxSchema, { tx }));
}

async function balance(t: TestApp, address: Uint8Array): Promise<bigint> {
  const ctx = await t.app.createQueryContext();
  return (await t.bankKeeper.getBalance(ctx, address, "stake")).amount;
}

async function sequence(t: TestApp, address: Uint8Array): Promise<bigint | undefined> {
  const ctx = await t.app.createQueryContext();
  return (await t.accountKeeper.getAccount(ctx, address))?.sequence;
}

describe("tx pipeline", () => {
  it("accepts a signed MsgSend and moves the coins, the fee and the sequence", async () => {
    const t = await setup();
    const check = await checkTx(t, aliceTx(t));
    assert.equal(check.code, 0, check.log);
    assert.ok(
      check.events.some((e) => e.type === "tx"),
      "CheckTx returns the ante handler's events",
    );
    // A caller that reads no events (broadcast_tx_sync) gets the same answer without them.
    const quiet = await t.app.checkTx(create(RequestCheckTxSchema, { tx: aliceTx(t, { sequence: 1n }) }), {
      events: false,
    });
    assert.equal(quiet.code, 0, quiet.log);
    assert.deepEqual(quiet.events, []);
    const block = await t.nextBlock([aliceTx(t)]);
    const result = block.txResults[0];
    assert.equal(result.code, 0, result.log);
    assert.equal(result.log, "");
    assert.equal(result.gasWanted, 200_000n);
    assert.ok(result.gasUsed > 40_000n && result.gasUsed < 200_000n, `gas used ${result.gasUsed}`);
    assert.equal(await balance(t, bob.address), 10n);
    assert.equal(await balance(t, alice.address), FUNDS - 10n - 200n);
    assert.equal(await sequence(t, alice.address), 1n);
    const messageEvent = result.events.find(
      (e) => e.type === "message" && e.attributes.some((a) => a.key === "action"),
    );
    assert.deepEqual(
      messageEvent?.attributes.map((a) => [a.key, a.value]),
      [
        ["action", "/chain.bank.v1beta1.MsgSend"],
        ["sender", alice.bech32],
        ["module", "bank"],
        ["msg_index", "0"],
      ],
    );
    assert.ok(result.events.some((e) => e.type === "tx" && e.attributes[0].key === "fee"));
    assert.ok(result.data.length > 0, "data carries TxMsgData");
  });

  it("rejects a wrong sequence with sdk 32 and upstream's text", async () => {
    const t = await setup();
    const response = await checkTx(t, aliceTx(t, { sequence: 1n }));
    assert.equal(response.codespace, "sdk");
    assert.equal(response.code, 32);
    assert.equal(response.log, "account sequence mismatch, expected 0, got 1: incorrect account sequence");
  });

  it("answers a CheckTx without events exactly as one with them, and leaves the same check state", async () => {
    const loud = await setup();
    const quiet = await setup();
    const txs = (t: TestApp) => [
      aliceTx(t),
      aliceTx(t, { sequence: 1n }),
      aliceTx(t, { sequence: 1n }), // the sequence is taken: sdk 32
      aliceTx(t, { sequence: 2n, fee: [{ denom: "stake", amount: FUNDS }] }), // the fees left cannot pay: sdk 5
      aliceTx(t, { sequence: 2n, gasLimit: 3000n }), // out of gas: sdk 11
      aliceTx(t, { sequence: 2n }),
    ];
    const strip = (r: ResponseCheckTx) => ({ ...r, events: [] });
    const withEvents = [];
    for (const tx of txs(loud)) withEvents.push(strip(await checkTx(loud, tx)));
    const without = [];
    for (const tx of txs(quiet)) {
      const r = await quiet.app.checkTx(create(RequestCheckTxSchema, { tx }), { events: false });
      assert.deepEqual(r.events, []);
      without.push(r);
    }
    assert.deepEqual(
      without.map((r) => r.code),
      [0, 0, 32, 5, 11, 0],
    );
    assert.deepEqual(without, withEvents);
    await loud.app.close();
    await quiet.app.close();
  });

  it("rejects a bad signature with sdk 4 (wrong chain id in the sign bytes)", async () => {
    const t = await setup();
    const response = await checkTx(t, aliceTx(t, { chainId: "other-chain" }));
    assert.equal(response.code, 4);
    assert.equal(
      response.log,
      "signature verification failed; please verify account number (0) and chain-id (test-chain): (unable to verify single signer signature): unauthorized",
    );
  });

  it("rejects a tampered signature in FinalizeBlock too, charging nothing", async () => {
    const t = await setup();
    const raw = aliceTx(t);
    const tampered = raw.slice();
    tampered[tampered.length - 5] ^= 0x01;
    const block = await t.nextBlock([tampered]);
    assert.equal(block.txResults[0].code, 4);
    assert.equal(await balance(t, alice.address), FUNDS);
    assert.equal(await sequence(t, alice.address), 0n);
  });

  it("reports insufficient funds in a message (sdk 5) while the fee and sequence stick", async () => {
    const t = await setup();
    const block = await t.nextBlock([aliceTx(t, { messages: [send(FUNDS * 2n)] })]);
    const result = block.txResults[0];
    assert.equal(result.code, 5);
    assert.equal(
      result.log,
      `failed to execute message; message index: 0: spendable balance ${FUNDS - 200n}stake is smaller than ${FUNDS * 2n}stake: insufficient funds`,
    );
    assert.equal(await balance(t, alice.address), FUNDS - 200n, "the fee stays deducted");
    assert.equal(await balance(t, bob.address), 0n);
    assert.equal(await sequence(t, alice.address), 1n, "the sequence stays incremented");
    assert.ok(
      result.events.some((e) => e.type === "tx"),
      "ante events are reported",
    );
  });

  it("reports a fee larger than the balance as sdk 5 wrapping the bank error", async () => {
    const t = await setup();
    const response = await checkTx(t, aliceTx(t, { fee: [{ denom: "stake", amount: FUNDS + 1n }] }));
    assert.equal(response.code, 5);
    assert.equal(
      response.log,
      `spendable balance ${FUNDS}stake is smaller than ${FUNDS + 1n}stake: insufficient funds: insufficient funds`,
    );
  });

  it("rejects a fee below minimum-gas-prices in CheckTx only (sdk 13)", async () => {
    const t = await setup("0.025stake");
    const response = await checkTx(t, aliceTx(t));
    assert.equal(response.code, 13);
    assert.equal(response.log, "insufficient fees; got: 200stake required: 5000stake: insufficient fee");
    const enough = await checkTx(t, aliceTx(t, { fee: [{ denom: "stake", amount: 5000n }] }));
    assert.equal(enough.code, 0, enough.log);
    // FinalizeBlock does not apply the node-local minimum.
    const block = await t.nextBlock([aliceTx(t)]);
    assert.equal(block.txResults[0].code, 0, block.txResults[0].log);
  });

  it("runs out of gas in the ante handler (rejected, nothing charged) and in a message (charged)", async () => {
    const t = await setup();
    const tiny = await checkTx(t, aliceTx(t, { gasLimit: 1000n }));
    assert.equal(tiny.code, 11);
    // The memo check's params read is the first thing that costs gas, as upstream.
    assert.equal(tiny.log, "out of gas in location: ReadPerByte; gasWanted: 1000, gasUsed: 1003: out of gas");
    const small = await checkTx(t, aliceTx(t, { gasLimit: 3000n }));
    assert.match(small.log, /^out of gas in location: txSize; gasWanted: 3000, gasUsed: \d+: out of gas$/);
    assert.equal(await balance(t, alice.address), FUNDS, "nothing charged");
    const ok = await t.nextBlock([aliceTx(t)]);
    assert.equal(ok.txResults[0].code, 0);
    // Enough for the ante handler (what CheckTx uses), not for the send.
    const anteGas = (await checkTx(t, aliceTx(t, { sequence: 1n, gasLimit: 100_000n }))).gasUsed;
    const limit = anteGas + 100n;
    const block = await t.nextBlock([aliceTx(t, { sequence: 1n, gasLimit: limit })]);
    const result = block.txResults[0];
    assert.equal(result.code, 11, result.log);
    assert.match(
      result.log,
      new RegExp(`^out of gas in location: \\w+; gasWanted: ${limit}, gasUsed: \\d+: out of gas$`),
    );
    assert.ok(result.gasUsed > limit, "gas used is reported past the limit");
    assert.equal(await sequence(t, alice.address), 2n);
    assert.equal(await balance(t, bob.address), 10n, "the second send did not happen");
  });

  it("rejects an unresolvable message type (sdk 2) and a known type without a handler (sdk 6)", async () => {
    const t = await setup(undefined, () => [typesOnlyModule()]);
    const unknown = create(AnySchema, { typeUrl: "/chain.nothing.v1.MsgNothing", value: new Uint8Array() });
    const r1 = await checkTx(t, aliceTx(t, { messages: [unknown] }));
    assert.equal(r1.code, 2);
    assert.equal(r1.log, "unable to resolve type URL /chain.nothing.v1.MsgNothing: tx parse error: tx parse error");
    const vote = packAny(MsgVoteSchema, create(MsgVoteSchema, { proposalId: 1n, voter: alice.bech32, option: 1 }));
    const r2 = await checkTx(t, aliceTx(t, { messages: [vote] }));
    assert.equal(r2.code, 6);
    assert.equal(r2.log, "no message handler found for /chain.gov.v1.MsgVote: unknown request");
  });

  it("rejects malformed tx bytes with sdk 2 and zero gas", async () => {
    const t = await setup();
    const garbage = await checkTx(t, new Uint8Array([0xff, 0xff, 0x01]));
    assert.equal(garbage.code, 2);
    assert.equal(garbage.codespace, "sdk");
    assert.match(garbage.log, /: tx parse error: tx parse error$/);
    assert.equal(garbage.gasWanted, 0n);
    // TxRaw fields out of order break ADR-027.
    const raw = aliceTx(t);
    const decoded = (await import("@bufbuild/protobuf")).fromBinary(TxRawSchema, raw);
    const reordered = new Uint8Array([
      ...field(2, decoded.authInfoBytes),
      ...field(1, decoded.bodyBytes),
      ...field(3, decoded.signatures[0]),
    ]);
    const r = await checkTx(t, reordered);
    assert.equal(r.code, 2);
    assert.equal(r.log, "txRaw must follow ADR-027, got tagNum 1 after tagNum 2: tx parse error: tx parse error");
    const block = await t.nextBlock([new Uint8Array([1, 2, 3])]);
    assert.equal(block.txResults[0].code, 2);
  });

  it("rejects a tx without messages (sdk 18) and without signatures (sdk 15)", async () => {
    const t = await setup();
    const empty = await checkTx(t, aliceTx(t, { messages: [] }));
    assert.equal(empty.code, 18);
    assert.equal(empty.log, "must contain at least one message: invalid request");
    const raw = (await import("@bufbuild/protobuf")).fromBinary(TxRawSchema, aliceTx(t));
    const unsigned = toBinary(TxRawSchema, create(TxRawSchema, { ...raw, signatures: [] }));
    const r = await checkTx(t, unsigned);
    assert.equal(r.code, 15);
    assert.equal(r.log, "no signatures supplied");
  });

  it("rejects any extension option with upstream's bare text (sdk 31 'unknown extension options')", async () => {
    const t = await setup();
    const r = await checkTx(t, aliceTx(t, { extensionOptions: [send(1n)] }));
    assert.equal(r.code, 31);
    assert.equal(r.log, "unknown extension options");
  });

  it("applies memo, timeout-height, fee-payer and pubkey checks with upstream's texts", async () => {
    const t = await setup();
    const memo = await checkTx(t, aliceTx(t, { memo: "x".repeat(257) }));
    assert.equal(memo.code, 12);
    assert.equal(memo.log, "maximum number of characters is 256 but received 257 characters: memo too large");
    const timeout = await checkTx(t, aliceTx(t, { timeoutHeight: 0n }));
    assert.equal(timeout.code, 0, timeout.log);
    await t.nextBlock();
    const late = await t.nextBlock([aliceTx(t, { timeoutHeight: 2n })]);
    assert.equal(late.txResults[0].code, 30);
    assert.equal(late.txResults[0].log, "block height: 3, timeout height: 2: tx timeout height");
    const stranger = testKey("stranger");
    const unknownPayer = await checkTx(
      t,
      signTx({
        key: stranger,
        chainId: t.chainId,
        accountNumber: 0n,
        sequence: 0n,
        messages: [
          packAny(
            MsgSendSchema,
            create(MsgSendSchema, {
              fromAddress: stranger.bech32,
              toAddress: bob.bech32,
              amount: [{ denom: "stake", amount: "1" }],
            }),
          ),
        ],
      }),
    );
    assert.equal(unknownPayer.code, 9);
    assert.equal(unknownPayer.log, `fee payer address: ${stranger.bech32} does not exist: unknown address`);
    // Bob's key signing a message whose signer is Alice.
    const wrongKey = await checkTx(
      t,
      signTx({ key: bob, chainId: t.chainId, accountNumber: 0n, sequence: 0n, messages: [send(1n)] }),
    );
    assert.equal(wrongKey.code, 8);
    assert.equal(
      wrongKey.log,
      `pubKey does not match signer address ${alice.bech32} with signer index: 0: invalid pubkey`,
    );
    const noKey = await checkTx(t, aliceTx(t, { omitPubKey: true }));
    assert.equal(noKey.code, 8);
    assert.equal(noKey.log, "pubkey on account is not set: invalid pubkey");
  });

  it("accepts the cosmos pubkey type URL and lets later txs omit the key", async () => {
    const t = await setup();
    const first = await t.nextBlock([aliceTx(t, { pubKeyTypeUrl: "/cosmos.crypto.secp256k1.PubKey" })]);
    assert.equal(first.txResults[0].code, 0, first.txResults[0].log);
    const second = await t.nextBlock([aliceTx(t, { sequence: 1n, omitPubKey: true })]);
    assert.equal(second.txResults[0].code, 0, second.txResults[0].log);
    assert.equal(await balance(t, bob.address), 20n);
  });

  it("keeps sequences in the check state between blocks and resets it on commit", async () => {
    const t = await setup();
    assert.equal((await checkTx(t, aliceTx(t))).code, 0);
    assert.equal((await checkTx(t, aliceTx(t, { sequence: 1n }))).code, 0);
    const again = await checkTx(t, aliceTx(t));
    assert.equal(again.code, 32, "the same sequence twice is refused by the mempool state");
    await t.nextBlock();
    assert.equal((await checkTx(t, aliceTx(t))).code, 0, "commit resets the check state");
  });

  it("simulates without signatures or gas limit, keeping nothing", async () => {
    const t = await setup();
    const raw = (await import("@bufbuild/protobuf")).fromBinary(TxRawSchema, aliceTx(t, { gasLimit: 0n, fee: [] }));
    const unsigned = toBinary(TxRawSchema, create(TxRawSchema, { ...raw, signatures: [new Uint8Array()] }));
    const simulation = await t.app.simulate(unsigned);
    assert.ok(simulation.gasInfo.gasUsed > 40_000n, `gas used ${simulation.gasInfo.gasUsed}`);
    // As upstream: simulation runs under an infinite gas meter, whose limit is MaxUint64.
    assert.equal(simulation.gasInfo.gasWanted, 18446744073709551615n);
    assert.equal(simulation.result.msgResponses[0].typeUrl, "/chain.bank.v1beta1.MsgSendResponse");
    assert.equal(await balance(t, bob.address), 0n);
    assert.equal(await sequence(t, alice.address), 0n);
    await assert.rejects(t.app.simulate(aliceTx(t, { messages: [send(FUNDS * 2n)] })), (err: Error) => {
      assert.match(err.message, /spendable balance .* is smaller than .*: insufficient funds$/);
      return true;
    });
  });
});

// A module that only contributes types: gov's Msgs resolve but have no handler.
function typesOnlyModule(): AppModule {
  return {
    name: "typesonly",
    consensusVersion: 1n,
    storeKeys: [],
    types: [file_chain_gov_v1_tx],
    defaultGenesis: () => ({}),
    validateGenesis: () => {},
    initGenesis: async () => undefined,
    exportGenesis: async () => ({}),
    registerServices: () => {},
  };
}

function field(number: number, bytes: Uint8Array): Uint8Array {
  const out = [(number << 3) | 2];
  let length = bytes.length;
  while (length >= 0x80) {
    out.push((length & 0x7f) | 0x80);
    length >>>= 7;
  }
  out.push(length);
  return new Uint8Array([...out, ...bytes]);
}

describe("CheckTx concurrency", () => {
  it("serialises concurrent CheckTx calls so one sequence is accepted once", async () => {
    const t = await setup();
    const tx = aliceTx(t);
    const responses = await Promise.all([checkTx(t, tx), checkTx(t, tx), checkTx(t, tx)]);
    assert.deepEqual(
      responses.map((r) => r.code),
      [0, 32, 32],
    );
  });
});
