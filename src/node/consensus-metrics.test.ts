// The embedded engine's consensus metrics (config.toml [instrumentation]), scraped over real HTTP from a node
// started in process on a dev home: CometBFT's names, types and labels, values that follow the chain, a listener
// that names its setting when the port is taken, and none at all in ABCI mode (CometBFT serves its own there).
import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { after, before, describe, test } from "node:test";
import { pino } from "pino";
import { fastDevHome, pollUntil, type tempDir } from "../../test/support/node/chaind.ts";
import { sample, scrape, sendFromAlice, waitForCommitted } from "../../test/support/node/metrics.ts";
import { homePaths } from "../config/home.ts";
import { setTomlValues } from "../config/toml-template.ts";
import type { DevHome } from "./dev-chain.ts";
import { loadNodeSettings } from "./node-settings.ts";
import { type RunningNode, startNode } from "./start-node.ts";

const PORTS = { rpcLaddr: "tcp://127.0.0.1:0", apiAddress: "tcp://127.0.0.1:0", grpcAddress: "127.0.0.1:0" };
const logger = pino({ level: "silent" });

let dir: Awaited<ReturnType<typeof tempDir>>;
let dev: DevHome;
let node: RunningNode | undefined;

async function setConfig(values: Record<string, string | number | boolean>): Promise<void> {
  const file = homePaths(dev.home).configToml;
  await writeFile(file, setTomlValues(await readFile(file, "utf8"), values));
}

before(async () => {
  ({ dir, dev } = await fastDevHome("chaind-consensus-metrics-", "100ms"));
});

after(async () => {
  await node?.stop();
  await dir?.remove();
});

describe("consensus metrics of the embedded engine", () => {
  test("are off by default: no listener", async () => {
    const settings = await loadNodeSettings(dev.home, PORTS);
    assert.equal(settings.nodeConfig.instrumentation.prometheus, false);
    assert.equal(settings.nodeConfig.instrumentation.prometheusListenAddr, ":26660");
    assert.equal(settings.nodeConfig.instrumentation.namespace, "cometbft");
  });

  test("a malformed prometheus_listen_addr or namespace stops the node before it starts, naming the key", async () => {
    await setConfig({ "instrumentation.prometheus_listen_addr": "tcp://localhost" });
    await assert.rejects(loadNodeSettings(dev.home, PORTS), /instrumentation\.prometheus_listen_addr: expected/);
    await setConfig({ "instrumentation.prometheus_listen_addr": "127.0.0.1:0", "instrumentation.namespace": "9x-y" });
    await assert.rejects(loadNodeSettings(dev.home, PORTS), /instrumentation\.namespace: expected/);
    await setConfig({ "instrumentation.namespace": "cometbft" });
  });

  test("a taken port is refused in one line naming the setting; in ABCI mode the port is left to CometBFT", async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      await setConfig({
        "instrumentation.prometheus": true,
        "instrumentation.prometheus_listen_addr": `127.0.0.1:${port}`,
        proxy_app: "tcp://127.0.0.1:0",
      });
      await assert.rejects(
        startNode({ home: dev.home, logger, overrides: PORTS }),
        (err: Error) =>
          err.name === "NodeStartError" &&
          /instrumentation\.prometheus_listen_addr/.test(err.message) &&
          !err.message.includes("\n"),
      );
      const abci = await startNode({ home: dev.home, logger, abci: true, overrides: PORTS });
      assert.equal(abci.endpoints.metrics, undefined);
      assert.equal((await abci.stop()).exitCode, 0);
    } finally {
      blocker.close();
    }
  });

  test("are served on /metrics with CometBFT's names, types and labels, and follow the chain", async () => {
    await setConfig({ "instrumentation.prometheus": true, "instrumentation.prometheus_listen_addr": "127.0.0.1:0" });
    node = await startNode({ home: dev.home, logger, overrides: PORTS });
    const url = node.endpoints.metrics;
    assert.match(url ?? "", /^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    const labels = { chain_id: dev.chainId };
    const first = await pollUntil(
      async () => {
        const text = await scrape(url as string);
        return (sample(text, "cometbft_consensus_height", labels) ?? 0) >= 2 ? text : undefined;
      },
      { what: "height 2 in the metrics" },
    );
    assert.match(first, /^# TYPE cometbft_consensus_height gauge$/m);
    assert.match(first, /^# TYPE cometbft_consensus_block_interval_seconds histogram$/m);
    assert.match(first, /^# TYPE cometbft_abci_connection_method_timing_seconds histogram$/m);
    assert.match(first, /^# TYPE cometbft_state_block_processing_time histogram$/m);
    assert.match(first, /^# TYPE cometbft_mempool_failed_txs counter$/m);
    assert.match(first, /^# TYPE cometbft_mempool_recheck_times counter$/m);
    assert.equal(sample(first, "cometbft_consensus_validators", labels), 1);
    assert.ok((sample(first, "cometbft_consensus_validators_power", labels) ?? 0) > 0);
    assert.ok((sample(first, "cometbft_consensus_latest_block_height", labels) ?? 0) >= 2);
    assert.equal(sample(first, "cometbft_mempool_size", labels), 0);
    // The series dashboards written for CometBFT read, as a single validator gives them.
    for (const name of [
      "cometbft_consensus_missing_validators_power",
      "cometbft_consensus_byzantine_validators",
      "cometbft_consensus_byzantine_validators_power",
      "cometbft_consensus_rounds",
      "cometbft_p2p_peers",
      "cometbft_mempool_rejected_txs",
      "cometbft_mempool_evicted_txs",
    ]) {
      assert.equal(sample(first, name, labels), 0, name);
    }
    const signer = /cometbft_consensus_validator_power\{[^}]*validator_address="([0-9A-F]{40})"/.exec(first)?.[1];
    assert.ok(signer !== undefined, "this node's validator address");
    const own = { ...labels, validator_address: signer };
    assert.equal(sample(first, "cometbft_consensus_validator_missed_blocks", own), 0);
    assert.ok(
      (sample(first, "cometbft_consensus_validator_last_signed_height", own) ?? 0) >=
        (sample(first, "cometbft_consensus_height", labels) ?? 1),
    );
    assert.ok(
      (sample(first, "cometbft_abci_connection_method_timing_seconds_count", {
        ...labels,
        method: "finalize_block",
        type: "sync",
      }) ?? 0) >= 2,
    );
    // The dev chain extends its votes (upgrade readiness) from height 1: with metrics on the node still asks the App.
    assert.ok(
      (sample(first, "cometbft_abci_connection_method_timing_seconds_count", {
        ...labels,
        method: "extend_vote",
        type: "sync",
      }) ?? 0) >= 1,
    );
    assert.ok((sample(first, "cometbft_consensus_block_interval_seconds_count", labels) ?? 0) >= 1);
    assert.match(first, /cometbft_abci_connection_method_timing_seconds_bucket\{[^}]*le="0\.0001"/);
    assert.match(first, /cometbft_state_block_processing_time_bucket\{[^}]*le="91"/);

    const hash = await sendFromAlice(node, dev, 5n);
    assert.match(hash, /^[0-9A-F]{64}$/);
    await waitForCommitted(node, hash);
    const later = await pollUntil(
      async () => {
        const text = await scrape(url as string);
        // Past the first scrape's total: the send's block (and any since) counted.
        const total = sample(text, "cometbft_consensus_total_txs", labels) ?? 0;
        return total > (sample(first, "cometbft_consensus_total_txs", labels) ?? 0) ? text : undefined;
      },
      { what: "the send counted in cometbft_consensus_total_txs" },
    );
    assert.ok(
      (sample(later, "cometbft_consensus_height", labels) ?? 0) >
        (sample(first, "cometbft_consensus_height", labels) ?? 0),
    );
    assert.ok(
      (sample(later, "cometbft_abci_connection_method_timing_seconds_count", {
        ...labels,
        method: "check_tx",
        type: "async",
      }) ?? 0) >= 1,
    );
    assert.ok((sample(later, "cometbft_consensus_block_size_bytes", labels) ?? 0) > 0);

    const missing = await fetch(url?.replace(/\/metrics$/, "/other") as string);
    assert.equal(missing.status, 404);
    await missing.arrayBuffer();
  });
});
