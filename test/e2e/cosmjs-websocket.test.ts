// CosmJS follows the chain over the consensus RPC's WebSocket exactly as it follows a CometBFT v0.38 node:
// Comet38Client over WebsocketClient subscribes to new blocks and to txs (by type and by a transfer recipient),
// then sends a bank transfer signed with CosmJS and sees the block and its own tx arrive as events.
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { DirectSecp256k1HdWallet, Registry } from "@cosmjs/proto-signing";
import { SigningStargateClient } from "@cosmjs/stargate";
import { Comet38Client, type comet38, WebsocketClient } from "@cosmjs/tendermint-rpc";
import { BaseAccount } from "cosmjs-types/cosmos/auth/v1beta1/auth";
import { QueryAccountRequest, QueryAccountResponse } from "cosmjs-types/cosmos/auth/v1beta1/query";
import { MsgSend } from "cosmjs-types/cosmos/bank/v1beta1/tx";
import { TxRaw } from "cosmjs-types/cosmos/tx/v1beta1/tx";
import {
  type InProcessNode,
  prepareTestChainHome,
  startInProcessNode,
  TEST_MNEMONICS,
  type TestChainHome,
} from "../../src/testing/test-chain.ts";

/** Resolves with the first item of a CosmJS (xstream) stream that satisfies `pred`. */
function firstMatching<T>(
  stream: { subscribe(l: { next(v: T): void; error(e: unknown): void; complete(): void }): { unsubscribe(): void } },
  pred: (v: T) => boolean,
): Promise<T> {
  return new Promise((resolve, reject) => {
    const sub = stream.subscribe({
      next(v) {
        if (!pred(v)) return;
        queueMicrotask(() => sub.unsubscribe());
        resolve(v);
      },
      error: reject,
      complete: () => reject(new Error("stream completed before a match")),
    });
  });
}

describe("WebSocket subscriptions with CosmJS", { timeout: 180_000 }, () => {
  let dir: string;
  let home: TestChainHome;
  let node: InProcessNode;
  let ws: Comet38Client;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "chaind-ws-"));
    home = await prepareTestChainHome({ home: dir, grpc: false });
    node = await startInProcessNode(dir, home.chainId);
    const url = new URL(node.embedded.rpc.url);
    // WebsocketClient adds the "/websocket" path itself.
    // Before the first block /status has no block hash (as in CometBFT); at height 2 the app has committed 1.
    await node.waitForHeight(2n);
    ws = await Comet38Client.create(new WebsocketClient(`ws://${url.host}`, (e) => assert.fail(e)));
  });

  after(async () => {
    if (ws !== undefined) {
      // CosmJS's ReconnectingSocket schedules a reconnect even after an explicit disconnect (it reacts to every
      // "disconnected" status); without this the test process would keep reconnecting and never exit.
      const rs = (ws as unknown as { client: { socket: { socket: { reconnect(): void } } } }).client.socket;
      rs.socket.reconnect = () => {};
      ws.disconnect();
    }
    await node?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it("delivers new blocks, headers, and the subscriber's own tx (also by transfer.recipient)", async () => {
    const status = await ws.status(); // an ordinary method call over the same socket
    assert.equal(status.nodeInfo.network, home.chainId);

    const blocks = ws.subscribeNewBlock();
    const headers = ws.subscribeNewBlockHeader();
    const nextBlock = firstMatching<comet38.NewBlockEvent>(blocks, () => true);
    const nextHeader = firstMatching(headers, () => true);
    const block = await nextBlock;
    assert.equal(block.header.chainId, home.chainId);
    assert.ok(block.header.height > status.syncInfo.latestBlockHeight - 1);
    assert.ok((await nextHeader).height > 0);

    const wallet = await DirectSecp256k1HdWallet.fromMnemonic(TEST_MNEMONICS.alice, { prefix: "chain" });
    const [alice] = await wallet.getAccounts();
    const query = await ws.abciQuery({
      path: "/chain.auth.v1beta1.Query/Account",
      data: QueryAccountRequest.encode({ address: alice.address }).finish(),
    });
    const account = BaseAccount.decode(QueryAccountResponse.decode(query.value).account?.value ?? new Uint8Array());

    const txs = ws.subscribeTx("tm.event='Tx'");
    const toBob = ws.subscribeTx(`tm.event='Tx' AND transfer.recipient='${home.addresses.bob}'`);
    const toCarol = ws.subscribeTx(`tm.event='Tx' AND transfer.recipient='${home.addresses.validator}'`);
    const sawCarol = firstMatching<comet38.TxEvent>(toCarol, () => true).then(() => true);
    const signer = await SigningStargateClient.offline(wallet, {
      registry: new Registry([["/chain.bank.v1beta1.MsgSend", MsgSend]]),
    });
    const signed = await signer.sign(
      alice.address,
      [
        {
          typeUrl: "/chain.bank.v1beta1.MsgSend",
          value: {
            fromAddress: alice.address,
            toAddress: home.addresses.bob,
            amount: [{ denom: "stake", amount: "7" }],
          },
        },
      ],
      { amount: [], gas: "200000" },
      "",
      { accountNumber: account.accountNumber, sequence: Number(account.sequence), chainId: home.chainId },
    );
    const bytes = TxRaw.encode(signed).finish();
    const ownTx = firstMatching<comet38.TxEvent>(txs, () => true);
    const ownToBob = firstMatching<comet38.TxEvent>(toBob, () => true);
    const broadcast = await ws.broadcastTxSync({ tx: bytes });
    assert.equal(broadcast.code, 0, broadcast.log);

    const [seen, seenByRecipient] = await Promise.all([ownTx, ownToBob]);
    assert.deepEqual(Buffer.from(seen.hash), Buffer.from(broadcast.hash));
    assert.deepEqual(Buffer.from(seen.tx), Buffer.from(bytes));
    assert.equal(seen.result.code, 0);
    assert.ok(seen.height > 0);
    assert.deepEqual(Buffer.from(seenByRecipient.hash), Buffer.from(broadcast.hash));
    const transfer = seen.result.events.find((e: { type: string }) => e.type === "transfer");
    assert.ok(transfer?.attributes.some((a) => a.key === "recipient" && a.value === home.addresses.bob));
    // The query for another recipient saw nothing while this tx went through.
    const none = await Promise.race([sawCarol, Promise.resolve(false)]);
    assert.equal(none, false);
  });
});
