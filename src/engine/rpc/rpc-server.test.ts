import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { Comet38Client, connectComet, isComet38Client } from "@cosmjs/tendermint-rpc";
import { makeTestChain, type TestChain, waitForHeight } from "../../../test/support/engine/fixtures.ts";
import { KvApp } from "../../../test/support/engine/kv-app.ts";
import { Engine } from "../engine.ts";
import { headerHash } from "../hashing/hashes.ts";
import { RPC_METHODS, type RpcContext } from "./rpc-methods.ts";
import { RpcServer } from "./rpc-server.ts";

const enc = (s: string) => new TextEncoder().encode(s);
const b64 = (s: string) => Buffer.from(s).toString("base64");
const sha = (s: string) => createHash("sha256").update(s).digest("hex").toUpperCase();

/** Parsed JSON answers, walked freely by the assertions. */
// biome-ignore lint/suspicious/noExplicitAny: test code navigates arbitrary JSON-RPC answers
type Answer = any;

interface Fixture {
  chain: TestChain;
  engine: Engine;
  server: RpcServer;
  running: Promise<unknown>;
}

async function startNode(opts: {
  run: boolean;
  mempool?: { size?: number; maxTxBytes?: number };
  maxBodyBytes?: number;
  app?: KvApp;
}): Promise<Fixture> {
  const chain = await makeTestChain({ appState: { seeded: "1" } });
  const store = await chain.openStore();
  const engine = await Engine.start({
    app: opts.app ?? new KvApp(),
    store,
    genesis: chain.genesis,
    privValidator: await chain.privValidator(),
    consensus: { timeoutCommitMs: 10, createEmptyBlocks: true, createEmptyBlocksIntervalMs: 0 },
    mempool: opts.mempool,
  });
  const server = await RpcServer.listen({
    context: {
      engine,
      node: {
        moniker: "test-node",
        nodeId: "0123456789abcdef0123456789abcdef01234567",
        p2pListenAddr: "tcp://0.0.0.0:26656",
        rpcListenAddr: "tcp://127.0.0.1:0",
        timeoutBroadcastTxCommitMs: 5000,
      },
    },
    listen: { host: "127.0.0.1", port: 0 },
    maxBodyBytes: opts.maxBodyBytes,
  });
  const running = opts.run ? engine.run() : Promise.resolve();
  return { chain, engine, server, running };
}

async function stopNode(f: Fixture) {
  await f.server.close();
  await f.engine.stop();
  await f.running;
  await f.engine.store.close();
  await f.chain.cleanup();
}

async function post(f: Fixture, body: unknown): Promise<{ status: number; json: Answer }> {
  const res = await fetch(f.server.url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text === "" ? undefined : JSON.parse(text) };
}

async function call(f: Fixture, method: string, params: unknown = {}) {
  return (await post(f, { jsonrpc: "2.0", id: 7, method, params })).json;
}

async function get(f: Fixture, path: string): Promise<{ status: number; json: Answer }> {
  const res = await fetch(`${f.server.url}${path}`);
  return { status: res.status, json: JSON.parse(await res.text()) };
}

describe("consensus RPC over real sockets", () => {
  let f: Fixture;
  before(async () => {
    f = await startNode({ run: true });
    await waitForHeight(f.engine, 2n);
  });
  after(() => stopNode(f));

  it("status has CometBFT's shape and a 0.38 version", async () => {
    const r = await call(f, "status");
    assert.equal(r.jsonrpc, "2.0");
    assert.equal(r.id, 7);
    const s = r.result;
    assert.match(s.node_info.version, /^0\.38\./);
    assert.equal(s.node_info.network, "test-chain");
    assert.deepEqual(s.node_info.protocol_version, { p2p: "8", block: "11", app: "0" });
    assert.match(s.sync_info.latest_block_height, /^\d+$/);
    assert.match(s.sync_info.latest_block_hash, /^[0-9A-F]{64}$/);
    assert.match(s.sync_info.latest_app_hash, /^[0-9A-F]{64}$/);
    assert.equal(s.sync_info.earliest_block_height, "1");
    assert.equal(s.sync_info.catching_up, false);
    assert.equal(s.validator_info.voting_power, "10");
    assert.equal(s.validator_info.pub_key.type, "tendermint/PubKeyEd25519");
  });

  it("block, header, commit and blockchain agree, with uppercase hex hashes and string int64s", async () => {
    const block = (await get(f, "/block?height=2")).json;
    assert.equal(block.id, -1);
    const { block_id, block: b } = block.result;
    assert.equal(b.header.height, "2");
    assert.deepEqual(b.header.version, { block: "11" }, "app version 0 is left out");
    assert.equal(typeof block_id.parts.total, "number");
    assert.match(block_id.hash, /^[0-9A-F]{64}$/);
    assert.equal(b.last_commit.height, "1");
    assert.equal(b.last_commit.signatures[0].block_id_flag, 2);
    assert.deepEqual(b.evidence, { evidence: [] });
    const stored = await f.engine.store.block(2n);
    assert.equal(block_id.hash, Buffer.from(headerHash(stored!.block.header)).toString("hex").toUpperCase());

    const first = (await call(f, "block", { height: "1" })).result.block;
    assert.deepEqual(first.header.last_block_id, { hash: "", parts: { total: 0, hash: "" } });
    assert.deepEqual(first.last_commit, {
      height: "0",
      round: 0,
      block_id: { hash: "", parts: { total: 0, hash: "" } },
      signatures: [],
    });
    assert.deepEqual(first.data, { txs: [] });

    const header = (await call(f, "header", { height: "2" })).result.header;
    assert.deepEqual(header, b.header);
    const commit = (await call(f, "commit", { height: "1" })).result;
    assert.equal(commit.canonical, true);
    assert.deepEqual(commit.signed_header.commit, b.last_commit);
    const chain = (await call(f, "blockchain", { minHeight: "1", maxHeight: "2" })).result;
    assert.deepEqual(
      chain.block_metas.map((m: Answer) => m.header.height),
      ["2", "1"],
    );
    assert.equal(chain.block_metas[0].block_id.hash, block_id.hash);
    assert.equal(chain.block_metas[0].num_txs, "0");
  });

  it("broadcast_tx_commit, tx (with proof), tx_search and block_results", async () => {
    const tx = "hello=world";
    const committed = (await call(f, "broadcast_tx_commit", { tx: b64(tx) })).result;
    assert.equal(committed.check_tx.code, 0);
    assert.equal(committed.tx_result.code, 0);
    assert.equal(committed.hash, sha(tx));
    const height = committed.height;
    assert.match(height, /^[1-9]\d*$/);

    const found = (await call(f, "tx", { hash: Buffer.from(sha(tx), "hex").toString("base64"), prove: true })).result;
    assert.equal(found.hash, sha(tx));
    assert.equal(found.height, height);
    assert.equal(found.index, 0);
    assert.equal(found.tx, b64(tx));
    assert.equal(found.tx_result.gas_used, String(tx.length));
    assert.deepEqual(found.tx_result.events[0].attributes[0], { key: "key", value: "hello", index: true });
    assert.equal(found.proof.proof.total, "1");
    const uri = (await get(f, `/tx?hash=0x${sha(tx)}`)).json.result;
    assert.equal(uri.hash, sha(tx));

    const search = (await call(f, "tx_search", { query: `kv.key='hello' AND tx.height=${height}` })).result;
    assert.equal(search.total_count, "1");
    assert.equal(search.txs[0].hash, sha(tx));
    const byUri = (await get(f, `/tx_search?query=%22message.sender='sender-hello'%22`)).json.result;
    assert.equal(byUri.total_count, "1");

    const results = (await call(f, "block_results", { height })).result;
    assert.equal(results.height, height);
    assert.equal(results.txs_results[0].code, 0);
    assert.equal(results.txs_results[0].data, b64("world"));
    assert.equal(typeof results.app_hash, "string");
    assert.equal(results.finalize_block_events[0].type, "block");
    assert.equal(results.validator_updates, null);
  });

  it("abci_query in both forms, abci_info, validators, genesis, health", async () => {
    const q = (await call(f, "abci_query", { path: "/kv", data: Buffer.from("seeded").toString("hex") })).result
      .response;
    assert.equal(q.code, 0);
    assert.equal(q.value, b64("1"));
    assert.equal(q.proofOps, null);
    assert.match(q.height, /^\d+$/);
    const viaGet = (await get(f, `/abci_query?path="/kv"&data=0x${Buffer.from("seeded").toString("hex")}`)).json.result
      .response;
    assert.equal(viaGet.value, b64("1"));
    const missing = (await get(f, `/abci_query?path="/kv"&data="absent"`)).json.result.response;
    assert.equal(missing.code, 22);
    assert.equal(missing.value, null);
    const info = (await call(f, "abci_info")).result.response;
    assert.equal(info.data, "kv");
    assert.match(info.last_block_height, /^\d+$/);
    const vals = (await call(f, "validators")).result;
    assert.deepEqual(
      [vals.count, vals.total, vals.validators[0].voting_power, vals.validators[0].proposer_priority],
      ["1", "1", "10", "0"],
    );
    const genesis = (await call(f, "genesis")).result.genesis;
    assert.equal(genesis.chain_id, "test-chain");
    assert.equal(genesis.initial_height, "1");
    assert.equal(genesis.consensus_params.block.max_bytes, "22020096");
    assert.equal(genesis.consensus_params.evidence.max_age_duration, "172800000000000");
    assert.deepEqual(genesis.app_state, { seeded: "1" });
    assert.deepEqual((await call(f, "health")).result, {});
  });

  it("answers bad requests with CometBFT's error shape and keeps running", async () => {
    const unknown = await post(f, { jsonrpc: "2.0", id: 1, method: "no_such_method", params: {} });
    assert.equal(unknown.status, 200);
    assert.deepEqual(unknown.json, { jsonrpc: "2.0", id: 1, error: { code: -32601, message: "Method not found" } });
    const badParams = (await call(f, "block", { height: "five" })).error;
    assert.equal(badParams.code, -32602);
    assert.equal(badParams.message, "Invalid params");
    assert.match(badParams.data, /height: expected an integer as a JSON string/);
    const badB64 = (await call(f, "broadcast_tx_sync", { tx: "not base64!" })).error;
    assert.equal(badB64.code, -32602);
    const future = await get(f, "/block?height=999999");
    assert.equal(future.status, 500);
    assert.equal(future.json.id, -1);
    assert.equal(future.json.error.code, -32603);
    assert.match(
      future.json.error.data,
      /^height 999999 must be less than or equal to the current blockchain height \d+$/,
    );
    const negative = (await call(f, "block", { height: "-1" })).error;
    assert.equal(negative.data, "height must be greater than 0, but got -1");
    const notFound = (await call(f, "tx", { hash: Buffer.alloc(32).toString("base64") })).error;
    assert.deepEqual(notFound, { code: -32603, message: "Internal error", data: `tx (${"00".repeat(32)}) not found` });
    const badQuery = (await call(f, "tx_search", { query: "tx.height" })).error;
    assert.match(badQuery.data, /failed to parse query/);
    const badPage = (await call(f, "tx_search", { query: "tx.height>0", page: "99" })).error;
    assert.match(badPage.data, /^page should be within \[1, \d+\] range, given 99$/);
    const parse = await post(f, "{not json");
    assert.equal(parse.status, 500);
    assert.equal(parse.json.error.code, -32700);
    const batch = await post(f, [
      { jsonrpc: "2.0", id: "a", method: "health" },
      { jsonrpc: "2.0", method: "health" },
      { jsonrpc: "2.0", id: 2, method: "nope" },
    ]);
    assert.deepEqual(batch.json, [
      { jsonrpc: "2.0", id: "a", result: {} },
      { jsonrpc: "2.0", id: 2, error: { code: -32601, message: "Method not found" } },
    ]);
    const notification = await post(f, { jsonrpc: "2.0", method: "health" });
    assert.equal(notification.json, undefined);
    const tooMany = await post(
      f,
      Array.from({ length: 11 }, (_, i) => ({ jsonrpc: "2.0", id: i, method: "health" })),
    );
    assert.equal(tooMany.status, 400);
    assert.equal(tooMany.json.error.data, "batch request exceeds maximum (10) allowed number of requests");
    assert.match((await call(f, "status")).result.node_info.version, /^0\.38\./, "still serving");
  });

  // Each of these was compared against a real CometBFT v0.38.25 (scripts/rpc-compare.ts) and differed.
  it("answers as CometBFT v0.38.25 does where a real node was compared", async () => {
    const unknownGet = await fetch(`${f.server.url}/no_such_method`);
    assert.equal(unknownGet.status, 404, "Go's mux: a path that names no method");
    assert.equal(unknownGet.headers.get("content-type"), "text/plain; charset=utf-8");
    assert.equal(await unknownGet.text(), "404 page not found\n");

    // Routed by path whatever the method, as CometBFT's mux: a method's path is its URI form, "/" JSON-RPC.
    for (const method of ["POST", "DELETE"]) {
      const viaPath = await fetch(`${f.server.url}/health`, { method });
      assert.deepEqual([viaPath.status, await viaPath.json()], [200, { jsonrpc: "2.0", id: -1, result: {} }]);
    }
    const putRoot = await fetch(`${f.server.url}/`, { method: "PUT" });
    assert.equal(putRoot.status, 200);
    assert.match(await putRoot.text(), /Available endpoints/, "an empty body at / lists the endpoints");

    const parse = await post(f, "{not json");
    assert.equal(parse.status, 500);
    assert.deepEqual(Object.keys(parse.json), ["jsonrpc", "error"], "no id at all (id,omitempty), not id null");
    assert.equal(parse.json.error.code, -32700);

    // What does not decode into requests is a parse error for the whole body (Go's json.Unmarshal fails).
    for (const body of ["[1]", '"health"', '{"jsonrpc":"2.0","id":{},"method":"health"}', '[{"id":1},2]']) {
      const unfit = await post(f, body);
      assert.equal(unfit.status, 500, body);
      assert.deepEqual(Object.keys(unfit.json), ["jsonrpc", "error"], body);
      assert.equal(unfit.json.error.code, -32700, body);
      assert.match(unfit.json.error.data, /^error unmarshaling request: /, body);
    }

    // Go keeps a numeric id as int(float64): a fractional one comes back truncated.
    assert.equal((await post(f, { jsonrpc: "2.0", id: 1.5, method: "health" })).json.id, 1);
    assert.equal((await post(f, { jsonrpc: "2.0", id: "1.5", method: "health" })).json.id, "1.5");

    const emptyBatch = await post(f, "[]");
    assert.deepEqual([emptyBatch.status, emptyBatch.json], [200, undefined], "an empty batch: 200 and no body");

    for (const method of ["block", "header", "commit", "block_results", "validators"]) {
      const zero = (await call(f, method, { height: "0" })).error;
      assert.deepEqual(
        zero,
        { code: -32603, message: "Internal error", data: "height must be greater than 0, but got 0" },
        `${method} height=0 is an error, not the latest height`,
      );
      const viaGet = await get(f, `/${method}?height=0`);
      assert.equal(viaGet.status, 500);
      assert.equal(viaGet.json.error.data, "height must be greater than 0, but got 0");
    }
    assert.equal((await get(f, "/block?height=")).json.result.block.header.chain_id, "test-chain", "empty = absent");

    // header_by_hash takes hex in JSON-RPC (HexBytes), block_by_hash base64 ([]byte).
    const latestHeader = (await call(f, "header", { height: "1" })).result.header;
    const one = (await call(f, "block", { height: "1" })).result.block_id.hash as string;
    assert.deepEqual((await call(f, "header_by_hash", { hash: one })).result.header, latestHeader);
    const byB64 = (await call(f, "block_by_hash", { hash: Buffer.from(one, "hex").toString("base64") })).result;
    assert.equal(byB64.block.header.height, "1");

    const noHash = (await call(f, "tx")).error;
    assert.deepEqual(noHash, { code: -32603, message: "Internal error", data: "transaction hash cannot be empty" });

    // An absent tx is CheckTx'd as an empty tx (the app refuses it), not an invalid-params error.
    const noTx = (await call(f, "broadcast_tx_sync")).result;
    assert.deepEqual(noTx, {
      code: 1,
      data: "",
      log: "invalid tx format: expected key=value",
      codespace: "kv",
      hash: sha(""),
    });
    const noTxGet = (await get(f, "/broadcast_tx_sync")).json.result;
    assert.equal(noTxGet.hash, sha(""));

    // block_search lists the newest first unless asked "asc" (tx_search is the other way round), as CometBFT's.
    const heightsOf = (r: Answer) => r.result.blocks.map((b: Answer) => b.block.header.height);
    const range = "block.height >= 1 AND block.height <= 2";
    assert.deepEqual(heightsOf(await call(f, "block_search", { query: range })), ["2", "1"]);
    assert.deepEqual(heightsOf(await call(f, "block_search", { query: range, order_by: "desc" })), ["2", "1"]);
    assert.deepEqual(heightsOf(await call(f, "block_search", { query: range, order_by: "asc" })), ["1", "2"]);

    // genesis_chunked: CometBFT's text names the last valid index as the count; the chunk is a Go uint.
    const pastEnd = await get(f, "/genesis_chunked?chunk=5");
    assert.deepEqual(pastEnd.json.error, {
      code: -32603,
      message: "Internal error",
      data: "there are 0 chunks, 5 is invalid",
    });
    assert.equal((await get(f, "/genesis_chunked?chunk=-1")).json.error.code, -32602);
    assert.equal((await call(f, "genesis_chunked", { chunk: "-1" })).error.code, -32602);
    assert.equal((await call(f, "genesis_chunked", { chunk: "0" })).result.total, "1");
  });
});

describe("consensus RPC answer headers", () => {
  let f: Fixture;
  before(async () => {
    f = await startNode({ run: true });
    await waitForHeight(f.engine, 2n);
  });
  after(() => stopNode(f));

  const CACHE = "public, max-age=86400";
  const postRaw = (body: unknown) =>
    fetch(f.server.url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });

  it("stamps every answer with X-Server-Time (unix seconds), errors and 404s included, as CometBFT does", async () => {
    const before = Math.floor(Date.now() / 1000);
    const answers = [
      await fetch(`${f.server.url}/health`),
      await fetch(`${f.server.url}/block?height=abc`),
      await fetch(`${f.server.url}/no_such_method`),
      await postRaw({ jsonrpc: "2.0", id: 1, method: "status" }),
      await postRaw({ jsonrpc: "2.0", id: 1, method: "no_such_method" }),
    ];
    for (const a of answers) {
      const stamp = Number(a.headers.get("x-server-time"));
      assert.ok(stamp >= before && stamp <= Math.floor(Date.now() / 1000) + 1, `${a.url} ${a.status}: ${stamp}`);
    }
  });

  it("marks what CometBFT's routes call cacheable with Cache-Control, and not the latest height", async () => {
    const cacheControl = async (path: string) => (await fetch(`${f.server.url}${path}`)).headers.get("cache-control");
    for (const path of ["/block?height=1", "/commit?height=1", "/validators?height=1", "/genesis", "/blockchain"]) {
      assert.equal(await cacheControl(path), CACHE, path);
    }
    for (const path of ["/block", "/block?height=0", "/status", "/health", "/abci_query?path=%22/x%22"]) {
      assert.equal(await cacheControl(path), null, path);
    }
    assert.equal(await cacheControl("/block?height=abc"), null, "an error over GET is not cacheable");
    // JSON-RPC: params by name or by position; a batch is cacheable only when every call in it is.
    const one = { jsonrpc: "2.0", id: 1, method: "block", params: { height: "1" } };
    assert.equal((await postRaw(one)).headers.get("cache-control"), CACHE);
    assert.equal((await postRaw({ ...one, params: ["1"] })).headers.get("cache-control"), CACHE);
    assert.equal((await postRaw({ ...one, params: {} })).headers.get("cache-control"), null);
    assert.equal((await postRaw([one, { ...one, id: 2, method: "status" }])).headers.get("cache-control"), null);
    assert.equal((await postRaw({ ...one, method: "no_such_method" })).headers.get("cache-control"), null);
  });
});

describe("consensus RPC genesis", () => {
  it("leaves out validators when the genesis has none (they come from InitChain), as CometBFT's omitempty does", async () => {
    const chain = await makeTestChain({ extra: { validators: [] } });
    try {
      const genesis = (await RPC_METHODS.genesis.handle({}, { engine: { genesis: chain.genesis } } as RpcContext)) as {
        genesis: Record<string, unknown>;
      };
      assert.deepEqual(Object.keys(genesis.genesis), [
        "genesis_time",
        "chain_id",
        "initial_height",
        "consensus_params",
        "app_hash",
        "app_state",
      ]);
    } finally {
      await chain.cleanup();
    }
  });
});

describe("consensus RPC: mempool errors", () => {
  let f: Fixture;
  before(async () => {
    f = await startNode({ run: false, mempool: { size: 2, maxTxBytes: 64 }, maxBodyBytes: 4096 });
  });
  after(() => stopNode(f));

  it("duplicate, full pool, oversized tx and oversized body", async () => {
    const bad = (await call(f, "broadcast_tx_sync", { tx: b64("garbage") })).result;
    assert.equal(bad.code, 1);
    assert.equal(bad.codespace, "kv");
    assert.equal(bad.log, "invalid tx format: expected key=value");
    const first = (await call(f, "broadcast_tx_sync", { tx: b64("a=1") })).result;
    assert.deepEqual(first, { code: 0, data: "", log: "", codespace: "", hash: sha("a=1") });
    const dup = (await call(f, "broadcast_tx_sync", { tx: b64("a=1") })).error;
    assert.deepEqual(dup, { code: -32603, message: "Internal error", data: "tx already exists in cache" });
    const commitDupEarly = (await call(f, "broadcast_tx_commit", { tx: b64("a=1") })).error;
    assert.equal(commitDupEarly.data, "error on broadcastTxCommit: tx already exists in cache");
    const async = (await call(f, "broadcast_tx_async", { tx: b64("b=2") })).result;
    assert.deepEqual(async, { code: 0, data: "", log: "", codespace: "", hash: sha("b=2") });
    const full = (await call(f, "broadcast_tx_async", { tx: b64("c=3") })).error;
    assert.equal(full.data, "mempool is full: number of txs 2 (max: 2), total txs bytes 6 (max: 1073741824)");
    // CometBFT checks fullness first, then size, then the cache.
    const big = (await call(f, "broadcast_tx_sync", { tx: b64(`k=${"x".repeat(100)}`) })).error;
    assert.equal(big.data, "mempool is full: number of txs 2 (max: 2), total txs bytes 6 (max: 1073741824)");
    const commitDup = (await call(f, "broadcast_tx_commit", { tx: b64("a=1") })).error;
    assert.equal(
      commitDup.data,
      "error on broadcastTxCommit: mempool is full: number of txs 2 (max: 2), total txs bytes 6 (max: 1073741824)",
    );
    const body = await post(f, {
      jsonrpc: "2.0",
      id: 1,
      method: "broadcast_tx_sync",
      params: { tx: "A".repeat(8000) },
    });
    assert.equal(body.status, 400);
    assert.equal(body.json.error.code, -32600);
    assert.equal(body.json.error.data, "error reading request body: http: request body too large");
    const pending = (await call(f, "num_unconfirmed_txs")).result;
    assert.deepEqual(pending, { n_txs: "2", total: "2", total_bytes: "6", txs: null });
  });

  it("an oversized tx is refused before the app sees it", async () => {
    await f.engine.mempool.update([enc("a=1"), enc("b=2")], [], async () => {
      throw new Error("no recheck expected");
    });
    const big = (await call(f, "broadcast_tx_sync", { tx: b64(`k=${"x".repeat(100)}`) })).error;
    assert.equal(big.data, "Tx too large. Max size is 64, but got 102");
  });
});

describe("consensus RPC with @cosmjs/tendermint-rpc", () => {
  let f: Fixture;
  before(async () => {
    f = await startNode({ run: true });
    await waitForHeight(f.engine, 1n);
  });
  after(() => stopNode(f));

  it("Comet38Client connects and reads status, blocks, queries, broadcasts and finds txs", async () => {
    const detected = await connectComet(f.server.url);
    assert.ok(isComet38Client(detected), "connectComet picks the 0.38 client");
    detected.disconnect();
    const client = await Comet38Client.connect(f.server.url);
    try {
      const status = await client.status();
      assert.equal(status.nodeInfo.network, "test-chain");
      assert.ok(status.syncInfo.latestBlockHeight >= 1);
      const block = await client.block(1);
      assert.equal(block.block.header.height, 1);
      assert.equal(block.block.header.chainId, "test-chain");
      const query = await client.abciQuery({ path: "/kv", data: enc("seeded") });
      assert.equal(new TextDecoder().decode(query.value), "1");
      assert.ok(query.height !== undefined && query.height > 0);

      const tx = enc("cosmjs=yes");
      const sent = await client.broadcastTxSync({ tx });
      assert.equal(sent.code, 0);
      assert.equal(Buffer.from(sent.hash).toString("hex").toUpperCase(), sha("cosmjs=yes"));
      let found = await client.txSearch({ query: `tx.hash='${sha("cosmjs=yes")}'` });
      while (found.totalCount === 0) {
        await waitForHeight(f.engine, f.engine.store.height + 1n);
        found = await client.txSearch({ query: `tx.hash='${sha("cosmjs=yes")}'` });
      }
      assert.equal(found.txs[0].result.code, 0);
      const one = await client.tx({ hash: sent.hash });
      assert.equal(one.result.code, 0);
      assert.deepEqual(one.tx, tx);
      const results = await client.blockResults(one.height);
      assert.equal(results.results[0].gasUsed, BigInt(tx.length));
      const vals = await client.validatorsAll();
      assert.equal(vals.total, 1);
      const commit = await client.commit(one.height);
      assert.equal(commit.header.height, one.height);
      const chain = await client.blockchain(1, 2);
      assert.equal(chain.blockMetas.length, 2);
      const info = await client.abciInfo();
      assert.equal(info.data, "kv");
      const genesis = await client.genesis();
      assert.equal(genesis.chainId, "test-chain");
      await client.health();
    } finally {
      client.disconnect();
    }
  });
});

// As a real CometBFT honours Commit's retain_height (min-retain-blocks): pruned heights answer its error texts.
describe("consensus RPC over a pruned block store", () => {
  let f: Fixture;
  before(async () => {
    f = await startNode({ run: true, app: new KvApp({ retainBlocks: 2n }) });
    await waitForHeight(f.engine, 2n);
  });
  after(() => stopNode(f));

  it("serves from the base up, says which height is the lowest, and leaves the proof out of pruned txs", async () => {
    const tx = (await call(f, "broadcast_tx_commit", { tx: b64("p=1") })).result;
    const txHeight = BigInt(tx.height);
    const pruned = await waitForHeight(f.engine, txHeight + 4n).then(() => f.engine.store.base);
    assert.ok(pruned > txHeight, `base ${pruned} is above the tx's height ${txHeight}`);
    for (const method of ["block", "header", "commit", "block_results", "validators"]) {
      const error = (await call(f, method, { height: "1" })).error;
      assert.match(error.data, /^height 1 is not available, lowest height is \d+$/, method);
    }
    const status = (await call(f, "status")).result;
    assert.ok(BigInt(status.sync_info.earliest_block_height) > txHeight);
    const found = (await call(f, "tx", { hash: Buffer.from(sha("p=1"), "hex").toString("base64"), prove: true }))
      .result;
    assert.equal(found.height, String(txHeight), "the tx index keeps it");
    assert.equal("proof" in found, false, "no proof once its block is gone");
  });
});
