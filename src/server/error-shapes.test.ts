// Every REST error body is docs/CONTRACT.md §7's `{"code":…,"message":"…","details":[]}`, including the errors the
// HTTP layer raises itself (malformed request, bad percent-escape, header too large, read timeout),
// over a real loopback socket; prototype member names under /swagger/ are unknown paths (404); TRACE,
// PROPFIND and CONNECT on a known path are 405 with Allow; and no body carries a file-system path.
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { connect } from "node:net";
import { after, before, test } from "node:test";
import { redactPaths } from "../app/redact-paths.ts";
import { parseAppConfig } from "../config/app-config.ts";
import { type ChainFixture, openChainFixture } from "../testing/chain-fixture.ts";
import { type RunningServers, startServers } from "./servers.ts";
import { statusOf } from "./status.ts";

const TOML = `
[api]
address = "tcp://127.0.0.1:0"
rpc-read-timeout = 2
[grpc]
enable = false
`;

let chain: ChainFixture;
let servers: RunningServers;
let port: number;

before(async () => {
  chain = await openChainFixture();
  await chain.nextBlock();
  servers = await startServers({ backend: chain.backend, hooks: chain.hooks, config: parseAppConfig(TOML) });
  assert.ok(servers.rest !== undefined);
  port = (servers.rest.address as { port: number }).port;
});

after(async () => {
  await servers?.stop();
  await chain?.close();
});

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Writes `text` on a fresh connection and reads until the server closes it (or answers with Connection: close). */
function raw(text: string | Buffer): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => socket.write(text));
    let received = "";
    socket.on("data", (chunk) => {
      received += chunk.toString("latin1");
    });
    socket.on("error", reject);
    socket.on("close", () => {
      const [head, ...rest] = received.split("\r\n\r\n");
      const [statusLine, ...headerLines] = head.split("\r\n");
      const headers: Record<string, string> = {};
      for (const line of headerLines) {
        const at = line.indexOf(":");
        headers[line.slice(0, at).trim().toLowerCase()] = line.slice(at + 1).trim();
      }
      resolve({ status: Number(statusLine.split(" ")[1] ?? 0), headers, body: rest.join("\r\n\r\n") });
    });
  });
}

function request(method: string, path: string, extra = ""): Promise<RawAnswer> {
  return raw(`${method} ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n${extra}\r\n`);
}

function assertErrorBody(answer: RawAnswer, status: number, code: number, message: RegExp): void {
  assert.equal(answer.status, status, answer.body);
  assert.match(answer.headers["content-type"] ?? "", /^application\/json/);
  const body = JSON.parse(answer.body);
  assert.deepEqual(Object.keys(body), ["code", "message", "details"], answer.body);
  assert.equal(body.code, code, answer.body);
  assert.match(body.message, message);
  assert.deepEqual(body.details, []);
  assert.doesNotMatch(answer.body, /\/(home|tmp|work|usr|root)\//, "a file-system path in the body");
}

test("/swagger/<prototype member or unknown name> is 404 with the error body", async () => {
  for (const name of ["__proto__", "constructor", "toString", "hasOwnProperty", "valueOf", "nope.js"]) {
    assertErrorBody(await request("GET", `/swagger/${name}`), 404, 5, /unknown path/);
  }
  const css = await request("GET", "/swagger/swagger-ui.css");
  assert.equal(css.status, 200);
});

test("CONNECT on a known path is 405 with Allow, elsewhere 404, and the connection is then closed", async () => {
  // Node gives CONNECT to the server's "connect" event, not to its request handler; without a listener there the
  // socket was closed with no answer at all.
  const known = await raw("CONNECT /chain/upgrade/v1beta1/current_plan HTTP/1.1\r\nHost: x\r\n\r\n");
  assertErrorBody(known, 405, 12, /method CONNECT is not allowed on \/chain\/upgrade\/v1beta1\/current_plan/);
  assert.equal(known.headers.allow, "GET, HEAD");
  assert.equal(known.headers.connection, "close");
  assertErrorBody(await raw("CONNECT /nowhere HTTP/1.1\r\nHost: x\r\n\r\n"), 404, 5, /unknown path/);
  // The tunnel form (a host and port, no path) names no route either.
  const tunnel = await raw("CONNECT 127.0.0.1:80 HTTP/1.1\r\nHost: 127.0.0.1:80\r\n\r\n");
  assertErrorBody(tunnel, 404, 5, /unknown path 127\.0\.0\.1:80/);
});

test("TRACE, PROPFIND and other methods on a known path are 405 with Allow", async () => {
  for (const method of ["TRACE", "PROPFIND", "PUT", "MKCOL", "LOCK"]) {
    const answer = await request(method, "/chain/upgrade/v1beta1/current_plan");
    assertErrorBody(answer, 405, 12, new RegExp(`method ${method} is not allowed`));
    assert.equal(answer.headers.allow, "GET, HEAD", method);
  }
  assertErrorBody(await request("TRACE", "/nowhere"), 404, 5, /unknown path/);
});

test("a bad percent-escape in the path is 400 code 3", async () => {
  assertErrorBody(await request("GET", "/chain/bank/v1beta1/balances/%FF"), 400, 3, /percent-encoding/);
  assertErrorBody(await request("GET", "/chain/bank/v1beta1/balances/%"), 400, 3, /percent-encoding/);
});

test("a bad percent-escape in the query string is 400 code 3 naming it, on the GET path and through fastify", async () => {
  const route = "/chain/upgrade/v1beta1/module_versions";
  for (const [query, bad] of [
    ["module_name=%zz", "%zz"],
    ["module_name=bank%", "%"],
    ["module_name=%4", "%4"],
  ]) {
    assertErrorBody(await request("GET", `${route}?${query}`), 400, 3, new RegExp(`"${bad}" in the query string`));
    // A body sends the request through fastify's handler instead of the socket-side GET path.
    const withBody = await request(
      "GET",
      `${route}?${query}`,
      "Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}",
    );
    assertErrorBody(withBody, 400, 3, /in the query string: expected "%" and two hex digits/);
  }
  const good = await request("GET", `${route}?module_name=%62ank`);
  assert.equal(good.status, 200, good.body);
  assert.deepEqual(
    JSON.parse(good.body).module_versions.map((m: { name: string }) => m.name),
    ["bank"],
  );
});

test("malformed requests, too large headers and read timeouts get the error body", async () => {
  assertErrorBody(
    await raw("GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n"),
    400,
    3,
    /malformed HTTP request/,
  );
  assertErrorBody(await raw("\x01\x02garbage\r\n\r\n"), 400, 3, /malformed HTTP request/);
  assertErrorBody(
    await request("GET", "/chain/upgrade/v1beta1/current_plan", `x-big: ${"a".repeat(70_000)}\r\n`),
    431,
    8,
    /headers are too large/,
  );
  // Headers never finished: the read timeout (2 s here) ends it with 408.
  assertErrorBody(await raw("GET /chain/upgrade/v1beta1/current_plan HTTP/1.1\r\nHost: x\r\n"), 408, 4, /in time/);
});

test("a body that is not JSON is 400 code 3", async () => {
  const body = '{"tx_bytes":';
  const answer = await raw(
    `POST /chain/tx/v1beta1/simulate HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
  );
  assertErrorBody(answer, 400, 3, /not JSON/);
});

test("internal errors (store and fs I/O) reach clients without the absolute path", async () => {
  const missing = `${process.cwd()}/data/blocks.db/000005.ldb`;
  const fsError = await readFile(missing).catch((err: Error) => err);
  assert.ok(fsError instanceof Error && fsError.message.includes(process.cwd()));
  const status = statusOf(fsError);
  assert.equal(status.httpStatus, 500);
  assert.ok(!status.message.includes(process.cwd()), status.message);
  assert.match(status.message, /data\/blocks\.db\/000005\.ldb/);
  assert.equal(redactPaths("unknown path /chain/x"), "unknown path x");
});
