// Swagger (docs/CONTRACT.md §7): a valid Swagger 2.0 document listing every route the gateway serves, the
// document or the UI at /swagger depending on Accept, /swagger/swagger.json, local UI assets, and 404
// for every /swagger path when api.swagger = false.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import SwaggerParser from "@apidevtools/swagger-parser";
import { gatewayFor } from "../../test/support/server/gateway.ts";
import { type ChainFixture, openChainFixture } from "../testing/chain-fixture.ts";
import type { RestGateway } from "./rest-gateway.ts";
import { prefersHtml } from "./swagger-ui.ts";

let chain: ChainFixture;
let gw: RestGateway;
let disabled: RestGateway;

before(async () => {
  chain = await openChainFixture();
  await chain.nextBlock();
  gw = gatewayFor(chain);
  disabled = gatewayFor(chain, { swagger: false });
});

after(async () => {
  await gw.app.close();
  await disabled.app.close();
  await chain.close();
});

test("the document validates as Swagger 2.0 and lists every served route with its parameters", async () => {
  const response = await gw.app.inject({ method: "GET", url: "/swagger/swagger.json" });
  assert.equal(response.statusCode, 200);
  const document = response.json();
  assert.equal(document.swagger, "2.0");
  await SwaggerParser.validate(structuredClone(document));
  for (const { binding, route } of gw.router.routes) {
    const operation = document.paths[binding.swaggerPath]?.[binding.method.toLowerCase()];
    assert.ok(operation !== undefined, `${binding.method} ${binding.swaggerPath} is not documented`);
    const names = operation.parameters.map((p: { name: string }) => p.name);
    for (const field of binding.pathFields) assert.ok(names.includes(field), `${binding.template}: ${field}`);
    assert.equal(operation.responses["200"].schema.$ref, `#/definitions/${route.output.typeName}`);
  }
  const operations = Object.values(document.paths).flatMap((item) => Object.keys(item as object));
  assert.equal(operations.length, gw.router.routes.length);
  const balances = document.paths["/chain/bank/v1beta1/balances/{address}"].get;
  const limit = balances.parameters.find((p: { name: string }) => p.name === "pagination.limit");
  assert.deepEqual(
    { in: limit.in, type: limit.type, format: limit.format },
    { in: "query", type: "string", format: "uint64" },
  );
  const key = balances.parameters.find((p: { name: string }) => p.name === "pagination.key");
  assert.equal(key.format, "byte");
  const plan = document.definitions["chain.upgrade.v1beta1.Plan"];
  assert.deepEqual(Object.keys(plan.properties), ["name", "time", "height", "info", "upgraded_client_state"]);
  const broadcast = document.paths["/chain/tx/v1beta1/txs"].post;
  assert.equal(broadcast.parameters[0].in, "body");
});

test("GET /swagger: the document for curl, API clients and no Accept; the UI for browsers", async () => {
  for (const accept of ["*/*", "application/json", undefined]) {
    const response = await gw.app.inject({
      method: "GET",
      url: "/swagger",
      headers: accept === undefined ? {} : { accept },
    });
    assert.equal(response.statusCode, 200);
    assert.match(String(response.headers["content-type"]), /^application\/json/);
    assert.equal(response.json().swagger, "2.0");
  }
  const browser = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8";
  const page = await gw.app.inject({ method: "GET", url: "/swagger", headers: { accept: browser } });
  assert.match(String(page.headers["content-type"]), /^text\/html/);
  assert.match(page.body, /swagger-ui-bundle\.js/);
  assert.doesNotMatch(page.body, /https?:\/\//, "the UI must not load anything from the network");
  // Without this, swagger-ui's default validator badge loads an image from a public host.
  assert.match(page.body, /validatorUrl: null/);
  for (const asset of ["swagger-ui-bundle.js", "swagger-ui.css", "swagger-ui-standalone-preset.js"]) {
    const file = await gw.app.inject({ method: "GET", url: `/swagger/${asset}` });
    assert.equal(file.statusCode, 200, asset);
    assert.ok(file.rawPayload.length > 1000, asset);
  }
  assert.equal((await gw.app.inject({ method: "GET", url: "/swagger/../../etc/passwd" })).statusCode, 404);
  assert.equal((await gw.app.inject({ method: "GET", url: "/swagger/nope.js" })).statusCode, 404);
  const post = await gw.app.inject({ method: "POST", url: "/swagger" });
  assert.equal(post.statusCode, 405);
  assert.equal(post.headers.allow, "GET, HEAD");
});

test("api.swagger = false: every /swagger path is 404", async () => {
  for (const url of ["/swagger", "/swagger/", "/swagger/swagger.json", "/swagger/swagger-ui.css"]) {
    const response = await disabled.app.inject({ method: "GET", url });
    assert.equal(response.statusCode, 404, url);
    assert.equal(response.json().code, 5);
  }
});

test("Accept negotiation follows q-values", () => {
  assert.equal(prefersHtml("text/html"), true);
  assert.equal(prefersHtml("text/html;q=0.5, application/json"), false);
  assert.equal(prefersHtml("application/json;q=0.5, text/html"), true);
  assert.equal(prefersHtml("*/*"), false);
  assert.equal(prefersHtml(""), false);
});
