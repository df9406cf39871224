// startNode in this process on a dev home (real LevelDB, real sockets on loopback ports picked at run
// time): the node hooks answer from the embedded engine, and the CometBFT-RPC hooks of `start --abci`
// — pointed at the embedded engine's CometBFT-shaped RPC — give back the very same blocks, txs,
// searches and validator sets. Then the node stops with status 0, and halt-height ends it by itself.
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { create, toBinary } from "@bufbuild/protobuf";
import { pino } from "pino";
import { fastDevHome, pollUntil, type tempDir } from "../../test/support/node/chaind.ts";
import { openKeyring } from "../client/keyring/index.ts";
import { packAny, signTx } from "../client/tx/index.ts";
import { addressFromBech32 } from "../crypto/index.ts";
import { MsgSendSchema } from "../gen/chain/bank/v1beta1/tx_pb.js";
import { TxResponseSchema } from "../gen/chain/base/abci/v1beta1/abci_pb.js";
import { BlockSchema } from "../gen/tendermint/types/block_pb.js";
import { BlockIDSchema } from "../gen/tendermint/types/types_pb.js";
import { cometNodeHooks } from "./comet-hooks.ts";
import type { DevHome } from "./dev-chain.ts";
import { engineNodeHooks } from "./engine-hooks.ts";
import { FlagError, loadNodeSettings } from "./node-settings.ts";
import { type RunningNode, startNode } from "./start-node.ts";

const PORTS = { rpcLaddr: "tcp://127.0.0.1:0", apiAddress: "tcp://127.0.0.1:0", grpcAddress: "127.0.0.1:0" };
const logger = pino({ level: "silent" });

/** Buffers and Uint8Arrays alike as hex, bigints as text, so results from both paths compare by value. */
function plain(value: unknown): unknown {
  return JSON.parse(
    JSON.stringify(value, (_key, v: unknown) =>
      typeof v === "bigint"
        ? v.toString()
        : v instanceof Uint8Array
          ? Buffer.from(v).toString("hex")
          : (v as { type?: string; data?: number[] })?.type === "Buffer"
            ? Buffer.from((v as { data: number[] }).data).toString("hex")
            : v,
    ),
  );
}

let dir: Awaited<ReturnType<typeof tempDir>>;
let dev: DevHome;
let node: RunningNode | undefined;

before(async () => {
  ({ dir, dev } = await fastDevHome("chaind-start-node-", "100ms"));
});

after(async () => {
  await node?.stop();
  await dir?.remove();
});

describe("a started node", () => {
  test("serves the same chain through the engine hooks and the CometBFT-RPC hooks", async () => {
    node = await startNode({ home: dev.home, logger, overrides: PORTS });
    const embedded = node.embedded;
    assert.ok(embedded !== undefined);
    assert.match(node.endpoints.rpc ?? "", /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.match(node.endpoints.rest ?? "", /^http:\/\/127\.0\.0\.1:\d+$/);
    const app = node.chain.app;
    const engineHooks = engineNodeHooks(
      embedded.engine,
      {
        moniker: "m",
        nodeId: "id",
        p2pListenAddr: "",
        p2pChannels: "40202122233038606100",
        rpcAddress: "",
        txIndex: true,
        appVersion: app.version,
      },
      app.typeRegistry,
    );
    const cometHooks = cometNodeHooks(app, (node.endpoints.rpc as string).replace("http:", "tcp:"));

    const alice = dev.keys.find((k) => k.name === "alice");
    const bob = dev.keys.find((k) => k.name === "bob");
    assert.ok(alice !== undefined && bob !== undefined);
    await pollUntil(async () => (app.lastBlockHeight() >= 1n ? true : undefined), { what: "the first block" });
    const account = await node.chain.accountKeeper.getAccount(
      await app.createQueryContext(),
      addressFromBech32(alice.address),
    );
    assert.ok(account !== undefined);
    const signed = await signTx({
      messages: [
        packAny(
          MsgSendSchema,
          create(MsgSendSchema, {
            fromAddress: alice.address,
            toAddress: bob.address,
            amount: [{ denom: "stake", amount: "77" }],
          }),
        ),
      ],
      fee: { amount: [], gasLimit: 200_000n },
      chainId: dev.chainId,
      accountNumber: account.accountNumber,
      sequence: account.sequence,
      signer: await openKeyring({ home: dev.home, backend: "test" }).signer("alice"),
    });
    const checked = await engineHooks.broadcastTx?.(signed.txBytes, "sync");
    assert.equal(checked?.code, 0, checked?.rawLog);
    const again = await engineHooks.broadcastTx?.(signed.txBytes, "sync");
    assert.equal(again?.code, 19, "a duplicate is the mempool's tx-in-cache refusal, sdk code 19");
    // Forwarded to the consensus RPC (as `start --abci` does), the same refusal in the same words.
    assert.deepEqual(plain(await cometHooks.broadcastTx?.(signed.txBytes, "sync")), plain(again));

    const found = await pollUntil(() => engineHooks.getTx?.(signed.txHash) ?? Promise.resolve(undefined), {
      what: "the send in the tx index",
    });
    const viaComet = await cometHooks.getTx?.(signed.txHash);
    assert.ok(viaComet !== undefined);
    const response = (init: typeof found.txResponse) => toBinary(TxResponseSchema, create(TxResponseSchema, init));
    assert.deepEqual(response(viaComet.txResponse), response(found.txResponse));
    assert.equal(found.txResponse?.code, 0);
    const height = found.txResponse?.height as bigint;
    assert.equal(await cometHooks.getTx?.("00".repeat(32)), undefined);

    const block = (init: NonNullable<Awaited<ReturnType<NonNullable<typeof engineHooks.block>>>>) =>
      toBinary(BlockSchema, create(BlockSchema, init.block));
    const fromEngine = await engineHooks.block?.(height);
    const fromComet = await cometHooks.block?.(height);
    assert.ok(fromEngine !== undefined && fromComet !== undefined);
    assert.deepEqual(block(fromComet), block(fromEngine));
    const blockId = (found: typeof fromEngine) =>
      toBinary(BlockIDSchema, create(BlockIDSchema, { ...found.blockId, $typeName: undefined } as never));
    assert.deepEqual(blockId(fromComet), blockId(fromEngine));

    const search = { query: `tx.height=${height}`, page: 1n, limit: 10n, order: "asc" as const };
    const searchedEngine = await engineHooks.searchTxs?.(search);
    const searchedComet = await cometHooks.searchTxs?.(search);
    // The block opens with the previous height's extended commit (vote extensions are on from height 1), which the
    // embedded engine's tx index leaves out (no one's tx; docs/COMPATIBILITY.md row 22): the send alone, at index 1.
    assert.equal(searchedEngine?.total, 1n);
    assert.equal(searchedComet?.total, 1n);
    assert.equal(searchedComet?.txResponses[0]?.txhash, signed.txHash);
    assert.equal(fromEngine.block.data?.txs?.length, 2, "the block keeps both");
    assert.deepEqual(
      searchedComet?.txResponses.map((r) => r.txhash),
      searchedEngine?.txResponses.map((r) => r.txhash),
    );
    // Both engines word a failed search as upstream's GetTxsEvent does: the SDK's prefix, then the reason.
    const failure = async (hooks: typeof engineHooks, request: typeof search) => {
      const err = await (hooks.searchTxs?.(request) ?? Promise.resolve()).then(
        () => assert.fail("the search should fail"),
        (e: Error) => e,
      );
      assert.equal(err.name, "GrpcStatusError");
      return err.message;
    };
    const badQuery = { ...search, query: "tx.height===" };
    assert.match(await failure(cometHooks, badQuery), /^failed to search for txs: failed to parse query /);
    assert.equal(await failure(cometHooks, badQuery), await failure(engineHooks, badQuery));
    assert.equal(
      await failure(cometHooks, { ...search, page: 5n }),
      "failed to search for txs: page should be within [1, 1] range, given 5",
    );

    assert.deepEqual(plain(await cometHooks.validatorSet?.(height)), plain(await engineHooks.validatorSet?.(height)));
    assert.equal((await cometHooks.validatorSet?.(height))?.length, 1);
    const status = await cometHooks.blockStatus?.(height);
    assert.deepEqual(plain(status), plain(await engineHooks.blockStatus?.(height)));
    const info = await cometHooks.nodeInfo?.();
    assert.equal(info?.defaultNodeInfo?.network, dev.chainId);

    const exit = await node.stop();
    node = undefined;
    assert.deepEqual([exit.reason, exit.exitCode], ["stopped", 0]);
  });

  test("halt-height ends the node by itself with status 0 after committing that height", async () => {
    await node?.stop();
    node = undefined;
    const started = await startNode({ home: dev.home, logger, overrides: { ...PORTS } });
    const haltAt = (started.embedded?.engine.store.height ?? 0n) + 2n;
    const stopped = await started.stop();
    assert.equal(stopped.exitCode, 0);
    const halting = await startNode({ home: dev.home, logger, overrides: { ...PORTS, haltHeight: haltAt.toString() } });
    const exit = await halting.done;
    assert.deepEqual([exit.reason, exit.exitCode, exit.height], ["halt-height", 0, haltAt]);
  });

  test("bad settings are refused before anything opens", async () => {
    await assert.rejects(loadNodeSettings(dev.home, { apiAddress: "1317" }), FlagError);
    await assert.rejects(
      startNode({ home: join(dir.path, "nowhere"), logger }),
      (err: Error) => err.name === "ConfigError" && /app\.toml: file not found; run "chaind init/.test(err.message),
    );
  });
});
