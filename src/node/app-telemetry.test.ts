// The application's metrics (app.toml [telemetry]) on the REST server, scraped over real HTTP from a node started in
// process on a dev home: 404 when off and 400 without format=prometheus (as upstream's API server), then the
// transaction, gas, commit, query (gRPC, REST, ABCI), upgrade and process metrics under the service-name prefix.
import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import { after, before, describe, test } from "node:test";
import { fromBinary, toBinary } from "@bufbuild/protobuf";
import { Client, credentials, Metadata, type ServiceError } from "@grpc/grpc-js";
import { pino } from "pino";
import { fastDevHome, pollUntil, type tempDir } from "../../test/support/node/chaind.ts";
import { sample, scrape, sendFromAlice, waitForCommitted } from "../../test/support/node/metrics.ts";
import { homePaths } from "../config/home.ts";
import { loadGenesis, saveGenesis } from "../config/index.ts";
import { setTomlValues } from "../config/toml-template.ts";
import {
  QueryCurrentPlanRequestSchema,
  QueryCurrentPlanResponseSchema,
} from "../gen/chain/upgrade/v1beta1/query_pb.js";
import { scheduleUpgradeByVote } from "../testing/governance.ts";
import type { DevHome } from "./dev-chain.ts";
import { type RunningNode, startNode } from "./start-node.ts";

const PORTS = { rpcLaddr: "tcp://127.0.0.1:0", apiAddress: "tcp://127.0.0.1:0", grpcAddress: "127.0.0.1:0" };
const logger = pino({ level: "silent" });

let dir: Awaited<ReturnType<typeof tempDir>>;
let dev: DevHome;
let node: RunningNode | undefined;

async function setAppToml(values: Record<string, string | number | boolean>): Promise<void> {
  const file = homePaths(dev.home).appToml;
  await writeFile(file, setTomlValues(await readFile(file, "utf8"), values));
}

/** One unary gRPC call of Query/CurrentPlan (the transport the metric should label "grpc"). */
function currentPlanOverGrpc(address: string): Promise<void> {
  const client = new Client(address, credentials.createInsecure());
  return new Promise<void>((resolve, reject) => {
    client.makeUnaryRequest(
      "/chain.upgrade.v1beta1.Query/CurrentPlan",
      () =>
        Buffer.from(
          toBinary(QueryCurrentPlanRequestSchema, { $typeName: "chain.upgrade.v1beta1.QueryCurrentPlanRequest" }),
        ),
      (bytes: Buffer) => fromBinary(QueryCurrentPlanResponseSchema, bytes),
      {},
      new Metadata(),
      { deadline: Date.now() + 60_000 },
      (error: ServiceError | null) => {
        client.close();
        if (error === null) resolve();
        else reject(error);
      },
    );
  });
}

before(async () => {
  ({ dir, dev } = await fastDevHome("chaind-app-telemetry-", "100ms"));
  // Governance that passes a plan in seconds, for the upgrade gauges.
  const paths = homePaths(dev.home);
  const genesis = await loadGenesis(paths.genesis);
  const appState = structuredClone(genesis.appState ?? {});
  const gov = appState.gov as { params: Record<string, string> };
  gov.params.max_deposit_period = "2s";
  gov.params.voting_period = "2s";
  gov.params.expedited_voting_period = "1s";
  await saveGenesis(paths.genesis, { ...genesis, appState });
});

after(async () => {
  await node?.stop();
  await dir?.remove();
});

describe("application metrics on the REST server", () => {
  test("are off by default: GET /metrics is 404", async () => {
    node = await startNode({ home: dev.home, logger, overrides: PORTS });
    const response = await fetch(`${node.endpoints.rest}/metrics?format=prometheus`);
    assert.equal(response.status, 404);
    await response.arrayBuffer();
    assert.equal((await node.stop()).exitCode, 0);
    node = undefined;
  });

  test("with [telemetry] enabled: 400 without format=prometheus, then the app's metrics under service-name", async () => {
    await setAppToml({ "telemetry.enabled": true, "telemetry.service-name": "devchain" });
    node = await startNode({ home: dev.home, logger, overrides: PORTS });
    const rest = node.endpoints.rest as string;
    for (const query of ["", "?format=json", "?format=text"]) {
      const response = await fetch(`${rest}/metrics${query}`);
      assert.equal(response.status, 400, query);
      const body = (await response.json()) as { code: number; message: string; details: unknown[] };
      assert.equal(body.code, 3, query);
      assert.match(body.message, /^failed to gather metrics: .*format=prometheus/);
      assert.deepEqual(body.details, []);
    }
    const post = await fetch(`${rest}/metrics?format=prometheus`, { method: "POST" });
    assert.equal(post.status, 405);
    assert.equal(post.headers.get("allow"), "GET");
    assert.equal(((await post.json()) as { code: number }).code, 12);
    const url = `${rest}/metrics?format=prometheus`;
    await pollUntil(async () => ((sample(await scrape(url), "devchain_block_height") ?? 0) >= 2 ? true : undefined), {
      what: "height 2 in the app metrics",
    });

    await waitForCommitted(node, await sendFromAlice(node, dev, 3n));
    await fetch(`${rest}/chain/bank/v1beta1/balances/${dev.keys[0]?.address}`).then((r) => r.arrayBuffer());
    await currentPlanOverGrpc(node.endpoints.grpc as string);
    const text = await pollUntil(
      async () => {
        const t = await scrape(url);
        // The gas of the send (the block's extended-commit tx uses none), once the scrape after its block shows it.
        return (sample(t, "devchain_tx_gas_used_total") ?? 0) > 0 ? t : undefined;
      },
      { what: "the send counted as a committed tx" },
    );
    assert.match(text, /^# TYPE devchain_tx_total counter$/m);
    // Only the send: the extended commit each block opens with (readiness) is not counted as a transaction.
    assert.equal(sample(text, "devchain_tx_total", { phase: "finalize_block", code: "0" }), 1);
    assert.ok((sample(text, "devchain_tx_total", { phase: "check_tx", code: "0" }) ?? 0) >= 1);
    assert.ok((sample(text, "devchain_tx_gas_used_total") ?? 0) > 0);
    assert.ok((sample(text, "devchain_store_commit_seconds_count") ?? 0) >= 2);
    assert.ok(
      (sample(text, "devchain_query_requests_total", {
        transport: "rest",
        route: "/chain.bank.v1beta1.Query/AllBalances",
      }) ?? 0) >= 1,
    );
    assert.ok(
      (sample(text, "devchain_query_requests_total", {
        transport: "grpc",
        route: "/chain.upgrade.v1beta1.Query/CurrentPlan",
      }) ?? 0) >= 1,
    );
    assert.match(text, /^# TYPE devchain_query_seconds histogram$/m);
    assert.equal(sample(text, "devchain_upgrade_plan_height"), 0);
    assert.equal(sample(text, "devchain_upgrade_blocks_until"), 0);
    assert.equal(sample(text, "devchain_upgrade_ready_fraction"), 0);
    assert.equal(sample(text, "devchain_upgrade_applied_total"), 0);
    assert.equal(sample(text, "devchain_halted"), 0);
    assert.match(text, /^# TYPE devchain_snapshot_create_total counter$/m);
    for (const processMetric of [
      "process_cpu_seconds_total",
      "process_resident_memory_bytes",
      "nodejs_heap_size_used_bytes",
      "nodejs_eventloop_lag_seconds",
    ]) {
      assert.ok(sample(text, processMetric) !== undefined, processMetric);
    }
    assert.match(text, /^# TYPE nodejs_gc_duration_seconds histogram$/m);

    // An abci_query over the consensus RPC is the ABCI transport.
    const abci = await fetch(node.endpoints.rpc as string, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "abci_query",
        params: { path: "/chain.upgrade.v1beta1.Query/CurrentPlan", data: "" },
      }),
    });
    await abci.arrayBuffer();
    const afterAbci = await scrape(url);
    assert.ok(
      (sample(afterAbci, "devchain_query_requests_total", {
        transport: "abci",
        route: "/chain.upgrade.v1beta1.Query/CurrentPlan",
      }) ?? 0) >= 1,
    );
  });

  test("the upgrade gauges of one scrape agree: plan height, blocks until it, the plan's name and the ready fraction", async () => {
    const running = node as RunningNode;
    const url = `${running.endpoints.rest}/metrics?format=prometheus`;
    const validator = dev.keys.find((k) => k.name === "validator");
    assert.ok(validator !== undefined);
    const height = running.chain.app.lastBlockHeight() + 2000n;
    await scheduleUpgradeByVote({
      rpc: running.endpoints.rpc as string,
      rest: running.endpoints.rest as string,
      home: dev.home,
      chainId: dev.chainId,
      keyName: "validator",
      address: validator.address,
      name: "v2",
      height,
      timeoutMs: 60_000,
    });
    // Every scrape from the one that first shows the plan on: the three gauges describe the same plan. (They are
    // collected concurrently; blocks_until once read the previous scrape's plan and said 0.)
    const text = await pollUntil(
      async () => {
        const t = await scrape(url);
        return sample(t, "devchain_upgrade_plan_height") === Number(height) ? t : undefined;
      },
      { what: "the plan's height in the app metrics" },
    );
    const until = sample(text, "devchain_upgrade_blocks_until") ?? 0;
    const appHeight = sample(text, "devchain_block_height") ?? 0;
    assert.ok(until > 0 && until <= 2000, `blocks until: ${until}`);
    assert.ok(Math.abs(until - (Number(height) - appHeight)) <= 2, `${until} vs ${Number(height)} - ${appHeight}`);
    assert.equal(sample(text, "devchain_upgrade_plan_info", { name: "v2" }), 1);
    // The ready fraction is Query/UpgradeReadiness' own: the dev chain's one validator has no release of v2 staged,
    // so it does not signal the plan and the fraction is 0 (an absent gauge would read undefined here).
    const readiness = (await (await fetch(`${running.endpoints.rest}/chain/upgrade/v1beta1/readiness`)).json()) as {
      plan?: { name?: string };
      ready_fraction?: string;
    };
    assert.equal(readiness.plan?.name, "v2");
    assert.equal(sample(text, "devchain_upgrade_ready_fraction"), Number(readiness.ready_fraction));
    assert.equal(sample(text, "devchain_upgrade_ready_fraction"), 0);
  });
});
