// CORS (docs/CONTRACT.md §7) through the live gateway in process: off by default, every origin with
// enabled-unsafe-cors, only the listed ones with cors-allowed-origins, nothing for the others.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { gatewayFor } from "../../test/support/server/gateway.ts";
import { type ChainFixture, openChainFixture } from "../testing/chain-fixture.ts";
import { corsDecision, corsPolicy } from "./cors.ts";
import type { RestGateway } from "./rest-gateway.ts";

let chain: ChainFixture;
const gateways: RestGateway[] = [];

before(async () => {
  chain = await openChainFixture();
  await chain.nextBlock();
});

after(async () => {
  for (const gateway of gateways) await gateway.app.close();
  await chain.close();
});

function gateway(enabledUnsafeCors: boolean, origins: string[]): RestGateway {
  const built = gatewayFor(chain, { cors: corsPolicy(enabledUnsafeCors, origins) });
  gateways.push(built);
  return built;
}

const URL = "/chain/upgrade/v1beta1/current_plan";

function preflight(gw: RestGateway, origin: string, method = "GET", headers = "content-type, x-chain-block-height") {
  return gw.app.inject({
    method: "OPTIONS",
    url: URL,
    headers: { origin, "access-control-request-method": method, "access-control-request-headers": headers },
  });
}

function corsHeaders(headers: Record<string, unknown>): string[] {
  return Object.keys(headers).filter((name) => name.startsWith("access-control-"));
}

test("off by default: no CORS headers, and OPTIONS is just another method (405)", async () => {
  const gw = gateway(false, []);
  const response = await gw.app.inject({ method: "GET", url: URL, headers: { origin: "https://app.example" } });
  assert.equal(response.statusCode, 200);
  assert.deepEqual(corsHeaders(response.headers), []);
  const options = await preflight(gw, "https://app.example");
  assert.equal(options.statusCode, 405);
  assert.deepEqual(corsHeaders(options.headers), []);
});

test("enabled-unsafe-cors: any origin, preflight allows GET/POST with Content-Type and the height header", async () => {
  const gw = gateway(true, []);
  const answer = await preflight(gw, "https://anything.example");
  assert.equal(answer.statusCode, 204);
  assert.equal(answer.headers["access-control-allow-origin"], "*");
  assert.equal(answer.headers["access-control-allow-methods"], "GET, POST");
  assert.equal(answer.headers["access-control-allow-headers"], "Content-Type, x-chain-block-height");
  const actual = await gw.app.inject({ method: "GET", url: URL, headers: { origin: "https://anything.example" } });
  assert.equal(actual.headers["access-control-allow-origin"], "*");
  assert.equal(actual.headers["access-control-expose-headers"], "x-chain-block-height");
  assert.equal(actual.headers["x-chain-block-height"], "1");
  // No Origin: not a CORS request, nothing added.
  assert.deepEqual(corsHeaders((await gw.app.inject({ method: "GET", url: URL })).headers), []);
});

test("a preflight for another method or header is refused without CORS headers", async () => {
  const gw = gateway(true, []);
  for (const response of [
    await preflight(gw, "https://a.example", "DELETE"),
    await preflight(gw, "https://a.example", "GET", "authorization"),
  ]) {
    assert.equal(response.statusCode, 403);
    assert.deepEqual(corsHeaders(response.headers), []);
    assert.equal(response.json().code, 7);
  }
});

test("cors-allowed-origins: listed origins are echoed (with Vary), others get nothing", async () => {
  const gw = gateway(false, ["https://wallet.example", "http://localhost:3000"]);
  const allowed = await preflight(gw, "http://localhost:3000");
  assert.equal(allowed.statusCode, 204);
  assert.equal(allowed.headers["access-control-allow-origin"], "http://localhost:3000");
  assert.equal(allowed.headers.vary, "Origin");
  assert.match(String(allowed.headers["access-control-allow-headers"]), /x-chain-block-height/);
  const refusedPreflight = await preflight(gw, "https://evil.example");
  assert.equal(refusedPreflight.statusCode, 403);
  assert.deepEqual(corsHeaders(refusedPreflight.headers), []);
  assert.match(refusedPreflight.json().message, /origin https:\/\/evil.example is not allowed/);
  const refused = await gw.app.inject({ method: "GET", url: URL, headers: { origin: "https://evil.example" } });
  assert.equal(refused.statusCode, 200);
  assert.deepEqual(corsHeaders(refused.headers), []);
});

test("the policy: off, all, or a list; '*' in the list means all", () => {
  assert.equal(corsPolicy(false, []), undefined);
  assert.deepEqual(corsPolicy(true, ["https://a.example"]), { allowAll: true });
  assert.deepEqual(corsPolicy(false, ["*"]), { allowAll: true });
  assert.deepEqual(corsDecision(undefined, "GET", { origin: "https://a.example" }), { kind: "none" });
});
