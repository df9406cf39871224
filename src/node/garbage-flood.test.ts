// A flood of undecodable 100 kB txs over many keep-alive connections to a real node (startNode in this process,
// real LevelDB, the consensus RPC on a loopback port picked at run time): garbage is answered with sdk 2
// (tx parse error) without ever reaching the app's CheckTx (so it never waits for, or holds up, the app lock),
// and valid sends broadcast during the flood are committed while the flood goes on.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { Agent, request } from "node:http";
import { after, before, describe, test } from "node:test";
import { create } from "@bufbuild/protobuf";
import { pino } from "pino";
import { fastDevHome, pollUntil, type tempDir } from "../../test/support/node/chaind.ts";
import { openKeyring } from "../client/keyring/index.ts";
import { packAny, signTx } from "../client/tx/index.ts";
import { addressFromBech32 } from "../crypto/index.ts";
import { MsgSendSchema } from "../gen/chain/bank/v1beta1/tx_pb.js";
import type { DevHome } from "./dev-chain.ts";
import { type RunningNode, startNode } from "./start-node.ts";

const PORTS = { rpcLaddr: "tcp://127.0.0.1:0", apiAddress: "tcp://127.0.0.1:0", grpcAddress: "127.0.0.1:0" };
const logger = pino({ level: "silent" });
const CONNECTIONS = 12;
const VALID_SENDS = 4;

let dir: Awaited<ReturnType<typeof tempDir>>;
let dev: DevHome;
let node: RunningNode | undefined;

before(async () => {
  ({ dir, dev } = await fastDevHome("chaind-flood-", "200ms"));
});

after(async () => {
  await node?.stop();
  await dir?.remove();
});

interface RpcAnswer {
  result?: { code: number; codespace: string; log: string; hash: string };
  error?: { message: string; data?: string };
}

/** One JSON-RPC call over a keep-alive agent (each flooder has its own connection). */
function rpc(url: URL, agent: Agent, method: string, tx: Uint8Array): Promise<RpcAnswer> {
  const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: { tx: Buffer.from(tx).toString("base64") } });
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: "POST",
        agent,
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          try {
            resolve(JSON.parse(Buffer.concat(chunks).toString("utf8")) as RpcAnswer);
          } catch (err) {
            reject(err);
          }
        });
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

describe("a flood of garbage txs", () => {
  test("is refused with sdk 2 before the app's CheckTx, and valid sends sent meanwhile commit", async () => {
    node = await startNode({ home: dev.home, logger, overrides: PORTS });
    const app = node.chain.app;
    const url = new URL(node.endpoints.rpc as string);
    await pollUntil(async () => (app.lastBlockHeight() >= 1n ? true : undefined), { what: "the first block" });

    // Count what reaches the app's CheckTx (the mempool calls it through this very object).
    const reached: Uint8Array[] = [];
    const checkTx = app.checkTx.bind(app);
    app.checkTx = (req) => {
      reached.push(req.tx);
      return checkTx(req);
    };

    const alice = dev.keys.find((k) => k.name === "alice");
    const bob = dev.keys.find((k) => k.name === "bob");
    assert.ok(alice !== undefined && bob !== undefined);
    const account = await node.chain.accountKeeper.getAccount(
      await app.createQueryContext(),
      addressFromBech32(alice.address),
    );
    assert.ok(account !== undefined);
    const signer = await openKeyring({ home: dev.home, backend: "test" }).signer("alice");
    const sends: Awaited<ReturnType<typeof signTx>>[] = [];
    for (let i = 0; i < VALID_SENDS; i++) {
      sends.push(
        await signTx({
          messages: [
            packAny(
              MsgSendSchema,
              create(MsgSendSchema, {
                fromAddress: alice.address,
                toAddress: bob.address,
                amount: [{ denom: "stake", amount: String(i + 1) }],
              }),
            ),
          ],
          fee: { amount: [], gasLimit: 200_000n },
          chainId: dev.chainId,
          accountNumber: account.accountNumber,
          sequence: account.sequence + BigInt(i),
          signer,
        }),
      );
    }

    // The flood: every connection sends 100 kB random payloads back to back until the valid sends have
    // committed (bounded, so a broken node cannot keep the test flooding forever).
    let flooding = true;
    const garbageAnswers: RpcAnswer[] = [];
    const agents: Agent[] = [];
    const flooders = Array.from({ length: CONNECTIONS }, async (_, c) => {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      agents.push(agent);
      for (let n = 0; flooding && n < 400; n++) {
        const method = c % 2 === 0 ? "broadcast_tx_sync" : "broadcast_tx_async";
        const answer = await rpc(url, agent, method, randomBytes(100_000));
        if (method === "broadcast_tx_sync") garbageAnswers.push(answer);
        else
          assert.equal(answer.result?.code, 0, `broadcast_tx_async answers before checking: ${JSON.stringify(answer)}`);
      }
    });

    // Valid sends during the flood, in sequence order, each on its own connection like a wallet.
    const walletAgent = new Agent({ keepAlive: true, maxSockets: 1 });
    agents.push(walletAgent);
    await pollUntil(async () => (garbageAnswers.length >= CONNECTIONS ? true : undefined), {
      what: "the flood to be under way",
    });
    for (const send of sends) {
      const answer = await rpc(url, walletAgent, "broadcast_tx_sync", send.txBytes);
      assert.equal(answer.result?.code, 0, JSON.stringify(answer));
      assert.equal(answer.result?.hash, send.txHash);
    }
    const committed = await pollUntil(
      async () => {
        const results = await Promise.all(
          sends.map((s) => node?.embedded?.engine.store.tx(Buffer.from(s.txHash, "hex"))),
        );
        return results.every((r) => r !== undefined) ? results : undefined;
      },
      { what: "the valid sends to commit", timeoutMs: 120_000 },
    );
    const stillFlooding = flooding && garbageAnswers.length > 0;
    flooding = false;
    await Promise.all(flooders);
    for (const agent of agents) agent.destroy();

    assert.ok(stillFlooding, "the valid sends committed while the flood was still going on");
    for (const r of committed) assert.equal(r?.result?.code, 0);
    assert.ok(garbageAnswers.length >= CONNECTIONS);
    for (const answer of garbageAnswers) {
      assert.equal(answer.result?.code, 2, JSON.stringify(answer).slice(0, 300));
      assert.equal(answer.result?.codespace, "sdk");
      assert.match(answer.result?.log ?? "", /tx parse error/);
    }
    // Only the valid sends ever reached the app's CheckTx (new, and rechecks after blocks): garbage never
    // queued for the app's lock.
    const validHex = new Set(sends.map((s) => Buffer.from(s.txBytes).toString("hex")));
    const reachedHex = new Set(reached.map((tx) => Buffer.from(tx).toString("hex")));
    assert.deepEqual([...reachedHex].sort(), [...validHex].sort());
    assert.equal(node.embedded?.engine.mempool.waitingChecks, 0);
  });
});
