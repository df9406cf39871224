// Interop with a stock client: a MsgSend signed by CosmJS (DirectSecp256k1HdWallet, prefix "chain",
// its own protobuf codecs registered under our type URL) is accepted by FinalizeBlock, although
// CosmJS writes the pubkey as /cosmos.crypto.secp256k1.PubKey.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { create } from "@bufbuild/protobuf";
import { DirectSecp256k1HdWallet, Registry } from "@cosmjs/proto-signing";
import { SigningStargateClient } from "@cosmjs/stargate";
import { MsgSend } from "cosmjs-types/cosmos/bank/v1beta1/tx";
import { TxRaw } from "cosmjs-types/cosmos/tx/v1beta1/tx";
import { RequestCheckTxSchema } from "../gen/tendermint/abci/types_pb.js";
import { createTestApp, testKey } from "../testing/app.ts";

// CosmJS's test faucet mnemonic (packages/proto-signing/src/testutils.ts).
const FAUCET_MNEMONIC =
  "economy stock theory fatal elder harbor betray wasp final emotion task crumble siren bottom lizard educate guess current outdoor pair theory focus wife stone";

describe("CosmJS interop", () => {
  it("accepts a MsgSend signed by DirectSecp256k1HdWallet", async () => {
    const wallet = await DirectSecp256k1HdWallet.fromMnemonic(FAUCET_MNEMONIC, { prefix: "chain" });
    const [account] = await wallet.getAccounts();
    const ours = testKey(FAUCET_MNEMONIC);
    assert.equal(account.address, ours.bech32, "same key derivation as CosmJS");
    assert.equal(Buffer.from(account.pubkey).toString("base64"), "A08EGB7ro1ORuFhjOnZcSgwYlpe0DSFjVNUIkNNQxwKQ");

    const recipient = testKey("recipient");
    const t = await createTestApp({ balances: { [account.address]: [{ denom: "stake", amount: 1_000_000n }] } });
    await t.nextBlock();

    const registry = new Registry([["/chain.bank.v1beta1.MsgSend", MsgSend]]);
    const client = await SigningStargateClient.offline(wallet, { registry });
    const signed = await client.sign(
      account.address,
      [
        {
          typeUrl: "/chain.bank.v1beta1.MsgSend",
          value: MsgSend.fromPartial({
            fromAddress: account.address,
            toAddress: recipient.bech32,
            amount: [{ denom: "stake", amount: "1234" }],
          }),
        },
      ],
      { amount: [{ denom: "stake", amount: "2000" }], gas: "200000" },
      "sent by CosmJS",
      { accountNumber: 0n, sequence: 0, chainId: t.chainId },
    );
    const txBytes = TxRaw.encode(signed).finish();

    const check = await t.app.checkTx(create(RequestCheckTxSchema, { tx: txBytes }));
    assert.equal(check.code, 0, check.log);
    const block = await t.nextBlock([txBytes]);
    assert.equal(block.txResults[0].code, 0, block.txResults[0].log);

    const ctx = await t.app.createQueryContext();
    assert.equal((await t.bankKeeper.getBalance(ctx, recipient.address, "stake")).amount, 1234n);
    const sender = await t.accountKeeper.getAccount(ctx, ours.address);
    assert.equal(sender?.sequence, 1n);
    assert.deepEqual(sender?.pubKey?.key, ours.publicKey, "the pubkey is stored from the cosmos type URL");
  });
});
