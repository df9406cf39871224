// The consensus RPC's WebSocket at the protocol level, with a hand-written RFC 6455 client on a real socket:
// handshake, masking, fragmented messages, ping/pong, close, the size limit; subscribe/unsubscribe with
// CometBFT's query language, event shapes and composite-key maps; the per-client and per-server limits; close codes
// and request ids as CometBFT checks them; the bounds on a client's unread output (requests wait, events close).
import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { connect, type Socket } from "node:net";
import { after, before, describe, it } from "node:test";
import { type KvRpcNode, startKvRpcNode } from "../../../test/support/engine/kv-rpc-node.ts";
import { acceptKey, Opcode } from "./ws-frames.ts";

// biome-ignore lint/suspicious/noExplicitAny: test code walks arbitrary JSON-RPC answers
type Answer = any;

/** A minimal RFC 6455 client: masks what it sends, reads unmasked server frames. */
class RawWs {
  readonly socket: Socket;
  private buffer = Buffer.alloc(0);
  private readonly messages: Answer[] = [];
  private readonly control: { opcode: number; payload: Buffer }[] = [];
  private waiters: (() => void)[] = [];
  closed = false;

  private constructor(socket: Socket) {
    this.socket = socket;
    socket.on("data", (chunk: Buffer) => {
      this.buffer = Buffer.concat([this.buffer, chunk]);
      this.drain();
      for (const w of this.waiters.splice(0)) w();
    });
    socket.on("close", () => {
      this.closed = true;
      for (const w of this.waiters.splice(0)) w();
    });
  }

  /** Opens a connection and performs the handshake; resolves with the client or the refusal's status line. */
  static async open(port: number, path = "/websocket", extraHeaders = ""): Promise<RawWs | string> {
    const socket = connect(port, "127.0.0.1");
    await new Promise((resolve, reject) => socket.once("connect", resolve).once("error", reject));
    const key = randomBytes(16).toString("base64");
    socket.write(
      `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
        `Sec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n${extraHeaders}\r\n`,
    );
    let head = Buffer.alloc(0);
    while (!head.includes("\r\n\r\n")) {
      const chunk: Buffer | null = await new Promise((resolve) => {
        socket.once("data", resolve);
        socket.once("close", () => resolve(null));
      });
      if (chunk === null) break;
      head = Buffer.concat([head, chunk]);
    }
    const end = head.indexOf("\r\n\r\n");
    const text = head.subarray(0, end).toString();
    const status = text.split("\r\n")[0];
    if (!status.includes(" 101 ")) {
      socket.destroy();
      return status;
    }
    assert.match(text, new RegExp(`Sec-WebSocket-Accept: ${acceptKey(key).replace(/[+/]/g, "\\$&")}`, "i"));
    const ws = new RawWs(socket);
    const rest = head.subarray(end + 4);
    if (rest.length > 0) socket.emit("data", rest);
    return ws;
  }

  /** Sends one frame (masked unless `unmasked`). */
  frame(opcode: number, payload: Buffer, fin = true, unmasked = false): void {
    const mask = randomBytes(4);
    const n = payload.length;
    const lenBytes = n < 126 ? Buffer.from([n]) : n < 65536 ? Buffer.from([126, n >> 8, n & 255]) : Buffer.alloc(9, 0);
    if (n >= 65536) {
      lenBytes[0] = 127;
      lenBytes.writeBigUInt64BE(BigInt(n), 1);
    }
    lenBytes[0] |= unmasked ? 0 : 0x80;
    const body = Buffer.from(payload);
    if (!unmasked) for (let i = 0; i < body.length; i++) body[i] ^= mask[i & 3];
    this.socket.write(
      Buffer.concat([Buffer.from([(fin ? 0x80 : 0) | opcode]), lenBytes, unmasked ? Buffer.alloc(0) : mask, body]),
    );
  }

  send(body: unknown): void {
    this.frame(Opcode.text, Buffer.from(JSON.stringify(body)));
  }

  private drain(): void {
    // Server frames are never masked, so the parser's masking rule is applied to a masked copy.
    for (;;) {
      if (this.buffer.length < 2) return;
      let len = this.buffer[1] & 0x7f;
      let off = 2;
      if (len === 126) {
        if (this.buffer.length < 4) return;
        len = this.buffer.readUInt16BE(2);
        off = 4;
      } else if (len === 127) {
        if (this.buffer.length < 10) return;
        len = Number(this.buffer.readBigUInt64BE(2));
        off = 10;
      }
      if (this.buffer.length < off + len) return;
      assert.equal(this.buffer[1] & 0x80, 0, "server frames are not masked");
      const opcode = this.buffer[0] & 0x0f;
      const payload = this.buffer.subarray(off, off + len);
      this.buffer = this.buffer.subarray(off + len);
      if (opcode === Opcode.text) this.messages.push(JSON.parse(payload.toString()));
      else this.control.push({ opcode, payload: Buffer.from(payload) });
    }
  }

  private async until<T>(take: () => T | undefined, what: string): Promise<T> {
    for (;;) {
      const v = take();
      if (v !== undefined) return v;
      if (this.closed) throw new Error(`connection closed while waiting for ${what}`);
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  /** The next text message satisfying `pred` (earlier non-matching ones are kept). */
  next(pred: (m: Answer) => boolean = () => true): Promise<Answer> {
    return this.until(() => {
      const i = this.messages.findIndex(pred);
      return i < 0 ? undefined : this.messages.splice(i, 1)[0];
    }, "a message");
  }

  nextControl(opcode: number): Promise<Buffer> {
    return this.until(() => {
      const i = this.control.findIndex((c) => c.opcode === opcode);
      return i < 0 ? undefined : this.control.splice(i, 1)[0].payload;
    }, `control frame ${opcode}`);
  }

  waitClosed(): Promise<void> {
    return this.until(() => (this.closed ? true : undefined), "the close").then(() => undefined);
  }

  async call(id: number, method: string, params: unknown = {}): Promise<Answer> {
    this.send({ jsonrpc: "2.0", id, method, params });
    return this.next((m) => m.id === id && (m.error !== undefined || !("query" in (m.result ?? {}))));
  }
}

describe("consensus RPC WebSocket", { timeout: 120_000 }, () => {
  let node: KvRpcNode;
  let port: number;

  before(async () => {
    node = await startKvRpcNode({
      moniker: "ws-node",
      server: {
        websocket: { maxSubscriptionClients: 2, maxSubscriptionsPerClient: 2, maxMessageBytes: 4096 },
        // A short HTTP read timeout: an upgraded socket must not be subject to it.
        limits: { readTimeoutMs: 300 },
      },
    });
    port = node.port;
  });

  after(async () => {
    await node.close();
  });

  async function client(): Promise<RawWs> {
    const ws = await RawWs.open(port);
    assert.ok(ws instanceof RawWs, `handshake refused: ${ws}`);
    return ws;
  }

  it("refuses other paths and upgrades that are not a WebSocket handshake", async () => {
    assert.match((await RawWs.open(port, "/subscribe")) as string, / 404 /);
    const socket = connect(port, "127.0.0.1");
    socket.write("GET /websocket HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n");
    const reply: string = await new Promise((resolve) => socket.once("data", (d: Buffer) => resolve(d.toString())));
    socket.destroy();
    assert.match(reply, /^HTTP\/1\.1 400 /);
    assert.match(reply, /\r\n\r\nBad Request\n$/, "Go's http.Error text, as CometBFT's upgrader answers");
    // As CometBFT's upgrader (gorilla/websocket): a plain GET is a bad handshake, not an unknown path; another
    // method 405; a version other than 13 400 with the version it speaks.
    const plain = await fetch(`http://127.0.0.1:${port}/websocket`);
    assert.deepEqual([plain.status, await plain.text()], [400, "Bad Request\n"]);
    assert.equal(plain.headers.get("sec-websocket-version"), "13");
    const upgradeHeaders = {
      connection: "Upgrade",
      upgrade: "websocket",
      "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
    };
    for (const [extra, status] of [
      ["POST /websocket HTTP/1.1\r\nSec-WebSocket-Version: 13\r\n", 405],
      ["GET /websocket HTTP/1.1\r\nSec-WebSocket-Version: 8\r\n", 400],
    ] as const) {
      const raw = connect(port, "127.0.0.1");
      const headers = Object.entries(upgradeHeaders)
        .map(([k, v]) => `${k}: ${v}\r\n`)
        .join("");
      raw.write(`${extra}Host: x\r\n${headers}\r\n`);
      const answer: string = await new Promise((resolve) => raw.once("data", (d: Buffer) => resolve(d.toString())));
      raw.destroy();
      assert.match(answer, new RegExp(`^HTTP/1\\.1 ${status} `), extra);
      assert.match(answer, /sec-websocket-version: 13/i, extra);
    }
  });

  it("answers a message sent in the same packet as the handshake", async () => {
    const socket = connect(port, "127.0.0.1");
    await new Promise((resolve) => socket.once("connect", resolve));
    const mask = randomBytes(4);
    const body = Buffer.from(JSON.stringify({ jsonrpc: "2.0", id: 7, method: "health" }));
    const masked = body.map((b, i) => b ^ mask[i & 3]);
    socket.write(
      Buffer.concat([
        Buffer.from(
          "GET /websocket HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
            `Sec-WebSocket-Key: ${randomBytes(16).toString("base64")}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
        ),
        Buffer.from([0x81, 0x80 | body.length]),
        mask,
        masked,
      ]),
    );
    let received = "";
    await new Promise<void>((resolve, reject) => {
      socket.on("data", (chunk: Buffer) => {
        received += chunk.toString("latin1");
        if (received.includes('"id":7')) resolve();
      });
      socket.once("close", () => reject(new Error(`closed without an answer: ${received}`)));
    });
    assert.match(received, /"result":\{\}/);
    socket.destroy();
  });

  it("answers ordinary methods, fragmented messages and pings on the socket", async () => {
    const ws = await client();
    const health = await ws.call(1, "health");
    assert.deepEqual(health, { jsonrpc: "2.0", id: 1, result: {} });
    const text = Buffer.from(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "status", params: {} }));
    ws.frame(Opcode.text, text.subarray(0, 10), false);
    ws.frame(Opcode.continuation, text.subarray(10, 20), false);
    ws.frame(Opcode.ping, Buffer.from("hi")); // a control frame between fragments is allowed
    ws.frame(Opcode.continuation, text.subarray(20), true);
    assert.deepEqual(await ws.nextControl(Opcode.pong), Buffer.from("hi"));
    const status = await ws.next((m) => m.id === 2);
    assert.equal(status.result.node_info.moniker, "ws-node");
    const unknown = await ws.call(3, "no_such_method");
    assert.equal(unknown.error.code, -32601);
    ws.frame(Opcode.text, Buffer.from("{not json"));
    const parseError = await ws.next((m) => m.error?.code === -32700);
    assert.equal("id" in parseError, false, "no id key (CometBFT: id,omitempty)");
    ws.frame(Opcode.close, Buffer.from([0x03, 0xe8]));
    assert.equal((await ws.nextControl(Opcode.close)).readUInt16BE(0), 1000);
    await ws.waitClosed();
  });

  it("closes with 1009 on a message over the limit and 1002 on an unmasked frame", async () => {
    const big = await client();
    big.frame(Opcode.text, Buffer.alloc(3000, 0x20), false);
    big.frame(Opcode.continuation, Buffer.alloc(3000, 0x20), true);
    assert.equal((await big.nextControl(Opcode.close)).readUInt16BE(0), 1009);
    await big.waitClosed();
    const plain = await client();
    plain.frame(Opcode.text, Buffer.from("{}"), true, true);
    assert.equal((await plain.nextControl(Opcode.close)).readUInt16BE(0), 1002);
    await plain.waitClosed();
  });

  it("answers a close frame whose code is invalid (RFC 6455 §7.4) with 1002, and echoes a valid one", async () => {
    const invalid: [string, Buffer][] = [
      ["999", Buffer.from([0x03, 0xe7])],
      ["1005 (no endpoint may send it)", Buffer.from([0x03, 0xed])],
      ["2999 (unassigned)", Buffer.from([0x0b, 0xb7])],
      ["5000", Buffer.from([0x13, 0x88])],
      ["a one-byte payload", Buffer.from([0x03])],
      ["a reason that is not UTF-8", Buffer.from([0x03, 0xe8, 0xff])],
    ];
    for (const [what, payload] of invalid) {
      const ws = await client();
      ws.frame(Opcode.close, payload);
      assert.equal((await ws.nextControl(Opcode.close)).readUInt16BE(0), 1002, what);
      await ws.waitClosed();
    }
    const valid = await client();
    valid.frame(Opcode.close, Buffer.from([0x0f, 0xa0, 0x62, 0x79, 0x65])); // 4000 "bye"
    assert.equal((await valid.nextControl(Opcode.close)).readUInt16BE(0), 4000);
    await valid.waitClosed();
  });

  it("answers a request whose id is an object, an array or a boolean with CometBFT's parse error, without id", async () => {
    const ws = await client();
    for (const id of [{}, [1], true]) {
      for (const method of ["subscribe", "unsubscribe_all", "health"]) {
        ws.send({ jsonrpc: "2.0", id, method, params: { query: "tm.event='NewBlock'" } });
        const answer = await ws.next((m) => m.error !== undefined);
        assert.equal(answer.error.code, -32700, `${method} with id ${JSON.stringify(id)}`);
        assert.match(answer.error.data, /^error unmarshaling request: json-rpc ID .* is of unknown type/);
        assert.equal("id" in answer, false);
      }
    }
    // None of them subscribed.
    assert.equal((await ws.call(1, "unsubscribe_all")).error.data, "subscription not found");
    ws.socket.destroy();
  });

  it("delivers NewBlock, NewBlockHeader, NewBlockEvents and Tx events that match the query", async () => {
    const ws = await client();
    assert.deepEqual(await ws.call(1, "subscribe", { query: "tm.event='NewBlock'" }), {
      jsonrpc: "2.0",
      id: 1,
      result: {},
    });
    assert.deepEqual((await ws.call(2, "subscribe", ["tm.event = 'Tx' AND kv.key = 'alpha'"])).result, {});
    const block = await ws.next((m) => m.id === 1 && m.result?.query !== undefined);
    assert.equal(block.result.query, "tm.event='NewBlock'");
    assert.equal(block.result.data.type, "tendermint/event/NewBlock");
    assert.ok(block.result.data.value.block.header.height);
    assert.ok(block.result.data.value.block_id.hash);
    assert.deepEqual(block.result.events["tm.event"], ["NewBlock"]);
    assert.deepEqual(block.result.events["block.height"], [block.result.data.value.block.header.height]);
    // Not omitempty in CometBFT's ResponseFinalizeBlock: null when the block changes no validator.
    assert.equal(block.result.data.value.result_finalize_block.validator_updates, null);

    // Two txs; only the one whose kv.key is alpha matches the second subscription.
    for (const tx of ["beta=2", "alpha=1"]) {
      const r = await ws.call(10, "broadcast_tx_sync", { tx: Buffer.from(tx).toString("base64") });
      assert.equal(r.result.code, 0);
    }
    const txEvent = await ws.next((m) => m.id === 2 && m.result?.query !== undefined);
    const hash = createHash("sha256").update("alpha=1").digest("hex").toUpperCase();
    assert.equal(txEvent.result.data.type, "tendermint/event/Tx");
    const txr = txEvent.result.data.value.TxResult;
    assert.equal(Buffer.from(txr.tx, "base64").toString(), "alpha=1");
    // As a real CometBFT writes a Tx event (cmtjson, omitempty): code 0, empty log and index 0 are left out.
    assert.equal("code" in txr.result, false);
    assert.equal("log" in txr.result, false);
    assert.ok(Array.isArray(txr.result.events));
    assert.deepEqual(txEvent.result.events["tx.hash"], [hash]);
    assert.deepEqual(txEvent.result.events["tx.height"], [txr.height]);
    assert.deepEqual(txEvent.result.events["kv.secret"], ["1"]); // non-indexed attributes are matched too
    assert.deepEqual(txEvent.result.events["tm.event"], ["Tx"]);

    assert.deepEqual((await ws.call(3, "unsubscribe", { query: "tm.event='NewBlock'" })).result, {});
    const again = await ws.call(4, "unsubscribe", { query: "tm.event='NewBlock'" });
    assert.equal(again.error.code, -32603);
    assert.equal(again.error.data, "subscription not found");
    assert.deepEqual((await ws.call(5, "unsubscribe_all")).result, {});
    ws.frame(Opcode.close, Buffer.alloc(0));
    await ws.waitClosed();
  });

  it("a subscription outlives the HTTP read timeout (the upgraded socket is no longer an HTTP request)", async () => {
    const ws = await client();
    assert.deepEqual((await ws.call(1, "subscribe", { query: "tm.event='NewBlockHeader'" })).result, {});
    const start = Date.now();
    let events = 0;
    // Keep reading events until well past the 300 ms read timeout.
    while (Date.now() - start < 1500) {
      await ws.next((m) => m.id === 1 && m.result?.query !== undefined);
      events++;
    }
    assert.ok(events > 1);
    assert.equal(ws.closed, false);
    // A clean close: the server has dropped this client once the socket is closed (the limits test counts clients).
    ws.frame(Opcode.close, Buffer.alloc(0));
    await ws.waitClosed();
  });

  it("answers params that do not convert with CometBFT's WebSocket code, -32603 (HTTP says -32602)", async () => {
    const ws = await client();
    const badHeight = await ws.call(1, "block", { height: "abc" });
    assert.deepEqual([badHeight.error.code, badHeight.error.message], [-32603, "Internal error"]);
    assert.match(badHeight.error.data, /^error converting json params to arguments: /);
    const badQuery = await ws.call(2, "subscribe", { query: 5 });
    assert.deepEqual([badQuery.error.code, badQuery.error.message], [-32603, "Internal error"]);
    assert.equal((await ws.call(3, "no_such_method")).error.code, -32601);
    ws.socket.destroy();
    await ws.waitClosed();
  });

  it("tells subscriptions apart by the query's canonical form, and echoes the query as written", async () => {
    const ws = await client();
    const written = "tm.event='NewBlockHeader'";
    assert.deepEqual((await ws.call(1, "subscribe", { query: written })).result, {});
    const header = await ws.next((m) => m.id === 1 && m.result?.query !== undefined);
    assert.equal(header.result.query, written);
    // CometBFT keys a subscription by its parsed query's String(): spacing does not make another query.
    assert.equal(
      (await ws.call(2, "subscribe", { query: "tm.event = 'NewBlockHeader'" })).error.data,
      "already subscribed",
    );
    assert.deepEqual((await ws.call(3, "unsubscribe", { query: "  tm.event  =  'NewBlockHeader' " })).result, {});
    assert.equal((await ws.call(4, "unsubscribe", { query: written })).error.data, "subscription not found");
    // A fractional id comes back truncated, as Go's int(float64) keeps it.
    ws.send({ jsonrpc: "2.0", id: 5.7, method: "subscribe", params: { query: written } });
    assert.deepEqual((await ws.next((m) => m.id === 5 && m.result !== undefined && !("query" in m.result))).result, {});
    ws.socket.destroy();
    await ws.waitClosed();
  });

  it("applies the query language and the subscription limits with CometBFT's texts", async () => {
    const ws = await client();
    const bad = await ws.call(1, "subscribe", { query: "tm.event=" });
    assert.equal(bad.error.code, -32603);
    assert.match(bad.error.data, /^failed to parse query: /);
    assert.doesNotMatch(bad.error.data, /failed to parse query.*failed to parse query/, "the prefix once");
    const long = await ws.call(2, "subscribe", { query: `kv.key='${"x".repeat(600)}'` });
    assert.equal(long.error.data, "maximum query length exceeded");
    // As a real CometBFT: an absent query is parsed as "" and refused as a parse error (internal error).
    const noQuery = await ws.call(3, "subscribe", {});
    assert.equal(noQuery.error.code, -32603);
    assert.match(noQuery.error.data, /^failed to parse query: /);
    const badUnsubscribe = await ws.call(3, "unsubscribe", { query: "tm.event=" });
    assert.match(badUnsubscribe.error.data, /^failed to parse query: /, "unsubscribe parses the query first");
    assert.deepEqual((await ws.call(4, "subscribe", { query: "tm.event='NewBlockHeader'" })).result, {});
    assert.equal(
      (await ws.call(5, "subscribe", { query: "tm.event='NewBlockHeader'" })).error.data,
      "already subscribed",
    );
    assert.deepEqual(
      (await ws.call(6, "subscribe", { query: "block.height >= 1 AND block.height EXISTS" })).result,
      {},
    );
    assert.equal(
      (await ws.call(7, "subscribe", { query: "tm.event='Tx'" })).error.data,
      "max_subscriptions_per_client 2 reached",
    );
    const header = await ws.next((m) => m.id === 4 && m.result?.query !== undefined);
    assert.equal(header.result.data.type, "tendermint/event/NewBlockHeader");
    assert.ok(header.result.data.value.header.chain_id);
    const events = await ws.next((m) => m.id === 6 && m.result?.query !== undefined);
    assert.ok(["tendermint/event/NewBlock", "tendermint/event/NewBlockEvents"].includes(events.result.data.type));

    const second = await client();
    assert.deepEqual((await second.call(1, "subscribe", { query: "tm.event='NewBlock'" })).result, {});
    const third = await client();
    assert.equal(
      (await third.call(1, "subscribe", { query: "tm.event='NewBlock'" })).error.data,
      "max_subscription_clients 2 reached",
    );
    // A client that leaves frees its place.
    second.socket.destroy();
    await second.waitClosed();
    for (let id = 2; ; id++) {
      const r = await third.call(id, "subscribe", { query: "tm.event='NewBlock'" });
      if (r.result !== undefined) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    for (const c of [ws, third]) c.socket.destroy();
  });
});

/** Resolves once `condition` holds, checking it every few milliseconds (never a fixed wait). */
async function until(condition: () => boolean, what: string, attempts = 30_000): Promise<void> {
  for (let i = 0; !condition(); i++) {
    if (i >= attempts) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

// N3 of the round-3 reliability probe: replies to a client that never read them piled up without limit, and slow
// subscribers held ~120 MB each. What the node holds is counted in bytes (never RSS or time).
describe("WebSocket output bounds", { timeout: 300_000 }, () => {
  const PER_CONNECTION = 512 * 1024;
  const TOTAL = 1024 * 1024;
  // Control frames (a ping, the close frame) may follow a full buffer; they are a few bytes each.
  const CONTROL_SLACK = 256;
  let node: KvRpcNode;

  before(async () => {
    node = await startKvRpcNode({
      moniker: "ws-bounds",
      server: { websocket: { maxPendingBytes: PER_CONNECTION, maxTotalPendingBytes: TOTAL } },
    });
  });

  after(async () => {
    await node.close();
  });

  async function post(method: string, params: unknown): Promise<{ text: string; json: Answer }> {
    const response = await fetch(node.server.url, {
      method: "POST",
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
    });
    const text = await response.text();
    return { text, json: JSON.parse(text) };
  }

  function bigTx(key: string, valueBytes: number, seed: number): string {
    return Buffer.from(`${key}=${String(seed).padStart(8, "0")}${"v".repeat(valueBytes)}`).toString("base64");
  }

  async function subscriber(): Promise<RawWs> {
    const ws = await RawWs.open(node.port);
    assert.ok(ws instanceof RawWs, `handshake refused: ${ws}`);
    return ws;
  }

  it("a client that pipelines requests and never reads holds at most the bound plus one reply", async () => {
    const committed = await post("broadcast_tx_commit", { tx: bigTx("flood", 100_000, 0) });
    const height = committed.json.result.height;
    // The same reply over HTTP, pretty-printed: larger than the compact one the WebSocket sends.
    const replyBytes = Buffer.byteLength((await post("block", { height })).text);
    const ws = await subscriber();
    ws.socket.pause(); // never reads again
    // 250 replies of ~140 kB: far more than the kernel's socket buffers and the bound together.
    for (let id = 1; id <= 250; id++) ws.send({ jsonrpc: "2.0", id, method: "block", params: { height } });
    const limit = PER_CONNECTION + replyBytes + CONTROL_SLACK;
    node.server.takeWebSocketOutputPeaks();
    await until(() => {
      const held = node.server.webSocketOutput.largestBytes;
      assert.ok(held <= limit, `the node holds ${held} unread bytes for one client (bound ${limit})`);
      return node.server.webSocketOutput.waiting === 1;
    }, "the server to stop reading the client's requests");
    const peak = node.server.takeWebSocketOutputPeaks().connectionBytes;
    assert.ok(peak <= limit, `the node held ${peak} unread bytes for one client (bound ${limit})`);
    assert.ok(peak >= PER_CONNECTION, "the output did reach the bound (else this test proves nothing)");
    ws.socket.destroy();
    await until(() => {
      const output = node.server.webSocketOutput;
      return output.connections === 0 && output.totalBytes === 0 && output.largestBytes === 0;
    }, "the counters to return to 0 once the client left");
  });

  it("slow subscribers are closed before their unread events pass the bound, and all stay within the budget", async () => {
    const clients: RawWs[] = [];
    for (let i = 0; i < 3; i++) {
      const ws = await subscriber();
      // Three subscriptions matching each Tx event (one per tx, so each event is well under the bound; a NewBlock
      // event of several big txs could exceed it, and a lone event larger than the bound is still sent).
      for (const [id, query] of ["tm.event='Tx'", "tx.height > 0", "kv.key = 'slow'"].entries()) {
        assert.deepEqual((await ws.call(id + 1, "subscribe", { query })).result, {});
      }
      ws.socket.pause(); // reads nothing from now on
      clients.push(ws);
    }
    node.server.takeWebSocketOutputPeaks();
    // ~20 kB values: each block then carries a few hundred kB of matching events per client.
    for (let i = 1; i <= 400 && node.server.webSocketOutput.connections > 0; i++) {
      const r = await post("broadcast_tx_sync", { tx: bigTx("slow", 20_000, i) });
      assert.equal(r.json.result.code, 0);
    }
    assert.equal(node.server.webSocketOutput.connections, 0, "every slow subscriber was closed");
    const peaks = node.server.takeWebSocketOutputPeaks();
    assert.ok(
      peaks.connectionBytes <= PER_CONNECTION + CONTROL_SLACK,
      `one client held ${peaks.connectionBytes} bytes`,
    );
    assert.ok(
      peaks.totalBytes <= TOTAL + CONTROL_SLACK,
      `all clients held ${peaks.totalBytes} bytes (budget ${TOTAL})`,
    );
    assert.ok(peaks.connectionBytes > PER_CONNECTION / 2, "events were buffered (else this test proves nothing)");
    assert.equal(node.server.webSocketOutput.totalBytes, 0, "nothing is held once they are gone");
    for (const ws of clients) ws.socket.destroy();
  });

  it("a subscriber that reads what it gets keeps its connection while others are closed", async () => {
    const reader = await subscriber();
    assert.deepEqual((await reader.call(1, "subscribe", { query: "tm.event='Tx'" })).result, {});
    const r = await post("broadcast_tx_sync", { tx: bigTx("read", 20_000, 1) });
    assert.equal(r.json.result.code, 0);
    const event = await reader.next((m) => m.id === 1 && m.result?.query !== undefined);
    assert.equal(event.result.data.type, "tendermint/event/Tx");
    assert.equal(reader.closed, false);
    reader.socket.destroy();
  });
});
