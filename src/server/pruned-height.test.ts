// A pruned height over both transports (docs/CONTRACT.md §6, §7): REST 404 code 5 and gRPC NOT_FOUND, both with
// the store's exact message naming the earliest available height; node Status reports it too.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { Client, credentials, Metadata, type ServiceError, status } from "@grpc/grpc-js";
import { parseAppConfig } from "../config/app-config.ts";
import { QueryAuthorityRequestSchema, QueryAuthorityResponseSchema } from "../gen/chain/upgrade/v1beta1/query_pb.js";
import { RequestQuerySchema } from "../gen/tendermint/abci/types_pb.js";
import { type ChainFixture, openChainFixture } from "../testing/chain-fixture.ts";
import { type RunningServers, startServers } from "./servers.ts";

let chain: ChainFixture;
let servers: RunningServers;
let earliest: bigint;

before(async () => {
  // Keep 2 recent versions, prune every 10 commits.
  chain = await openChainFixture({ pruning: { strategy: "everything", keepRecent: 2n, interval: 10n } });
  for (let i = 0; i < 12; i++) await chain.nextBlock();
  // Pruning runs in the background after the commit at 10.
  for (let i = 0; i < 500 && chain.backend.earliestHeight() <= 1n; i++) await new Promise((r) => setTimeout(r, 10));
  earliest = chain.backend.earliestHeight();
  assert.ok(earliest > 1n, "pruning did not happen");
  servers = await startServers({
    backend: chain.backend,
    hooks: chain.hooks,
    config: parseAppConfig('[api]\naddress = "tcp://127.0.0.1:0"\n[grpc]\naddress = "127.0.0.1:0"\n'),
  });
});

after(async () => {
  await servers.stop();
  await chain.close();
});

const expected = () =>
  `failed to load state at height 1; version pruned (earliest available height: ${earliest}, latest height: 12)`;

test("REST: 404 code 5 naming the earliest available height", async () => {
  const response = await fetch(`${servers.rest!.url}/chain/upgrade/v1beta1/authority`, {
    headers: { "x-chain-block-height": "1", connection: "close" },
  });
  assert.equal(response.status, 404);
  assert.deepEqual(await response.json(), { code: 5, message: expected(), details: [] });
  const ok = await fetch(`${servers.rest!.url}/chain/upgrade/v1beta1/authority`, {
    headers: { "x-chain-block-height": String(earliest), connection: "close" },
  });
  assert.equal(ok.status, 200);
  assert.equal(ok.headers.get("x-chain-block-height"), String(earliest));
  const statusResponse = await fetch(`${servers.rest!.url}/chain/base/node/v1beta1/status`, {
    headers: { connection: "close" },
  });
  const nodeStatus = (await statusResponse.json()) as { earliest_store_height: string; height: string };
  assert.equal(nodeStatus.earliest_store_height, String(earliest));
  assert.equal(nodeStatus.height, "12");
});

test("gRPC: NOT_FOUND with the same message", async () => {
  const client = new Client(servers.grpc!.address, credentials.createInsecure());
  try {
    const metadata = new Metadata();
    metadata.set("x-chain-block-height", "1");
    const error = await new Promise<ServiceError | null>((resolve) => {
      client.makeUnaryRequest(
        "/chain.upgrade.v1beta1.Query/Authority",
        () => Buffer.from(toBinary(QueryAuthorityRequestSchema, create(QueryAuthorityRequestSchema))),
        (bytes: Buffer) => fromBinary(QueryAuthorityResponseSchema, bytes),
        {},
        metadata,
        (err) => resolve(err),
      );
    });
    assert.equal(error?.code, status.NOT_FOUND);
    assert.equal(error?.details, expected());
  } finally {
    client.close();
  }
});

test("ABCI Query: sdk code 38 (not found) with the same message, on every path that takes a height", async () => {
  const app = chain.testApp.app;
  const data = toBinary(QueryAuthorityRequestSchema, create(QueryAuthorityRequestSchema));
  for (const [path, bytes] of [
    ["/chain.upgrade.v1beta1.Query/Authority", data],
    ["/store/bank/key", new Uint8Array([1])],
    ["/app/version", new Uint8Array()],
  ] as const) {
    const answer = await app.query(create(RequestQuerySchema, { path, data: bytes, height: 1n }));
    assert.deepEqual([answer.code, answer.codespace, answer.log], [38, "sdk", `${expected()}: not found`], path);
  }
  const future = await app.query(create(RequestQuerySchema, { path: "/app/version", height: 99n }));
  assert.equal(future.code, 26);
  assert.match(future.log, /cannot query with height in the future/);
  const atEarliest = await app.query(create(RequestQuerySchema, { path: "/app/version", height: earliest }));
  assert.deepEqual([atEarliest.code, atEarliest.height], [0, earliest]);
});
