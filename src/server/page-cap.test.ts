// Lists that grow with chain history answer at most 100 items per page (docs/CONTRACT.md §12 "Page caps"): a
// larger limit gets the capped page (as CometBFT's tx_search per_page), the response's pagination
// carries the total so the client can page on, and Swagger states the maximum.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { Client, credentials } from "@grpc/grpc-js";
import { gatewayFor } from "../../test/support/server/gateway.ts";
import { parseAppConfig } from "../config/app-config.ts";
import {
  GetTxsEventRequestSchema,
  type GetTxsEventResponse,
  GetTxsEventResponseSchema,
} from "../gen/chain/tx/v1beta1/service_pb.js";
import { type ChainFixture, openChainFixture } from "../testing/chain-fixture.ts";
import type { RestGateway } from "./rest-gateway.ts";
import { startServers } from "./servers.ts";

const TX_COUNT = 130;
let chain: ChainFixture;
let gw: RestGateway;

before(async () => {
  chain = await openChainFixture();
  await chain.nextBlock(); // 1
  const txs = Array.from({ length: TX_COUNT }, () => chain.send(chain.bob, "1"));
  await chain.nextBlock(txs); // 2: 130 sends
  gw = gatewayFor(chain);
  await gw.app.ready();
});

after(async () => {
  await gw?.app.close();
  await chain?.close();
});

async function txsPage(query: string): Promise<{ txs: unknown[]; total: string; pagination: unknown }> {
  const response = await gw.app.inject({ method: "GET", url: `/chain/tx/v1beta1/txs?query=tx.height%3D2${query}` });
  assert.equal(response.statusCode, 200, response.body);
  return response.json();
}

test("GetTxsEvent: limit 1000000 gets a page of 100, and the pagination says there are 130", async () => {
  for (const query of ["&limit=1000000", "&limit=18446744073709551615", "&pagination.limit=1000000", ""]) {
    const body = await txsPage(query);
    assert.equal(body.txs.length, 100, query);
    assert.equal(body.total, String(TX_COUNT), query);
    assert.deepEqual(body.pagination, { next_key: null, total: String(TX_COUNT) }, query);
  }
  const second = await txsPage("&limit=1000&page=2");
  assert.equal(second.txs.length, TX_COUNT - 100);
  assert.equal((await txsPage("&limit=7")).txs.length, 7);
});

test("GetBlockWithTxs: pagination.limit above 100 gets 100 txs", async () => {
  const response = await gw.app.inject({ method: "GET", url: "/chain/tx/v1beta1/txs/block/2?pagination.limit=5000" });
  assert.equal(response.statusCode, 200, response.body);
  const body = response.json();
  assert.equal(body.txs.length, 100);
  assert.equal(body.pagination.total, String(TX_COUNT));
});

test("Swagger states the maximum next to the capped page-size parameters", async () => {
  const response = await gw.app.inject({ method: "GET", url: "/swagger/swagger.json" });
  const doc = response.json();
  const parameters: { name: string; maximum?: number; description?: string }[] =
    doc.paths["/chain/tx/v1beta1/txs"].get.parameters;
  for (const name of ["limit", "pagination.limit"]) {
    const parameter = parameters.find((p) => p.name === name);
    assert.equal(parameter?.maximum, 100, name);
    assert.match(String(parameter?.description), /at most 100 items per page/, name);
  }
  const accounts = doc.paths["/chain/auth/v1beta1/accounts"].get.parameters;
  assert.equal(accounts.find((p: { name: string }) => p.name === "pagination.limit")?.maximum, 100);
});

test("GetTxsEvent over real gRPC: limit 1000000 gets 100 txs and the total", async () => {
  const servers = await startServers({
    backend: chain.backend,
    hooks: chain.hooks,
    config: parseAppConfig('[api]\nenable = false\n[grpc]\naddress = "127.0.0.1:0"\n'),
  });
  const grpc = servers.grpc;
  assert.ok(grpc !== undefined);
  const client = new Client(grpc.address, credentials.createInsecure());
  try {
    const response = await new Promise<GetTxsEventResponse>((resolve, reject) => {
      client.makeUnaryRequest(
        "/chain.tx.v1beta1.Service/GetTxsEvent",
        (value: Uint8Array) => Buffer.from(value),
        (bytes: Buffer) => fromBinary(GetTxsEventResponseSchema, bytes),
        toBinary(
          GetTxsEventRequestSchema,
          create(GetTxsEventRequestSchema, { query: "tx.height=2", limit: 1_000_000n }),
        ),
        (error, value) => (error !== null || value === undefined ? reject(error) : resolve(value)),
      );
    });
    assert.equal(response.txs.length, 100);
    assert.equal(response.total, BigInt(TX_COUNT));
    assert.equal(response.pagination?.total, BigInt(TX_COUNT));
  } finally {
    client.close();
    await servers.stop();
  }
});

test("GetTxsEvent: a page past the last one is refused with upstream's text (400 code 3); page 0 is page 1", async () => {
  for (const [query, pages, page] of [
    ["&limit=100&page=3", 2, 3],
    ["&limit=1000&page=18446744073709551615", 2, "18446744073709551615"],
    ["&limit=7&page=20", 19, 20],
  ] as const) {
    const response = await gw.app.inject({ method: "GET", url: `/chain/tx/v1beta1/txs?query=tx.height%3D2${query}` });
    assert.equal(response.statusCode, 400, query);
    assert.deepEqual(
      response.json(),
      {
        code: 3,
        message: `failed to search for txs: page should be within [1, ${pages}] range, given ${page}`,
        details: [],
      },
      query,
    );
  }
  // No match: one empty page, so page 1 answers and page 2 is past it.
  const none = await gw.app.inject({ method: "GET", url: "/chain/tx/v1beta1/txs?query=tx.height%3D999" });
  assert.equal(none.statusCode, 200, none.body);
  assert.equal(none.json().total, "0");
  const pastNone = await gw.app.inject({ method: "GET", url: "/chain/tx/v1beta1/txs?query=tx.height%3D999&page=2" });
  assert.equal(pastNone.json().message, "failed to search for txs: page should be within [1, 1] range, given 2");
  assert.equal((await txsPage("&limit=100&page=2")).txs.length, TX_COUNT - 100);
  assert.equal((await txsPage("&page=0")).txs.length, 100);
});
