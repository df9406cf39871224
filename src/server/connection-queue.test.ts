// The REST listener at api.max-open-connections, over real loopback sockets: a client that waits for
// a slot has its read timeout start when it is admitted, not when it connected (so a complete request
// that waited longer than rpc-read-timeout is still served), and the wait queue is bounded: beyond as
// many waiting as may be open, connections are closed at once.
import assert from "node:assert/strict";
import { connect, type Socket } from "node:net";
import { after, before, test } from "node:test";
import { parseAppConfig } from "../config/app-config.ts";
import { type ChainFixture, openChainFixture } from "../testing/chain-fixture.ts";
import { type RunningServers, startServers } from "./servers.ts";

const TOML = `
[api]
address = "tcp://127.0.0.1:0"
max-open-connections = 2
rpc-read-timeout = 1
[grpc]
enable = false
`;
const REQUEST = "GET /chain/upgrade/v1beta1/current_plan HTTP/1.1\r\nHost: x\r\n\r\n";

let chain: ChainFixture;
let servers: RunningServers;
const sockets: Socket[] = [];

before(async () => {
  chain = await openChainFixture();
  await chain.nextBlock();
  servers = await startServers({ backend: chain.backend, hooks: chain.hooks, config: parseAppConfig(TOML) });
});

after(async () => {
  for (const socket of sockets) socket.destroy();
  await servers?.stop();
  await chain?.close();
});

interface Connection {
  socket: Socket;
  received(): string;
  closed: Promise<string>;
}

async function open(): Promise<Connection> {
  const rest = servers.rest;
  assert.ok(rest !== undefined);
  const socket = connect((rest.address as { port: number }).port, "127.0.0.1");
  sockets.push(socket);
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", resolve);
    socket.once("error", reject);
  });
  socket.on("error", () => {});
  let text = "";
  socket.on("data", (chunk) => {
    text += chunk.toString();
  });
  return { socket, received: () => text, closed: new Promise((r) => socket.once("close", () => r(text))) };
}

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 1200 && !condition(); i++) await new Promise((r) => setTimeout(r, 50));
  assert.ok(condition(), `timed out waiting for ${what}`);
}

const gate = () => {
  assert.ok(servers.rest !== undefined);
  return servers.rest.gate;
};

test("a queued client's read timeout starts at admission: its complete request is served after a long wait", async () => {
  await until(() => gate().openConnections === 0, "no open connections");
  // Two keep-alive holders: each is served once, then idles in its slot (keep-alive 5 s).
  const holders = [await open(), await open()];
  for (const h of holders) h.socket.write(REQUEST);
  for (const h of holders) await until(() => h.received().includes("\r\n\r\n{"), "a holder's answer");
  const queued = await open();
  queued.socket.write(`${REQUEST.slice(0, -2)}Connection: close\r\n\r\n`);
  await until(() => gate().waitingConnections === 1, "the client to queue");
  // Wait longer than rpc-read-timeout (1 s) in the queue, then free a slot.
  await new Promise((r) => setTimeout(r, 2500));
  for (const h of holders) h.socket.destroy();
  const answer = await queued.closed;
  assert.match(answer, /^HTTP\/1\.1 200 /, answer);
  assert.match(answer, /"plan":null/);
});

test("the wait queue holds at most max-open-connections; later connections are closed at once", async () => {
  await until(() => gate().openConnections === 0 && gate().waitingConnections === 0, "an idle listener");
  const held = [await open(), await open()];
  await until(() => gate().openConnections === 2, "two open connections");
  const waiting = [await open(), await open()];
  await until(() => gate().waitingConnections === 2, "two waiting connections");
  const refused = await open();
  assert.equal(await refused.closed, "");
  assert.equal(gate().waitingConnections, 2);
  for (const c of [...held, ...waiting]) c.socket.destroy();
});
