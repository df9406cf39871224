// The CLI's --wait subscription against a real consensus RPC (the embedded engine with the KV test app): it
// resolves when the tx's block is committed, and it says "unavailable" where a WebSocket cannot be had.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { createServer } from "node:http";
import { after, before, describe, it } from "node:test";
import { type KvRpcNode, startKvRpcNode } from "../../../test/support/engine/kv-rpc-node.ts";
import type { RpcServer } from "../../engine/rpc/rpc-server.ts";
import { subscribeTxInclusion, websocketUrlOf } from "./tx-subscription.ts";

describe("waiting for a tx over the WebSocket", { timeout: 60_000 }, () => {
  let node: KvRpcNode;
  let server: RpcServer;

  before(async () => {
    node = await startKvRpcNode({ moniker: "n" });
    server = node.server;
  });

  after(async () => {
    await node.close();
  });

  it("maps node addresses to WebSocket URLs", () => {
    assert.equal(websocketUrlOf("tcp://localhost:26657"), "ws://localhost:26657/websocket");
    assert.equal(websocketUrlOf("http://10.0.0.1:26657/"), "ws://10.0.0.1:26657/websocket");
    assert.equal(websocketUrlOf("https://rpc.example:443"), "wss://rpc.example:443/websocket");
    assert.equal(websocketUrlOf("unix:///tmp/rpc.sock"), undefined);
  });

  it("resolves once the tx is in a committed block", async () => {
    const tx = "wait-key=1";
    const hash = createHash("sha256").update(tx).digest("hex").toUpperCase();
    const node = server.url.replace("http://", "tcp://");
    const waiter = await subscribeTxInclusion(node, hash);
    assert.ok(waiter, "the subscription was confirmed");
    try {
      const answer = await fetch(server.url, {
        method: "POST",
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "broadcast_tx_sync",
          params: { tx: Buffer.from(tx).toString("base64") },
        }),
      });
      assert.equal(((await answer.json()) as { result: { code: number } }).result.code, 0);
      await waiter.included;
      // The tx is indexed by the time the event is out.
      const found = await fetch(`${server.url}/tx?hash=0x${hash}`);
      assert.equal(found.status, 200);
    } finally {
      waiter.close();
    }
  });

  it("is unavailable where no WebSocket answers: a closed port, a server that refuses upgrades", async () => {
    assert.equal(await subscribeTxInclusion("tcp://127.0.0.1:1", "AB"), undefined);
    const plain = createServer((_req, res) => res.end("no"));
    await new Promise<void>((resolve) => plain.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = plain.address() as { port: number };
      assert.equal(await subscribeTxInclusion(`tcp://127.0.0.1:${port}`, "AB"), undefined);
    } finally {
      plain.closeAllConnections();
      await new Promise((resolve) => plain.close(resolve));
    }
  });
});
