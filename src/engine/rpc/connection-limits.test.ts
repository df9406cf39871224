// The consensus RPC's connection handling over real loopback sockets, against a real engine:
// rpc.max_open_connections closes connections beyond the limit and frees the slot when one closes;
// partial headers and idle connections are closed by the read timeout (CometBFT: 10 s; 1 s here), a stalled
// body gets CometBFT's read error; the defaults are CometBFT's; an upgraded (WebSocket) connection that its client
// closes frees its slot at once.
import assert from "node:assert/strict";
import { connect, type Socket } from "node:net";
import { after, before, test } from "node:test";
import { type KvRpcNode, startKvRpcNode } from "../../../test/support/engine/kv-rpc-node.ts";
import { createLimitedRpcServer, RPC_READ_TIMEOUT_MS, rpcWriteTimeoutMs } from "./connection-limits.ts";
import type { RpcServer } from "./rpc-server.ts";

const MAX_OPEN = 3;
let node: KvRpcNode;
let server: RpcServer;
const sockets: Socket[] = [];

before(async () => {
  node = await startKvRpcNode({
    moniker: "limits",
    timeoutCommitMs: 10,
    run: false,
    server: { limits: { maxOpenConnections: MAX_OPEN, readTimeoutMs: 1000 } },
  });
  server = node.server;
});

after(async () => {
  for (const socket of sockets) socket.destroy();
  await node?.close();
});

interface Connection {
  socket: Socket;
  closed: Promise<string>;
}

/** Connects and collects what the server sends until it closes the connection. */
async function open(): Promise<Connection> {
  const socket = connect((server.address as { port: number }).port, "127.0.0.1");
  sockets.push(socket);
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", resolve);
    socket.once("error", reject);
  });
  socket.on("error", () => {});
  let received = "";
  socket.on("data", (chunk) => {
    received += chunk.toString();
  });
  const closed = new Promise<string>((resolve) => socket.once("close", () => resolve(received)));
  return { socket, closed };
}

async function status(): Promise<number> {
  const response = await fetch(`${server.url}/health`, { headers: { connection: "close" } });
  await response.text();
  return response.status;
}

/** Resolves when `promise` settles, or with "still open" after `ms` (a bound far above the timeouts tested). */
function within<T>(promise: Promise<T>, ms: number): Promise<T | "still open"> {
  return Promise.race([promise, new Promise<"still open">((r) => setTimeout(() => r("still open"), ms).unref())]);
}

test("connections beyond rpc.max_open_connections are closed; a freed slot serves again", async () => {
  const held = [await open(), await open(), await open()];
  // Each held connection has started a request (so the server has surely accepted it).
  for (const c of held) c.socket.write("GET /health HTTP/1.1\r\nHost: x\r\n");
  const extra = await open();
  assert.equal(await within(extra.closed, 30_000), "", "the connection beyond the limit was not closed at once");
  held[0].socket.destroy();
  await held[0].closed;
  // The slot is free again (the server sees the close a moment later: retry until served).
  let served = 0;
  for (let attempt = 0; attempt < 200 && served !== 200; attempt++) {
    served = await status().catch(() => 0);
    if (served !== 200) await new Promise((r) => setTimeout(r, 50));
  }
  assert.equal(served, 200);
  for (const c of held.slice(1)) c.socket.destroy();
  await Promise.all(held.map((c) => c.closed));
});

// N2 of the round-3 reliability probe: upgraded sockets ignored the client's FIN and held their slot until the ping
// timer (~54 s), so a burst of upgrade-and-close cycles locked every new RPC connection out.
test("WebSocket connections closed by the client (FIN, no close frame) free their slot at once", async () => {
  const port = (server.address as { port: number }).port;
  for (let i = 0; i < 3 * MAX_OPEN; i++) {
    const c = await open();
    c.socket.write(
      "GET /websocket HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
        `Sec-WebSocket-Key: ${Buffer.alloc(16, i).toString("base64")}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
    );
    // Upgraded: the 101 has arrived (a connection refused over the cap would close without one).
    await new Promise<void>((resolve, reject) => {
      const check = () => {
        if (c.socket.bytesRead > 0) resolve();
      };
      c.socket.on("data", check);
      c.socket.once("close", () => reject(new Error(`cycle ${i}: closed before the 101 (port ${port})`)));
    });
    c.socket.end(); // FIN only, as a client process that exits does
    // Before the fix the server kept its side open for ~54 s; 30 s is far above a prompt close on any machine.
    assert.notEqual(await within(c.closed, 30_000), "still open", `cycle ${i}: the server kept the socket open`);
  }
  // Every slot is free again: the server counts no connection, and a plain request is served.
  while ((await server.openConnections()) > 0) await new Promise((r) => setTimeout(r, 10));
  assert.equal(await status(), 200);
});

// As a real CometBFT v0.38 answered (scripts/rpc-compare.ts): Go closes an idle or half-sent request silently, and
// answers a stalled body with its JSON-RPC 400.
test("partial headers and idle connections are closed by the read timeout without an answer", async () => {
  const partial = await open();
  partial.socket.write("GET /status HTTP/1.1\r\nHost: x\r\n");
  const idle = await open();
  // Node's own defaults held these 75–95 s; a 30 s bound catches a missing timeout on any machine.
  const [partialAnswer, idleAnswer] = await Promise.all([within(partial.closed, 30_000), within(idle.closed, 30_000)]);
  assert.equal(partialAnswer, "");
  assert.equal(idleAnswer, "");
});

test("a stalled body gets CometBFT's 400 read error, without an id, and the connection closes", async () => {
  const stalled = await open();
  const { localPort, remotePort } = stalled.socket;
  stalled.socket.write(
    'POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"jsonrpc"',
  );
  const answer = await within(stalled.closed, 30_000);
  assert.notEqual(answer, "still open");
  const [head, body] = String(answer).split("\r\n\r\n");
  assert.match(head!, /^HTTP\/1\.1 400 /);
  assert.deepEqual(JSON.parse(body!), {
    jsonrpc: "2.0",
    error: {
      code: -32600,
      message: "Invalid Request",
      data: `error reading request body: read tcp 127.0.0.1:${remotePort}->127.0.0.1:${localPort}: i/o timeout`,
    },
  });
});

test("a request that is not HTTP gets Go's plain-text 400 and the connection closes", async () => {
  const garbage = await open();
  garbage.socket.write("NOT HTTP AT ALL\r\n\r\n");
  const answer = String(await within(garbage.closed, 30_000));
  assert.match(answer, /^HTTP\/1\.1 400 Bad Request\r\n/);
  assert.match(answer, /\r\n\r\n400 Bad Request$/);
});

test("defaults are CometBFT's: 10 s to read a request, write time covers broadcast_tx_commit", () => {
  const http = createLimitedRpcServer({});
  assert.equal(http.headersTimeout, RPC_READ_TIMEOUT_MS);
  assert.equal(http.requestTimeout, RPC_READ_TIMEOUT_MS);
  assert.equal(RPC_READ_TIMEOUT_MS, 10_000);
  assert.equal(rpcWriteTimeoutMs(10_000), 11_000);
  assert.equal(rpcWriteTimeoutMs(1_000), 10_000);
  http.close();
});
