// Route derivation from the google.api.http annotations of every service in src/gen: every
// annotated binding becomes exactly one route (or is reported as shadowed), with the method, path
// variables and body the annotation says; malformed templates are refused with the method named.
import assert from "node:assert/strict";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";
import { create, type DescMethod, type DescService, getOption, hasOption } from "@bufbuild/protobuf";
import { nestedTypes } from "@bufbuild/protobuf/reflect";
import { Query as BankQuery } from "../gen/chain/bank/v1beta1/query_pb.js";
import { http } from "../gen/google/api/annotations_pb.js";
import { HttpRuleSchema } from "../gen/google/api/http_pb.js";
import { bindingOf, HttpRuleError, httpBindings } from "./http-rules.ts";
import { RestRouter } from "./rest-router.ts";
import type { ServedRoute } from "./served-routes.ts";

async function generatedServices(): Promise<DescService[]> {
  const root = fileURLToPath(new URL("../gen", import.meta.url));
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith("_pb.js")) files.push(path);
    }
  };
  walk(root);
  const services: DescService[] = [];
  for (const path of files.sort()) {
    const module: Record<string, unknown> = await import(pathToFileURL(path).href);
    for (const value of Object.values(module)) {
      if ((value as { kind?: string })?.kind !== "file") continue;
      for (const type of nestedTypes(value as never)) if (type.kind === "service") services.push(type);
    }
  }
  return services;
}

function served(service: DescService): ServedRoute[] {
  return service.methods.map((method) => ({
    path: `/${service.typeName}/${method.name}`,
    service,
    method,
    input: method.input,
    output: method.output,
    heightBound: true,
    handler: async () => create(method.output),
  }));
}

test("every annotated binding of every generated service becomes one route", async () => {
  const services = await generatedServices();
  let annotated = 0;
  const perService: Record<string, number> = {};
  for (const service of services) {
    for (const method of service.methods) {
      if (!hasOption(method, http)) continue;
      perService[service.typeName] = (perService[service.typeName] ?? 0) + 1;
      annotated += 1 + getOption(method, http).additionalBindings.length;
    }
  }
  // Every method of every Query and node service is annotated; Msg, ABCI and reflection are not.
  assert.deepEqual(perService, {
    "chain.auth.v1beta1.Query": 10,
    "chain.bank.v1beta1.Query": 13,
    "chain.base.node.v1beta1.Service": 2,
    "chain.base.tendermint.v1beta1.Service": 7,
    "chain.gov.v1.Query": 9,
    "chain.staking.v1beta1.Query": 14,
    "chain.tx.v1beta1.Service": 9,
    "chain.upgrade.v1beta1.Query": 8,
  });
  assert.equal(annotated, 72);
  const router = new RestRouter(services.flatMap(served));
  assert.equal(router.routes.length + router.shadowed.length, annotated);
  // Same shape, same method: upstream's gateway also lets the first one win.
  assert.deepEqual(
    router.shadowed.map((rest) => rest.binding.template),
    ["/chain/auth/v1beta1/bech32/{address_string}"],
  );
  // Msg services never get routes.
  assert.ok(router.routes.every((rest) => rest.route.service.name !== "Msg"));
});

test("bindings carry the verb, path variables and body of the annotation", () => {
  const [allBalances] = httpBindings(BankQuery.method.allBalances as unknown as DescMethod);
  assert.equal(allBalances.method, "GET");
  assert.equal(allBalances.template, "/chain/bank/v1beta1/balances/{address}");
  assert.deepEqual(allBalances.pathFields, ["address"]);
  assert.equal(allBalances.body, "");
  const [metadata] = httpBindings(BankQuery.method.denomMetadata as unknown as DescMethod);
  assert.deepEqual(metadata.segments.at(-1), { kind: "field", fieldPath: "denom", rest: true });
  assert.equal(metadata.swaggerPath, "/chain/bank/v1beta1/denoms_metadata/{denom}");
});

test("the matcher prefers literals, serves HEAD from GET and lists the methods a path has", async () => {
  const services = await generatedServices();
  const router = new RestRouter(services.flatMap(served));
  const split = (path: string) => path.slice(1).split("/");
  const latest = router.match("GET", split("/chain/base/tendermint/v1beta1/blocks/latest"));
  assert.equal(latest.kind === "found" && latest.rest.route.method.name, "GetLatestBlock");
  const byHeight = router.match("HEAD", split("/chain/base/tendermint/v1beta1/blocks/7"));
  assert.ok(byHeight.kind === "found");
  assert.equal(byHeight.params.get("height"), "7");
  const tail = router.match("GET", split("/chain/bank/v1beta1/denoms_metadata/ibc/ABC"));
  assert.ok(tail.kind === "found");
  assert.equal(tail.params.get("denom"), "ibc/ABC");
  const list = router.match("GET", split("/chain/bank/v1beta1/denoms_metadata"));
  assert.equal(list.kind === "found" && list.rest.route.method.name, "DenomsMetadata");
  assert.deepEqual(router.match("PUT", split("/chain/tx/v1beta1/txs")), {
    kind: "wrong-method",
    allow: ["GET", "HEAD", "POST"],
  });
  assert.deepEqual(router.match("GET", split("/chain/nothing")), { kind: "none" });
});

test("templates the gateway cannot serve are refused naming the method", () => {
  const method = BankQuery.method.allBalances as unknown as DescMethod;
  const bad = [
    "/chain/x/{address=foo/*}",
    "/chain/x/{address=**}/tail",
    "/chain/x/{nope}",
    "/chain/x/{pagination.nope}",
    "/chain/x/{pagination}",
    "/chain/x//y",
    "/chain/x/y:verb",
    "chain/x",
  ];
  for (const template of bad) {
    const rule = create(HttpRuleSchema, { pattern: { case: "get", value: template } });
    assert.throws(
      () => bindingOf(method, rule),
      (err: Error) => {
        assert.ok(err instanceof HttpRuleError, template);
        assert.match(err.message, /^google\.api\.http rule of chain\.bank\.v1beta1\.Query\/AllBalances: /);
        return true;
      },
    );
  }
  const nested = bindingOf(method, create(HttpRuleSchema, { pattern: { case: "get", value: "/x/{pagination.key}" } }));
  assert.deepEqual(nested.pathFields, ["pagination.key"]);
  const post = bindingOf(method, create(HttpRuleSchema, { pattern: { case: "post", value: "/x" }, body: "*" }));
  assert.equal(post.method, "POST");
  assert.equal(post.body, "*");
});
