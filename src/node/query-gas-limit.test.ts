// app.toml query-gas-limit on a started node (real LevelDB, real sockets on loopback ports picked at run time):
// a query that needs more gas than the limit fails over REST (500, code 13), gRPC (INTERNAL) and ABCI Query
// (an error code and log) with upstream's message naming the limit and where the gas ran out; the same query
// succeeds under a limit it fits in, and queries that read no state are not affected.
import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import { after, before, describe, test } from "node:test";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { Client, credentials, type ServiceError, status } from "@grpc/grpc-js";
import { pino } from "pino";
import { fastDevHome, pollUntil, type tempDir } from "../../test/support/node/chaind.ts";
import { homePaths, setTomlValues } from "../config/index.ts";
import { QueryAllBalancesRequestSchema, QueryAllBalancesResponseSchema } from "../gen/chain/bank/v1beta1/query_pb.js";
import type { DevHome } from "./dev-chain.ts";
import { type RunningNode, startNode } from "./start-node.ts";

const PORTS = { rpcLaddr: "tcp://127.0.0.1:0", apiAddress: "tcp://127.0.0.1:0", grpcAddress: "127.0.0.1:0" };
const logger = pino({ level: "silent" });
const OVER_LIMIT = /^Query gas limit exceeded: 1, out of gas in location: \S.*: out of gas$/;

let dir: Awaited<ReturnType<typeof tempDir>>;
let dev: DevHome;
let node: RunningNode | undefined;

before(async () => {
  ({ dir, dev } = await fastDevHome("chaind-query-gas-", "100ms"));
});

after(async () => {
  await node?.stop();
  await dir?.remove();
});

/** Starts the dev node with `query-gas-limit = "<limit>"` in app.toml; returns once the App has committed a block. */
async function startWithLimit(limit: string): Promise<RunningNode> {
  await node?.stop();
  node = undefined;
  const appToml = homePaths(dev.home).appToml;
  await writeFile(appToml, setTomlValues(await readFile(appToml, "utf8"), { "query-gas-limit": limit }));
  const started = await startNode({ home: dev.home, logger, overrides: PORTS });
  node = started;
  // The App's own last commit, which queries read: the block store saves a block before the App commits it.
  await pollUntil(async () => (started.chain.app.lastBlockHeight() >= 1n ? true : undefined), {
    what: "the App's first committed block",
  });
  return started;
}

function balancesPath(): string {
  return `/chain/bank/v1beta1/balances/${dev.keys[0].address}`;
}

function grpcAllBalances(address: string): Promise<{ error: ServiceError | null; denoms: string[] }> {
  const client = new Client(node!.endpoints.grpc!, credentials.createInsecure());
  return new Promise((resolve) => {
    client.makeUnaryRequest(
      "/chain.bank.v1beta1.Query/AllBalances",
      () => Buffer.from(toBinary(QueryAllBalancesRequestSchema, create(QueryAllBalancesRequestSchema, { address }))),
      (bytes: Buffer) => fromBinary(QueryAllBalancesResponseSchema, bytes),
      {},
      (error: ServiceError | null, response?: { balances: { denom: string }[] }) => {
        client.close();
        resolve({ error, denoms: response?.balances.map((coin) => coin.denom) ?? [] });
      },
    );
  });
}

describe("query-gas-limit", () => {
  test("a query over the limit fails over REST, gRPC and ABCI Query with upstream's message", async () => {
    const started = await startWithLimit("1");
    assert.equal(started.settings.appConfig.queryGasLimit, 1n);

    const rest = await fetch(`${started.endpoints.rest}${balancesPath()}`, { headers: { connection: "close" } });
    const body = (await rest.json()) as { code: number; message: string; details: unknown[] };
    assert.equal(rest.status, 500, JSON.stringify(body));
    assert.equal(body.code, 13);
    assert.match(body.message, OVER_LIMIT);
    assert.deepEqual(body.details, []);

    const grpc = await grpcAllBalances(dev.keys[0].address);
    assert.equal(grpc.error?.code, status.INTERNAL);
    assert.match(grpc.error?.details ?? "", OVER_LIMIT);

    const data = Buffer.from(
      toBinary(QueryAllBalancesRequestSchema, create(QueryAllBalancesRequestSchema, { address: dev.keys[0].address })),
    ).toString("hex");
    const abci = await fetch(
      `${started.endpoints.rpc}/abci_query?path=%22/chain.bank.v1beta1.Query/AllBalances%22&data=0x${data}`,
      { headers: { connection: "close" } },
    );
    const result = (await abci.json()) as { result: { response: { code: number; log: string } } };
    assert.notEqual(result.result.response.code, 0);
    assert.match(result.result.response.log, /Query gas limit exceeded: 1, out of gas in location: /);

    // The limit is for one query: exporting the whole state (genesis export) is not held to it.
    const exported = (await started.chain.app.exportAppState()) as { bank?: { balances?: unknown[] } };
    assert.ok((exported.bank?.balances?.length ?? 0) > 0);

    // Reading no state costs no gas: the node's own status still answers.
    const nodeStatus = await fetch(`${started.endpoints.rest}/chain/base/node/v1beta1/status`, {
      headers: { connection: "close" },
    });
    assert.equal(nodeStatus.status, 200);
  });

  test("the same query answers under a limit it fits in", async () => {
    const started = await startWithLimit("10000000");
    const rest = await fetch(`${started.endpoints.rest}${balancesPath()}`, { headers: { connection: "close" } });
    assert.equal(rest.status, 200);
    const body = (await rest.json()) as { balances: { denom: string }[] };
    assert.ok(body.balances.length > 0, JSON.stringify(body));
    const grpc = await grpcAllBalances(dev.keys[0].address);
    assert.equal(grpc.error, null);
    assert.deepEqual(
      grpc.denoms,
      body.balances.map((coin) => coin.denom),
    );
  });
});
