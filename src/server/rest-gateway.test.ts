// The REST gateway over a real App (auth, bank, staking, upgrade) in process (fastify inject):
// upgrade JSON in every state, historical queries, the height header, every error status, the tx,
// tendermint and node services, and a request to every derived route.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { create, toBinary } from "@bufbuild/protobuf";
import type { LightMyRequestResponse } from "fastify";
import { gatewayFor } from "../../test/support/server/gateway.ts";
import { BECH32_PREFIXES, encodeBech32 } from "../crypto/bech32.ts";
import { TxRawSchema } from "../gen/chain/tx/v1beta1/tx_pb.js";
import { type ChainFixture, openChainFixture, schedule } from "../testing/chain-fixture.ts";
import { newPlan } from "../x/upgrade/plan.ts";
import type { RestGateway } from "./rest-gateway.ts";

let chain: ChainFixture;
let gw: RestGateway;
let sendTx: Uint8Array;
let sendHash: string;

before(async () => {
  chain = await openChainFixture();
  chain.at(3n, (ctx, { upgrade }) => upgrade.applyUpgrade(ctx, newPlan({ name: "v1", height: 3n })));
  chain.at(4n, schedule("v2", 100n));
  await chain.nextBlock(); // 1
  sendTx = chain.send(chain.bob, "100");
  await chain.nextBlock([sendTx]); // 2: alice → bob 100stake
  await chain.nextBlock(); // 3: v1 applied
  await chain.nextBlock(); // 4: v2 scheduled at 100
  await chain.nextBlock(); // 5
  sendHash = Buffer.from(await crypto.subtle.digest("SHA-256", sendTx))
    .toString("hex")
    .toUpperCase();
  gw = gatewayFor(chain);
  await gw.app.ready();
});

after(async () => {
  await gw.app.close();
  await chain.close();
});

async function get(url: string, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
  return gw.app.inject({ method: "GET", url, headers });
}

function errorBody(response: LightMyRequestResponse): { code: number; message: string; details: unknown[] } {
  assert.equal(response.headers["content-type"], "application/json; charset=utf-8");
  assert.match(String(response.headers["x-server-time"]), /^\d{10}$/);
  const body = response.json();
  assert.deepEqual(Object.keys(body), ["code", "message", "details"]);
  assert.deepEqual(body.details, []);
  return body;
}

describe("upgrade routes: the exact JSON of docs/CONTRACT.md §2.9 in each state", () => {
  test("current_plan: none before H4, the scheduled plan after", async () => {
    const none = await get("/chain/upgrade/v1beta1/current_plan", { "x-chain-block-height": "3" });
    assert.equal(none.statusCode, 200);
    assert.equal(none.body, '{"plan":null}');
    const scheduled = await get("/chain/upgrade/v1beta1/current_plan");
    assert.equal(
      scheduled.body,
      '{"plan":{"name":"v2","time":"0001-01-01T00:00:00Z","height":"100","info":"","upgraded_client_state":null}}',
    );
    assert.equal(scheduled.headers["x-chain-block-height"], "5");
  });

  test("applied_plan: the height once applied, 0 before and for an unknown name", async () => {
    assert.equal((await get("/chain/upgrade/v1beta1/applied_plan/v1")).body, '{"height":"3"}');
    assert.equal(
      (await get("/chain/upgrade/v1beta1/applied_plan/v1", { "x-chain-block-height": "2" })).body,
      '{"height":"0"}',
    );
    assert.equal((await get("/chain/upgrade/v1beta1/applied_plan/nope")).body, '{"height":"0"}');
  });

  test("module_versions: sorted by name, one by module_name, unknown module 404 naming it", async () => {
    const all = (await get("/chain/upgrade/v1beta1/module_versions")).json();
    const names = all.module_versions.map((entry: { name: string }) => entry.name);
    assert.deepEqual(names, [...names].sort());
    assert.ok(names.includes("bank") && names.includes("upgrade"));
    assert.equal(
      (await get("/chain/upgrade/v1beta1/module_versions?module_name=bank")).body,
      '{"module_versions":[{"name":"bank","version":"1"}]}',
    );
    const unknown = await get("/chain/upgrade/v1beta1/module_versions?module_name=nope");
    assert.equal(unknown.statusCode, 404);
    const body = errorBody(unknown);
    assert.equal(body.code, 5);
    assert.match(body.message, /module nope not found/);
  });

  test("authority: the gov module account", async () => {
    const response = await get("/chain/upgrade/v1beta1/authority");
    assert.equal(response.body, '{"address":"chain10d07y265gmmuvt4z0w9aw880jnsr700j0q8wax"}');
    // X-Server-Time as upstream's API server sends it: unix seconds, now.
    const serverTime = Number(response.headers["x-server-time"]);
    assert.ok(Math.abs(serverTime - Date.now() / 1000) < 600, `x-server-time ${serverTime}`);
  });
});

describe("historical state and the height header", () => {
  test("a balance changed at H answers the old value at H-1, with the height used in both headers", async () => {
    const url = `/chain/bank/v1beta1/balances/${chain.alice.bech32}`;
    const before = await get(url, { "x-chain-block-height": "1" });
    assert.equal(before.statusCode, 200);
    assert.equal(
      before.body,
      '{"balances":[{"denom":"stake","amount":"1000000"}],"pagination":{"next_key":null,"total":"1"}}',
    );
    assert.equal(before.headers["x-chain-block-height"], "1");
    assert.equal(before.headers["grpc-metadata-x-chain-block-height"], "1");
    const afterSend = await get(url, { "Grpc-Metadata-X-Chain-Block-Height": "2" });
    assert.match(afterSend.body, /"amount":"999900"/);
    assert.equal(afterSend.headers["x-chain-block-height"], "2");
  });

  test("0 or no header means the latest height, reported back", async () => {
    for (const headers of [{}, { "x-chain-block-height": "0" }] as Record<string, string>[]) {
      const response = await get("/chain/upgrade/v1beta1/authority", headers);
      assert.equal(response.statusCode, 200);
      assert.equal(response.headers["x-chain-block-height"], "5");
    }
  });

  test("a future height is 400 code 3 with the exact message", async () => {
    const response = await get("/chain/upgrade/v1beta1/current_plan", { "x-chain-block-height": "6" });
    assert.equal(response.statusCode, 400);
    const body = errorBody(response);
    assert.equal(body.code, 3);
    assert.equal(
      body.message,
      "cannot query with height in the future; please provide a valid height (latest height: 5)",
    );
    assert.equal(response.headers["x-chain-block-height"], undefined);
  });

  test("malformed, negative, out-of-range and conflicting heights are 400 code 3 saying what is wrong", async () => {
    const cases: [Record<string, string>, RegExp][] = [
      [{ "x-chain-block-height": "abc" }, /expected a non-negative integer.*got "abc"/],
      [{ "x-chain-block-height": "1.5" }, /expected a non-negative integer/],
      [{ "x-chain-block-height": "" }, /expected a non-negative integer/],
      [{ "x-chain-block-height": "-1" }, /height < 0/],
      [{ "x-chain-block-height": "9223372036854775808" }, /out of range/],
      [
        { "x-chain-block-height": "2", "grpc-metadata-x-chain-block-height": "3" },
        /more than once with different values/,
      ],
    ];
    for (const [headers, message] of cases) {
      const response = await get("/chain/upgrade/v1beta1/current_plan", headers);
      assert.equal(response.statusCode, 400, JSON.stringify(headers));
      const body = errorBody(response);
      assert.equal(body.code, 3);
      assert.match(body.message, message);
    }
  });

  test("the header applies to the tendermint and node services too", async () => {
    const status = await get("/chain/base/node/v1beta1/status", { "x-chain-block-height": "2" });
    assert.equal(status.json().height, "2");
    assert.equal(status.json().earliest_store_height, "1");
    assert.equal(
      (await get("/chain/base/tendermint/v1beta1/syncing", { "x-chain-block-height": "7" })).statusCode,
      400,
    );
  });
});

describe("errors", () => {
  test("an unknown path, or a known one with a trailing slash, is 404 code 5", async () => {
    for (const url of ["/nope", "/", "/chain/upgrade/v1beta1/current_plan/", "/chain/upgrade/v1beta1"]) {
      const response = await get(url);
      assert.equal(response.statusCode, 404, url);
      assert.equal(errorBody(response).code, 5);
    }
  });

  test("a known path with another method is 405 code 12 with Allow", async () => {
    const post = await gw.app.inject({ method: "POST", url: "/chain/upgrade/v1beta1/current_plan", payload: "{}" });
    assert.equal(post.statusCode, 405);
    assert.equal(post.headers.allow, "GET, HEAD");
    assert.equal(errorBody(post).code, 12);
    const getSimulate = await get("/chain/tx/v1beta1/simulate");
    assert.equal(getSimulate.statusCode, 405);
    assert.equal(getSimulate.headers.allow, "POST");
    const del = await gw.app.inject({ method: "DELETE", url: "/chain/tx/v1beta1/txs" });
    assert.equal(del.statusCode, 405);
    assert.equal(del.headers.allow, "GET, HEAD, POST");
  });

  test("a body over rpc-max-body-bytes is 413 code 8", async () => {
    const small = gatewayFor(chain, { maxBodyBytes: 64 });
    try {
      const response = await small.app.inject({
        method: "POST",
        url: "/chain/tx/v1beta1/simulate",
        headers: { "content-type": "application/json" },
        payload: JSON.stringify({ tx_bytes: "A".repeat(200) }),
      });
      assert.equal(response.statusCode, 413);
      const body = errorBody(response);
      assert.equal(body.code, 8);
      assert.match(body.message, /larger than 64 bytes/);
      // A GET's body counts too (fastify would skip it), and one within the limit is ignored by a query route.
      const get = await small.app.inject({
        method: "GET",
        url: "/chain/upgrade/v1beta1/current_plan",
        headers: { "content-type": "application/json" },
        payload: JSON.stringify({ padding: "x".repeat(200) }),
      });
      assert.equal(get.statusCode, 413);
      assert.equal(errorBody(get).code, 8);
      const within = await small.app.inject({
        method: "GET",
        url: "/chain/upgrade/v1beta1/current_plan",
        headers: { "content-type": "application/json" },
        payload: "{}",
      });
      assert.equal(within.statusCode, 200, within.body);
      assert.ok("plan" in JSON.parse(within.body), within.body);
    } finally {
      await small.app.close();
    }
  });

  test("bad parameters are 400 code 3 naming the parameter", async () => {
    const base = `/chain/bank/v1beta1/balances/${chain.alice.bech32}`;
    const cases: [string, RegExp][] = [
      [`${base}?pagination.limit=abc`, /"pagination.limit": expected an unsigned 64-bit integer, got "abc"/],
      [`${base}?pagination.limit=-1`, /"pagination.limit"/],
      [`${base}?pagination.count_total=yes`, /"pagination.count_total": expected true or false/],
      [`${base}?pagination.key=%%%`, /./],
      [`${base}?pagination.key=@@@`, /"pagination.key": expected base64/],
      ["/chain/base/tendermint/v1beta1/blocks/abc", /"height": expected a 64-bit integer, got "abc"/],
      [
        "/chain/tx/v1beta1/txs?query=tx.height%3D2&order_by=SIDEWAYS",
        /expected one of ORDER_BY_UNSPECIFIED, ORDER_BY_ASC, ORDER_BY_DESC/,
      ],
      ["/chain/bank/v1beta1/balances/notanaddress", /./],
    ];
    for (const [url, message] of cases) {
      const response = await get(url);
      assert.equal(response.statusCode, 400, url);
      const body = errorBody(response);
      assert.equal(body.code, 3, url);
      assert.match(body.message, message, url);
    }
  });

  test("a malformed JSON body is 400 code 3; an empty one is an empty request", async () => {
    const bad = await gw.app.inject({
      method: "POST",
      url: "/chain/tx/v1beta1/txs",
      payload: "{nope",
      headers: { "content-type": "application/json" },
    });
    assert.equal(bad.statusCode, 400);
    assert.match(errorBody(bad).message, /not JSON/);
    const empty = await gw.app.inject({
      method: "POST",
      url: "/chain/tx/v1beta1/txs",
      headers: { "content-type": "application/json" },
    });
    assert.equal(empty.statusCode, 400);
    assert.equal(errorBody(empty).message, "invalid empty tx");
  });

  test("an unexpected failure is 500 code 13 with the message and no stack trace", async () => {
    const broken = gatewayFor({
      ...chain,
      hooks: {
        ...chain.hooks,
        syncing: async () => {
          throw new Error("disk on fire");
        },
      },
    });
    try {
      const response = await broken.app.inject({ method: "GET", url: "/chain/base/tendermint/v1beta1/syncing" });
      assert.equal(response.statusCode, 500);
      assert.equal(response.body, '{"code":13,"message":"disk on fire","details":[]}');
    } finally {
      await broken.app.close();
    }
  });
});

describe("request mapping", () => {
  test("Content-Type: application/json is accepted on GET", async () => {
    const response = await get("/chain/upgrade/v1beta1/authority", { "content-type": "application/json" });
    assert.equal(response.statusCode, 200);
  });

  test("pagination by dot notation, in proto or lowerCamel names; path fields cannot be overridden", async () => {
    const url = `/chain/bank/v1beta1/balances/${chain.bob.bech32}?pagination.limit=1&pagination.countTotal=true&address=${chain.alice.bech32}`;
    const body = (await get(url)).json();
    assert.deepEqual(body.balances, [{ denom: "stake", amount: "600" }]);
    assert.equal(body.pagination.total, "1");
  });

  test("a path variable can hold a percent-encoded slash", async () => {
    const response = await get("/chain/bank/v1beta1/supply/by_denom?denom=stake");
    assert.equal(response.statusCode, 200);
    const metadata = await get("/chain/bank/v1beta1/denoms_metadata/ibc%2FABC");
    assert.equal(metadata.statusCode, 404, metadata.body);
    assert.match(errorBody(metadata).message, /ibc\/ABC/);
  });

  test("enums by name or number; repeated fields by repetition", async () => {
    for (const order of ["ORDER_BY_DESC", "2"]) {
      const response = await get(`/chain/tx/v1beta1/txs?query=tx.height%3D2&order_by=${order}`);
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.json().total, "1");
    }
    const sendEnabled = await get("/chain/bank/v1beta1/send_enabled?denoms=stake&denoms=atom");
    assert.ok(sendEnabled.statusCode < 500, sendEnabled.body);
  });
});

describe("tx service", () => {
  test("simulate answers gas info for base64 tx bytes", async () => {
    const tx = chain.send(chain.bob, "1", { dryRun: true });
    const response = await gw.app.inject({
      method: "POST",
      url: "/chain/tx/v1beta1/simulate",
      payload: { tx_bytes: Buffer.from(tx).toString("base64") },
    });
    assert.equal(response.statusCode, 200, response.body);
    const body = response.json();
    assert.deepEqual(Object.keys(body), ["gas_info", "result"]);
    assert.match(body.gas_info.gas_used, /^[1-9][0-9]*$/);
    assert.equal(body.result.msg_responses[0]["@type"], "/chain.bank.v1beta1.MsgSendResponse");
    const empty = await gw.app.inject({ method: "POST", url: "/chain/tx/v1beta1/simulate", payload: {} });
    assert.equal(empty.statusCode, 400);
    assert.equal(errorBody(empty).message, "empty txBytes is not allowed");
  });

  test("broadcast sync answers a tx_response; unsupported modes are 400", async () => {
    const tx = chain.send(chain.bob, "2");
    const response = await gw.app.inject({
      method: "POST",
      url: "/chain/tx/v1beta1/txs",
      payload: { tx_bytes: Buffer.from(tx).toString("base64"), mode: "BROADCAST_MODE_SYNC" },
    });
    assert.equal(response.statusCode, 200, response.body);
    const txResponse = response.json().tx_response;
    assert.equal(txResponse.code, 0);
    assert.match(txResponse.txhash, /^[0-9A-F]{64}$/);
    const block = await gw.app.inject({
      method: "POST",
      url: "/chain/tx/v1beta1/txs",
      payload: { tx_bytes: Buffer.from(tx).toString("base64"), mode: "BROADCAST_MODE_BLOCK" },
    });
    assert.equal(block.statusCode, 400);
    assert.match(errorBody(block).message, /unsupported return type block/);
  });

  test("get a tx by hash; unknown 404; empty 400", async () => {
    const response = await get(`/chain/tx/v1beta1/txs/${sendHash}`);
    assert.equal(response.statusCode, 200, response.body);
    const body = response.json();
    assert.equal(body.tx.body.messages[0]["@type"], "/chain.bank.v1beta1.MsgSend");
    assert.equal(body.tx.body.timeout_height, "0");
    assert.equal(body.tx_response.height, "2");
    const unknown = await get(`/chain/tx/v1beta1/txs/${"AB".repeat(32)}`);
    assert.equal(unknown.statusCode, 404);
    assert.equal(errorBody(unknown).message, `tx not found: ${"AB".repeat(32)}`);
    assert.equal((await get("/chain/tx/v1beta1/txs/")).statusCode, 400);
    assert.equal((await get("/chain/tx/v1beta1/txs/xyz")).statusCode, 400);
  });

  test("search needs a query; block with txs decodes them", async () => {
    const missing = await get("/chain/tx/v1beta1/txs");
    assert.equal(missing.statusCode, 400);
    assert.equal(errorBody(missing).message, "query cannot be empty");
    const block = (await get("/chain/tx/v1beta1/txs/block/2")).json();
    assert.equal(block.txs.length, 1);
    assert.equal(block.pagination.total, "1");
    assert.equal((await get("/chain/tx/v1beta1/txs/block/99")).statusCode, 400);
  });

  test("decode and encode round-trip; amino JSON is not supported", async () => {
    const decoded = await gw.app.inject({
      method: "POST",
      url: "/chain/tx/v1beta1/decode",
      payload: { tx_bytes: Buffer.from(sendTx).toString("base64") },
    });
    assert.equal(decoded.statusCode, 200, decoded.body);
    const encoded = await gw.app.inject({
      method: "POST",
      url: "/chain/tx/v1beta1/encode",
      payload: { tx: decoded.json().tx },
    });
    assert.equal(encoded.statusCode, 200, encoded.body);
    assert.equal(encoded.json().tx_bytes, Buffer.from(sendTx).toString("base64"));
    const amino = await gw.app.inject({ method: "POST", url: "/chain/tx/v1beta1/encode/amino", payload: {} });
    assert.equal(amino.statusCode, 400);
    assert.equal(errorBody(amino).code, 3);
    assert.match(errorBody(amino).message, /legacy amino encoding is not supported/);
    void toBinary(TxRawSchema, create(TxRawSchema));
  });
});

describe("tendermint and node services", () => {
  test("blocks: latest, by height, beyond the chain and below 1", async () => {
    const latest = (await get("/chain/base/tendermint/v1beta1/blocks/latest")).json();
    assert.equal(latest.block.header.height, "5");
    assert.equal(
      latest.sdk_block.header.proposer_address,
      encodeBech32(BECH32_PREFIXES.cons, new Uint8Array(20).fill(7)),
    );
    assert.equal((await get("/chain/base/tendermint/v1beta1/blocks/2")).json().block.data.txs.length, 1);
    const beyond = await get("/chain/base/tendermint/v1beta1/blocks/6");
    assert.equal(beyond.statusCode, 400);
    assert.equal(errorBody(beyond).message, "requested block height is bigger then the chain length");
    assert.equal((await get("/chain/base/tendermint/v1beta1/blocks/0")).statusCode, 400);
  });

  test("validator sets, node info, syncing, abci_query", async () => {
    const set = (await get("/chain/base/tendermint/v1beta1/validatorsets/latest")).json();
    assert.equal(set.block_height, "5");
    assert.equal(set.validators[0].pub_key["@type"], "/chain.crypto.ed25519.PubKey");
    assert.equal((await get("/chain/base/tendermint/v1beta1/validatorsets/3")).json().block_height, "3");
    assert.equal(
      (await get("/chain/base/tendermint/v1beta1/node_info")).json().default_node_info.network,
      "test-chain",
    );
    assert.equal((await get("/chain/base/tendermint/v1beta1/syncing")).body, '{"syncing":false}');
    const version = await get("/chain/base/tendermint/v1beta1/abci_query?path=%2Fapp%2Fversion");
    assert.equal(version.statusCode, 200, version.body);
    const noPath = await get("/chain/base/tendermint/v1beta1/abci_query");
    assert.equal(noPath.statusCode, 400);
    assert.equal(errorBody(noPath).message, "empty query path");
  });

  test("node config echoes app.toml in upstream's form", async () => {
    // The defaults: pruning "default" with the file's pruning-keep-recent / pruning-interval "0", echoed as upstream does.
    assert.equal(
      (await get("/chain/base/node/v1beta1/config")).body,
      '{"minimum_gas_price":"","pruning_keep_recent":"0","pruning_interval":"0","halt_height":"0"}',
    );
  });
});

// A sample value for each path variable name the annotations use.
function sampleParam(name: string): string {
  const samples: Record<string, string> = {
    address: chain.alice.bech32,
    delegator_addr: chain.alice.bech32,
    voter: chain.alice.bech32,
    depositor: chain.alice.bech32,
    validator_addr: encodeBech32(BECH32_PREFIXES.val, chain.alice.address),
    name: "v1",
    denom: "stake",
    hash: sendHash,
    height: "2",
    last_height: "2",
    proposal_id: "1",
    id: "0",
    address_bytes: Buffer.from(chain.alice.address).toString("base64url"),
    address_string: chain.alice.bech32,
    params_type: "voting",
  };
  const value = samples[name];
  assert.ok(value !== undefined, `no sample value for the path variable ${name}`);
  return encodeURIComponent(value);
}

test("every derived route answers JSON; every 200 carries every output field in declaration order", async () => {
  const services = new Set(gw.router.routes.map((rest) => rest.route.service.typeName));
  for (const expected of [
    "chain.tx.v1beta1.Service",
    "chain.base.tendermint.v1beta1.Service",
    "chain.base.node.v1beta1.Service",
    "chain.upgrade.v1beta1.Query",
    "chain.bank.v1beta1.Query",
    "chain.auth.v1beta1.Query",
    "chain.staking.v1beta1.Query",
  ]) {
    assert.ok(services.has(expected), `${expected} is not served`);
  }
  let ok = 0;
  for (const { binding, route } of gw.router.routes) {
    const url = `/${binding.segments.map((s) => (s.kind === "literal" ? s.value : sampleParam(s.fieldPath))).join("/")}`;
    const query =
      route.method.name === "GetTxsEvent"
        ? "?query=tx.height%3D2"
        : route.method.name === "ABCIQuery"
          ? "?path=%2Fapp%2Fversion"
          : "";
    const response = await gw.app.inject({
      method: binding.method,
      url: url + query,
      ...(binding.method === "POST" ? { payload: {} } : {}),
    });
    const label = `${binding.method} ${binding.template}`;
    assert.equal(response.headers["content-type"], "application/json; charset=utf-8", label);
    assert.ok(response.statusCode < 500, `${label}: ${response.statusCode} ${response.body}`);
    if (response.statusCode === 200) {
      ok++;
      assert.deepEqual(
        Object.keys(response.json()),
        route.output.fields.filter((f) => f.oneof === undefined).map((f) => f.name),
        label,
      );
      assert.match(String(response.headers["x-chain-block-height"]), /^[0-9]+$/, label);
    }
  }
  assert.ok(ok >= 40, `only ${ok} routes answered 200`);
});

test("the gateway loads no JSON-schema compiler: a route given a schema fails at ready, saying why", async () => {
  const fresh = gatewayFor(chain);
  fresh.app.get("/with-schema", { schema: { querystring: { type: "object" } } }, async () => "x");
  await assert.rejects(async () => void (await fresh.app.ready()), /declares no JSON schemas/);
  await fresh.app.close().catch(() => undefined);
});
