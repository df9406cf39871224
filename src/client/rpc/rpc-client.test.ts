// The consensus-RPC client and the query transports against real sockets: a small JSON-RPC server that
// answers as CometBFT does (results, error objects with `data`, garbage), a closed port, and the typed
// query helper's decoding. The client against the real node is covered by src/client/cli's and src/cli's tests.
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";
import { create, toBinary } from "@bufbuild/protobuf";
import { Query as BankQuery, QueryBalanceResponseSchema } from "../../gen/chain/bank/v1beta1/query_pb.js";
import { grpcQuery, QueryError, queryMethodPath } from "./grpc-query.ts";
import { abciQueryTransport, grpcQueryTransport, grpcTarget } from "./query-transport.ts";
import { createRpcClient, RpcError, rpcBaseUrl } from "./rpc-client.ts";

interface Request {
  method: string;
  params: Record<string, unknown>;
}

const requests: Request[] = [];
let answer: (request: Request) => { status?: number; body: string; contentType?: string } = () => ({ body: "{}" });
let server: Server;
let node: string;

before(async () => {
  server = createServer((req, res) => {
    let text = "";
    req.on("data", (chunk: Buffer) => {
      text += chunk.toString("utf8");
    });
    req.on("end", () => {
      const parsed = JSON.parse(text) as { method: string; params: Record<string, unknown> };
      const request = { method: parsed.method, params: parsed.params };
      requests.push(request);
      const { status, body, contentType } = answer(request);
      res.writeHead(status ?? 200, { "content-type": contentType ?? "application/json" }).end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  node = `tcp://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

function result(value: unknown) {
  return { body: JSON.stringify({ jsonrpc: "2.0", id: 1, result: value }) };
}

test("rpcBaseUrl: tcp://, http://, https:// and bare host:port; anything else names the expected forms", () => {
  assert.equal(rpcBaseUrl("tcp://localhost:26657"), "http://localhost:26657");
  assert.equal(rpcBaseUrl("http://127.0.0.1:1/"), "http://127.0.0.1:1");
  assert.equal(rpcBaseUrl("https://rpc.example:443"), "https://rpc.example:443");
  assert.equal(rpcBaseUrl("[::1]:26657"), "http://[::1]:26657");
  for (const bad of ["localhost", "ftp://x:1", "tcp://host", "tcp://host:port", "tcp://127.0.0.1:99999", ""]) {
    assert.throws(
      () => rpcBaseUrl(bad),
      (err: Error) => err instanceof RpcError && /expected tcp:\/\/host:port or http:\/\/host:port/.test(err.message),
      bad,
    );
  }
});

test("call: JSON-RPC 2.0 POST with named params; resolves with the result", async () => {
  requests.length = 0;
  answer = () => result({ node_info: { network: "chain-x", version: "0.38.25" }, sync_info: {} });
  const status = await createRpcClient(node).status();
  assert.equal(status.node_info.network, "chain-x");
  assert.deepEqual(requests, [{ method: "status", params: {} }]);
});

test("call: an error object keeps the node's text (data), its code and data", async () => {
  answer = () => ({
    status: 500,
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      error: { code: -32603, message: "Internal error", data: "tx (AB) not found" },
    }),
  });
  await assert.rejects(createRpcClient(node).call("tx", {}), (err: Error) => {
    assert.ok(err instanceof RpcError);
    assert.equal(err.message, "tx (AB) not found");
    assert.equal(err.code, -32603);
    assert.equal(err.data, "tx (AB) not found");
    return true;
  });
  answer = () => ({
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, error: { code: -32601, message: "Method not found" } }),
  });
  await assert.rejects(createRpcClient(node).call("nope"), /^RpcError: nope: Method not found$/);
});

test("call: an answer that is not JSON-RPC, and a node that is not there, are RpcErrors that say so", async () => {
  answer = () => ({ status: 502, body: "<html>bad gateway</html>", contentType: "text/html" });
  await assert.rejects(
    createRpcClient(node).call("status"),
    (err: Error) =>
      err instanceof RpcError &&
      err.message ===
        `the node at ${rpcBaseUrl(node)} answered status with something that is not JSON-RPC (HTTP 502, text/html): <html>bad gateway</html>`,
  );
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
  const port = (closed.address() as AddressInfo).port;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  await assert.rejects(
    createRpcClient(`tcp://127.0.0.1:${port}`).status(),
    (err: Error) =>
      err instanceof RpcError &&
      err.message.startsWith(`cannot reach the node at http://127.0.0.1:${port} (status)`) &&
      // fetch's own text is only "fetch failed": the reason comes from its cause.
      /: fetch failed \(.*ECONNREFUSED.*\); is it running\?$/.test(err.message),
  );
});

test("call: a web page instead of JSON-RPC is one line: status, content type, the page's start with whitespace collapsed", async () => {
  const page = `<!DOCTYPE HTML>\n<html lang="en">\n    <head>\n\t<title>Error response</title>\r\n    </head>\n${"    <p>é</p>\n".repeat(40)}</html>\n`;
  answer = () => ({ status: 501, body: page, contentType: "text/html;charset=utf-8" });
  const expected =
    `the node at ${rpcBaseUrl(node)} answered METHOD with something that is not JSON-RPC (HTTP 501, text/html;charset=utf-8): ` +
    `${'<!DOCTYPE HTML> <html lang="en"> <head> <title>Error response</title> </head> <p>é</p> <p>é</p> <p>é</p> <p>é</p>'.slice(0, 80)}…`;
  // A read (abci_query) goes over the plain socket (http-post.ts), a broadcast through fetch: both say the same.
  await assert.rejects(createRpcClient(node).abciQuery("/p", new Uint8Array()), (err: Error) => {
    assert.ok(err instanceof RpcError);
    assert.equal(err.message, expected.replace("METHOD", "abci_query"));
    return true;
  });
  await assert.rejects(createRpcClient(node).broadcastTxSync(new Uint8Array([1])), (err: Error) => {
    assert.ok(err instanceof RpcError);
    assert.equal(err.message, expected.replace("METHOD", "broadcast_tx_sync"));
    return true;
  });
  answer = () => ({ status: 200, body: " \r\n\u0000 ", contentType: "text/plain" });
  await assert.rejects(
    createRpcClient(node).call("status"),
    /answered status with something that is not JSON-RPC \(HTTP 200, text\/plain\): an empty body$/,
  );
});

test("abciQuery: data as hex, height as a string; key/value decoded from base64, height as bigint", async () => {
  requests.length = 0;
  answer = () => result({ response: { code: 0, log: "", key: "AQI=", value: "AwQF", height: "17", codespace: "" } });
  const answered = await createRpcClient(node).abciQuery("/chain.bank.v1beta1.Query/Balance", new Uint8Array([10, 1]), {
    height: 5n,
  });
  assert.deepEqual(requests[0], {
    method: "abci_query",
    params: { path: "/chain.bank.v1beta1.Query/Balance", data: "0a01", height: "5", prove: false },
  });
  assert.deepEqual([...answered.key], [1, 2]);
  assert.deepEqual([...answered.value], [3, 4, 5]);
  assert.equal(answered.height, 17n);
});

test("tx: the hash travels as base64 bytes; a malformed hash is refused before any request", async () => {
  requests.length = 0;
  const hash = "0A".repeat(32);
  answer = () => result({ hash, height: "3", index: 0, tx_result: {}, tx: "" });
  await createRpcClient(node).tx(hash);
  assert.deepEqual(requests[0].params, { hash: Buffer.from(hash, "hex").toString("base64") });
  requests.length = 0;
  await assert.rejects(createRpcClient(node).tx("xyz"), /invalid tx hash "xyz": expected 64 hexadecimal characters/);
  assert.equal(requests.length, 0);
});

test("broadcast: tx as base64; the hash and data come back upper-case", async () => {
  requests.length = 0;
  answer = () => result({ code: 0, data: "0a0b", log: "", codespace: "", hash: "ab".repeat(32) });
  const sent = await createRpcClient(node).broadcastTxSync(new Uint8Array([1, 2, 3]));
  assert.deepEqual(requests[0], { method: "broadcast_tx_sync", params: { tx: "AQID" } });
  assert.equal(sent.hash, "AB".repeat(32));
  assert.equal(sent.data, "0A0B");
});

test("abci query transport + grpcQuery: decoded responses; a non-zero code is a QueryError with the app's text", async () => {
  const balance = create(QueryBalanceResponseSchema, { balance: { denom: "stake", amount: "42" } });
  answer = () =>
    result({
      response: {
        code: 0,
        value: Buffer.from(toBinary(QueryBalanceResponseSchema, balance)).toString("base64"),
        height: "8",
      },
    });
  const transport = abciQueryTransport(createRpcClient(node));
  const got = await grpcQuery(transport, BankQuery.method.balance, { address: "chain1x", denom: "stake" });
  assert.equal(got.response.balance?.amount, "42");
  assert.equal(got.height, 8n);
  assert.equal(queryMethodPath(BankQuery.method.balance), "/chain.bank.v1beta1.Query/Balance");

  answer = () => result({ response: { code: 18, codespace: "sdk", log: "invalid address: invalid request" } });
  await assert.rejects(grpcQuery(transport, BankQuery.method.balance, {}), (err: Error) => {
    assert.ok(err instanceof QueryError);
    assert.equal(err.message, "invalid address: invalid request");
    assert.equal(err.codespace, "sdk");
    assert.equal(err.abciCode, 18);
    return true;
  });

  answer = () => result({ response: { code: 0, value: Buffer.from([0xff, 0xff, 0xff]).toString("base64") } });
  await assert.rejects(
    grpcQuery(transport, BankQuery.method.balance, {}),
    /the node's answer to \/chain\.bank\.v1beta1\.Query\/Balance is not a chain\.bank\.v1beta1\.QueryBalanceResponse/,
  );
});

test("gRPC transport: host:port forms; a server that is not there is an RpcError naming the address", async () => {
  assert.equal(grpcTarget("localhost:9090"), "localhost:9090");
  assert.equal(grpcTarget("tcp://127.0.0.1:9090"), "127.0.0.1:9090");
  assert.throws(
    () => grpcTarget("localhost"),
    /invalid --grpc-addr "localhost": expected host:port such as localhost:9090/,
  );
  assert.throws(
    () => grpcTarget("127.0.0.1:99999"),
    /invalid --grpc-addr "127.0.0.1:99999": expected host:port such as localhost:9090/,
  );
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
  const port = (closed.address() as AddressInfo).port;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  const transport = grpcQueryTransport(`127.0.0.1:${port}`);
  try {
    await assert.rejects(
      transport.query("/chain.bank.v1beta1.Query/Balance", new Uint8Array()),
      (err: Error) =>
        err instanceof RpcError && err.message.startsWith(`cannot reach the node's gRPC server at 127.0.0.1:${port}`),
    );
  } finally {
    transport.close();
  }
});
