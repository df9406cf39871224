// The socket-side GET path (rest-get-path.ts) against fastify's handler: over a real socket, every
// plain GET query is answered without fastify, and its answer (status, body, headers) is the one
// fastify's own path gives for the same request (inject); everything else is handed to fastify.
import assert from "node:assert/strict";
import { once } from "node:events";
import { createServer, request as httpRequest, type IncomingMessage, type RequestListener } from "node:http";
import { type AddressInfo, connect } from "node:net";
import { after, before, describe, test } from "node:test";
import { DEFAULT_CONFIG, gatewayFor, openQueriedChain } from "../../test/support/server/gateway.ts";
import type { ChainFixture } from "../testing/chain-fixture.ts";
import { corsPolicy } from "./cors.ts";
import type { RestGateway } from "./rest-gateway.ts";
import { getPathListener } from "./rest-get-path.ts";
import { RestRouter } from "./rest-router.ts";
import { servedRoutes } from "./servers.ts";

let chain: ChainFixture;
let gw: RestGateway;
let base: string;

before(async () => {
  chain = await openQueriedChain();
  gw = gatewayFor(chain, { cors: corsPolicy(false, ["https://app.example"]), writeTimeoutSeconds: 30 });
  await gw.app.ready();
  gw.server.listen(0, "127.0.0.1");
  await once(gw.server, "listening");
  base = `http://127.0.0.1:${(gw.server.address() as AddressInfo).port}`;
});

after(async () => {
  // The test listens itself (servers.ts's ConnectionGate is not used here), so it closes too.
  gw.server.closeAllConnections();
  await new Promise((resolve) => gw.server.close(resolve));
  await gw.app.close();
  await chain.close();
});

interface Answer {
  status: number;
  headers: Record<string, unknown>;
  body: string;
}

// Headers each transport adds by itself (Node's connection handling, the clock).
const TRANSPORT_HEADERS = new Set(["date", "connection", "keep-alive", "transfer-encoding"]);

function comparable(status: number, headers: Record<string, unknown>, body: string): Answer {
  const kept: Record<string, unknown> = {};
  for (const name of Object.keys(headers).sort()) {
    if (TRANSPORT_HEADERS.has(name)) continue;
    kept[name] = name === "x-server-time" ? String(headers[name]).replace(/^\d{10}$/, "<unix seconds>") : headers[name];
  }
  return { status, headers: kept, body };
}

function overSocket(url: string, headers: Record<string, string>, method = "GET", body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(`${base}${url}`, { method, headers, agent: false }, (response: IncomingMessage) => {
      let text = "";
      response.setEncoding("utf8");
      response.on("data", (chunk) => {
        text += chunk;
      });
      response.on("end", () => resolve(comparable(response.statusCode ?? 0, response.headers, text)));
    });
    request.on("error", reject);
    request.end(body);
  });
}

async function throughFastify(url: string, headers: Record<string, string>): Promise<Answer> {
  const response = await gw.app.inject({ method: "GET", url, headers });
  return comparable(response.statusCode, response.headers, response.body);
}

describe("a GET over the socket answers exactly as fastify's handler does", () => {
  const cases: [string, Record<string, string>][] = [];
  before(() => {
    const alice = chain.alice.bech32;
    const balances = `/chain/bank/v1beta1/balances/${alice}`;
    cases.push(
      ["/chain/upgrade/v1beta1/current_plan", {}],
      ["/chain/upgrade/v1beta1/current_plan", { "x-chain-block-height": "1" }],
      ["/chain/upgrade/v1beta1/current_plan", { "grpc-metadata-x-chain-block-height": "2" }],
      ["/chain/upgrade/v1beta1/current_plan", { "x-chain-block-height": "99" }],
      ["/chain/upgrade/v1beta1/current_plan", { "x-chain-block-height": "-1" }],
      ["/chain/upgrade/v1beta1/current_plan", { "x-chain-block-height": "abc" }],
      [
        "/chain/upgrade/v1beta1/current_plan",
        { "x-chain-block-height": "1", "grpc-metadata-x-chain-block-height": "2" },
      ],
      ["/chain/upgrade/v1beta1/current_plan", { origin: "https://app.example" }],
      ["/chain/upgrade/v1beta1/current_plan", { origin: "https://other.example" }],
      ["/chain/upgrade/v1beta1/applied_plan/v1", {}],
      ["/chain/upgrade/v1beta1/module_versions?module_name=nope", {}],
      [balances, {}],
      [`${balances}?pagination.limit=1&pagination.count_total=true`, {}],
      [`${balances}?pagination.limit=abc`, {}],
      [`${balances}?pagination.offset=1&pagination.key=AA==`, {}],
      [`/chain/bank/v1beta1/balances/${encodeURIComponent(alice)}%20`, {}],
      ["/chain/bank/v1beta1/balances/notanaddress", {}],
      [`/chain/bank/v1beta1/balances/${alice}/by_denom?denom=stake`, { "x-chain-block-height": "1" }],
      [`/chain/auth/v1beta1/accounts/${chain.bob.bech32}`, {}],
      ["/chain/base/tendermint/v1beta1/blocks/latest", {}],
      ["/chain/base/tendermint/v1beta1/blocks/2", {}],
      [`/chain/tx/v1beta1/txs/${"AB".repeat(32)}`, {}],
      ["/chain/tx/v1beta1/txs?query=tx.height%3D2", {}],
      ["/chain/tx/v1beta1/txs?events=nonsense", {}],
      ["/chain/base/node/v1beta1/status", {}],
      ["/chain/upgrade/v1beta1/no_such_route", {}],
      ["/chain/upgrade/v1beta1/current_plan/%E0%A4%A", {}],
      ["/chain/tx/v1beta1/simulate", {}],
      ["/swagger/swagger.json", {}],
    );
  });

  test("successes, height headers, CORS, pagination, and every error shape", async () => {
    for (const [url, headers] of cases) {
      const socket = await overSocket(url, headers);
      const fastify = await throughFastify(url, headers);
      // Both read the same committed state; only the block time header could differ, and it does not.
      assert.deepEqual(socket, fastify, `GET ${url} ${JSON.stringify(headers)}`);
    }
  });
});

describe("which requests the GET path takes", () => {
  let server: ReturnType<typeof createServer>;
  let url: string;
  const handedOn: string[] = [];

  before(async () => {
    const router = new RestRouter(servedRoutes(chain.backend, chain.hooks, DEFAULT_CONFIG));
    const fallback: RequestListener = (request, response) => {
      handedOn.push(`${request.method} ${request.url}`);
      response.writeHead(299).end();
    };
    const listener = getPathListener(
      { backend: chain.backend, router, cors: undefined, writeTimeoutSeconds: 0, closing: () => false },
      fallback,
    );
    server = createServer(listener);
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  after(() => {
    server.closeAllConnections();
    server.close();
  });

  test("a plain GET on a route is answered there; other methods, bodies, unknown paths and Swagger are not", async () => {
    const plan = "/chain/upgrade/v1beta1/current_plan";
    const answered = await fetch(`${url}${plan}`);
    assert.equal(answered.status, 200);
    assert.match(await answered.text(), /^\{"plan":\{"name":"v2"/);
    const unknownAddress = await fetch(`${url}/chain/bank/v1beta1/balances/nope`);
    assert.equal(unknownAddress.status, 400, "errors of a matched route are answered there too");
    await unknownAddress.text();
    assert.deepEqual(handedOn, []);

    for (const [method, path, body] of [
      ["HEAD", plan, undefined],
      ["POST", plan, undefined],
      ["GET", plan, "{}"],
      ["GET", "/chain/upgrade/v1beta1/nothing", undefined],
      ["GET", "/swagger/", undefined],
      ["GET", "/chain/upgrade/v1beta1/current_plan/%E0%A4%A", undefined],
    ] as const) {
      const response = await overSocketTo(url, method, path, body);
      assert.equal(response, 299, `${method} ${path}`);
    }
    assert.equal(handedOn.length, 6);
  });
});

function overSocketTo(base: string, method: string, path: string, body: string | undefined): Promise<number> {
  return new Promise((resolve, reject) => {
    // Node's client sends a GET body without a length unless told one.
    const headers = body === undefined ? {} : { "content-length": String(Buffer.byteLength(body)) };
    const request = httpRequest(`${base}${path}`, { method, headers, agent: false }, (response) => {
      response.resume();
      response.on("end", () => resolve(response.statusCode ?? 0));
    });
    request.on("error", reject);
    request.end(body);
  });
}

describe("a request target in absolute form", () => {
  test("is routed by its path, on the GET path and through fastify alike", async () => {
    const host = new URL(base).host;
    const plan = await rawRequest(`GET http://${host}/chain/upgrade/v1beta1/current_plan?x=1 HTTP/1.1`, "");
    assert.match(plan, /^HTTP\/1\.1 200 /);
    assert.match(plan, /\r\n\r\n\{"plan":/);
    const simulate = await rawRequest(`POST http://${host}/chain/tx/v1beta1/simulate HTTP/1.1`, "{}");
    assert.match(simulate, /^HTTP\/1\.1 400 /);
    assert.match(simulate, /empty txBytes is not allowed/);
  });
});

/** Sends one request line (and a JSON body) over a raw socket; resolves with the whole answer. */
function rawRequest(requestLine: string, body: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const { hostname, port } = new URL(base);
    const socket = connect(Number(port), hostname);
    let answer = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk) => {
      answer += chunk;
    });
    socket.on("end", () => resolve(answer));
    socket.on("error", reject);
    const length = Buffer.byteLength(body);
    socket.end(
      `${requestLine}\r\nHost: ${hostname}\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
}

// Runs last: it adds a block to the shared chain.
describe("a page read again within a block and after the next one", () => {
  test("the same page is answered alike within a block, and the next block's balances show at once", async () => {
    const balances = `/chain/bank/v1beta1/balances/${chain.bob.bech32}`;
    const first = await overSocket(balances, {});
    assert.equal(first.status, 200);
    const amount = BigInt(JSON.parse(first.body).balances[0].amount);
    // Read again (the latest view has it remembered now): the same answer.
    assert.deepEqual(await overSocket(balances, {}), first);
    assert.deepEqual(await overSocket(`${balances}?pagination.reverse=true`, {}), first);

    await chain.nextBlock([chain.send(chain.bob, "23")]); // 4
    const after = await overSocket(balances, {});
    assert.equal(after.status, 200);
    assert.equal(after.headers["x-chain-block-height"], "4");
    assert.equal(JSON.parse(after.body).balances[0].amount, String(amount + 23n));
    // The block before still reads as it was.
    const before = await overSocket(balances, { "x-chain-block-height": "3" });
    assert.equal(JSON.parse(before.body).balances[0].amount, String(amount));
  });
});
