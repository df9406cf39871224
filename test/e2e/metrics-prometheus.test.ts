// Operators see their node (issue 34): a real Prometheus server (Debian's package, on a port picked at run time)
// scrapes a chain's node through its two endpoints — the embedded engine's consensus metrics (config.toml
// [instrumentation]) and the application's (app.toml [telemetry], REST /metrics?format=prometheus) — and the
// chainvisor running it (DAEMON_METRICS_ADDR), with the shipped scrape labels and alert rules. Everything is asked of
// Prometheus' HTTP API: the consensus height rising, the app's transaction counter after a bank send, the upgrade
// plan's height once governance schedules it (and 0 once the next release has applied it), and chainvisor's state
// through the upgrade (watching with the release staged, switching, watching again after one good switch).
//
// The releases are the source tree run as v1 and v2 (CHAIND_RELEASE) through two small launchers that chainvisor
// installs like any binary. Skipped, saying so, when Prometheus is not installed (.ci/install-tools installs it).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmod, copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { freeLoopbackPorts } from "../../scripts/free-ports.ts";
import { setTomlValues } from "../../src/config/toml-template.ts";
import { LEGACY, NOTES } from "./support/chain-checks.ts";
import { type ChainHome, chaind, setupChainHome, sourceChaind } from "./support/chain-home.ts";
import { latestHeight, sleep, waitForHeight } from "./support/node-api.ts";
import { type ManagedProcess, startProcess, stopAll, tail } from "./support/processes.ts";
import { PROJECT } from "./support/project-build.ts";
import { NODE } from "./support/releases.ts";
import { submitSoftwareUpgrade, txFlags, voteYes, waitForProposalStatus } from "./support/upgrade-flow.ts";
import { chainvisor, startChainvisor } from "./support/visor.ts";

const prometheusFound = spawnSync("prometheus", ["--version"], { encoding: "utf8" }).status === 0;
const SKIP = prometheusFound
  ? false
  : "prometheus is not installed: run .ci/install-tools (Debian's prometheus package)";
if (!prometheusFound) console.warn(`SKIPPING the Prometheus end-to-end test: ${SKIP}`);

const GOV_PERIOD = "6s";
const TIMEOUT_COMMIT = "400ms";
const TEST_TIMEOUT_MS = 900_000;
const WAIT_MS = 300_000;

let work: string;
let home: string;
let chain: ChainHome;
let visor: ManagedProcess;
let prometheus: ManagedProcess;
let prometheusUrl: string;

/** A launcher that runs this tree's chaind as `release`: what chainvisor installs and starts. */
async function launcher(release: string): Promise<string> {
  const path = join(work, `chaind-${release}`);
  const entry = join(PROJECT, "chain", "cmd", "chaind.mjs");
  await writeFile(path, `#!/bin/sh\nCHAIND_RELEASE=${release} exec "${NODE}" "${entry}" "$@"\n`);
  await chmod(path, 0o755);
  return path;
}

async function setToml(file: string, values: Record<string, string | number | boolean>): Promise<void> {
  await writeFile(file, setTomlValues(await readFile(file, "utf8"), values));
}

/** One instant query; the samples as labels and number. */
async function query(expr: string): Promise<{ labels: Record<string, string>; value: number }[]> {
  const response = await fetch(`${prometheusUrl}/api/v1/query?query=${encodeURIComponent(expr)}`);
  const body = (await response.json()) as {
    status: string;
    error?: string;
    data?: { result: { metric: Record<string, string>; value: [number, string] }[] };
  };
  if (body.status !== "success") throw new Error(`query ${expr}: ${body.error}`);
  return (body.data?.result ?? []).map((r) => ({ labels: r.metric, value: Number(r.value[1]) }));
}

/** Asks Prometheus `expr` until `accept` takes one of its answers; fails with the last answer after WAIT_MS. */
async function waitForQuery(
  expr: string,
  accept: (samples: { labels: Record<string, string>; value: number }[]) => boolean,
  what: string,
): Promise<{ labels: Record<string, string>; value: number }[]> {
  const deadline = Date.now() + WAIT_MS;
  let last: unknown;
  while (Date.now() < deadline) {
    const samples = await query(expr).catch((error: unknown) => {
      last = error;
      return undefined;
    });
    if (samples !== undefined) {
      last = samples;
      if (accept(samples)) return samples;
    }
    if (prometheus.hasExited()) throw new Error(`prometheus exited:\n${tail(prometheus.output())}`);
    if (visor.hasExited()) throw new Error(`chainvisor exited:\n${tail(visor.output())}`);
    await sleep(250);
  }
  throw new Error(`timed out waiting for ${what} (${expr}); last answer: ${JSON.stringify(last)}`);
}

const single = (value: (v: number) => boolean) => (samples: { value: number }[]) =>
  samples.length === 1 && value((samples[0] as { value: number }).value);

before(
  async () => {
    if (!prometheusFound) return;
    work = await mkdtemp(join(tmpdir(), "chaind-metrics-e2e-"));
    home = join(work, "home");
    await mkdir(home, { recursive: true });
    await chainvisor(home, ["init", await launcher("v1")]);
    await chainvisor(home, ["add-upgrade", "v2", await launcher("v2")]);
    chain = await setupChainHome({
      home,
      chainId: "metrics-e2e",
      binary: sourceChaind("v1"),
      govPeriod: GOV_PERIOD,
      timeoutCommit: TIMEOUT_COMMIT,
      notes: NOTES,
      legacy: LEGACY,
    });
    const [consensusPort, visorPort, prometheusPort] = await freeLoopbackPorts(3);
    await setToml(join(home, "config", "config.toml"), {
      "instrumentation.prometheus": true,
      "instrumentation.prometheus_listen_addr": `127.0.0.1:${consensusPort}`,
    });
    await setToml(join(home, "config", "app.toml"), { "telemetry.enabled": true });

    // The shipped alert rules load beside a scrape setup like deploy/prometheus/prometheus.yml, every second.
    const promDir = join(work, "prometheus");
    await mkdir(promDir, { recursive: true });
    await copyFile(join(PROJECT, "deploy", "prometheus", "alerts.yml"), join(promDir, "alerts.yml"));
    const apiHostPort = chain.apiUrl.replace(/^http:\/\//, "");
    await writeFile(
      join(promDir, "prometheus.yml"),
      [
        "global: { scrape_interval: 1s, evaluation_interval: 1s }",
        "rule_files: [alerts.yml]",
        "scrape_configs:",
        "  - job_name: chaind-consensus",
        `    static_configs: [{ targets: ["127.0.0.1:${consensusPort}"], labels: { node: val1 } }]`,
        "  - job_name: chaind-app",
        "    params: { format: [prometheus] }",
        `    static_configs: [{ targets: ["${apiHostPort}"], labels: { node: val1 } }]`,
        "  - job_name: chainvisor",
        `    static_configs: [{ targets: ["127.0.0.1:${visorPort}"], labels: { node: val1 } }]`,
        "",
      ].join("\n"),
    );
    prometheusUrl = `http://127.0.0.1:${prometheusPort}`;
    prometheus = startProcess(
      "prometheus",
      "prometheus",
      [
        `--config.file=${join(promDir, "prometheus.yml")}`,
        `--storage.tsdb.path=${join(promDir, "data")}`,
        `--web.listen-address=127.0.0.1:${prometheusPort}`,
      ],
      { cwd: promDir },
    );
    visor = startChainvisor(home, {
      DAEMON_METRICS_ADDR: `127.0.0.1:${visorPort}`,
      DAEMON_ALLOW_DOWNLOAD_BINARIES: "true",
      DAEMON_POLL_INTERVAL: "100ms",
      CHAINVISOR_PLAN_POLL_INTERVAL: "1s",
      // Long enough for a 1s scrape to see chainvisor switching.
      DAEMON_RESTART_DELAY: "3s",
      UNSAFE_SKIP_BACKUP: "true",
    });
    await waitForHeight(chain.rpcUrl, 2, WAIT_MS);
  },
  { timeout: TEST_TIMEOUT_MS },
);

after(async () => {
  await stopAll();
  if (work !== undefined) await rm(work, { recursive: true, force: true });
});

test("Prometheus scrapes the node's two endpoints and chainvisor, through a bank send and an upgrade", {
  skip: SKIP,
  timeout: TEST_TIMEOUT_MS,
}, async (t) => {
  await waitForQuery('up{node="val1"} == 1', (s) => s.length === 3, "all three targets up");

  const first = await waitForQuery(
    "cometbft_consensus_height",
    single((v) => v >= 2),
    "a consensus height",
  );
  const start = (first[0] as { value: number }).value;
  assert.equal(first[0]?.labels.chain_id, "metrics-e2e");
  assert.equal(first[0]?.labels.job, "chaind-consensus");
  await waitForQuery(
    "cometbft_consensus_height",
    single((v) => v > start),
    "the consensus height rising",
  );

  // A bank send: the app's transaction counter (success code, committed) counts it.
  const sent = await chaind(sourceChaind("v1"), [
    "tx",
    "bank",
    "send",
    chain.validator.address,
    chain.alice.address,
    "7stake",
    ...txFlags(chain),
  ]);
  assert.equal((JSON.parse(sent.stdout) as { code?: number }).code ?? 0, 0, sent.stdout);
  await waitForQuery(
    'chaind_tx_total{phase="finalize_block",code="0"}',
    single((v) => v >= 1),
    "the send in chaind_tx_total",
  );
  await waitForQuery(
    "chaind_upgrade_plan_height",
    single((v) => v === 0),
    "no plan yet",
  );
  await waitForQuery(
    'chainvisor_state{state="watching"}',
    single((v) => v === 1),
    "chainvisor watching",
  );

  // Governance schedules v2; the plan's height shows, and chainvisor reports the release in place.
  const from = (await latestHeight(chain.rpcUrl)) ?? 0n;
  const height = from + 60n; // 24 s at the fastest pace: the proposal passes in about 10
  const proposal = await submitSoftwareUpgrade(sourceChaind("v1"), chain, { name: "v2", height, info: "" });
  await voteYes(sourceChaind("v1"), chain, proposal.id);
  await waitForProposalStatus(chain, proposal.id, "PROPOSAL_STATUS_PASSED", WAIT_MS);
  await waitForQuery(
    "chaind_upgrade_plan_height",
    single((v) => v === Number(height)),
    "the plan's height",
  );
  const until = await query("chaind_upgrade_blocks_until");
  assert.ok((until[0]?.value ?? 0) > 0 && (until[0]?.value ?? 0) <= 60, JSON.stringify(until));
  await waitForQuery(
    'chaind_upgrade_plan_info{name="v2"}',
    single((v) => v === 1),
    "the plan's name",
  );
  await waitForQuery(
    "chainvisor_plan_staged",
    single((v) => v === 1),
    "the release staged",
  );
  assert.equal((await query("chainvisor_plan_height"))[0]?.value, Number(height));

  // The halt at H, the switch (DAEMON_RESTART_DELAY holds it for 3 s), v2 applying the upgrade.
  await waitForQuery(
    'chainvisor_state{state="switching"}',
    single((v) => v === 1),
    "chainvisor switching",
  );
  await waitForQuery(
    'chainvisor_switches_total{result="ok"}',
    single((v) => v === 1),
    "one good switch",
  );
  await waitForQuery(
    'chainvisor_state{state="watching"}',
    single((v) => v === 1),
    "chainvisor watching again",
  );
  assert.equal((await query("chainvisor_node_starts_total"))[0]?.value, 2);
  assert.equal((await query('chainvisor_switches_total{result="failed"}'))[0]?.value, 0);
  await waitForQuery(
    "chaind_upgrade_applied_total",
    single((v) => v === 1),
    "the upgrade applied by v2",
  );
  await waitForQuery(
    "chaind_upgrade_plan_height",
    single((v) => v === 0),
    "no plan after the upgrade",
  );
  await waitForQuery(
    "cometbft_consensus_height",
    single((v) => v > Number(height)),
    "blocks after the upgrade height",
  );
  const handler = await query("chaind_upgrade_last_handler_seconds");
  assert.equal(handler[0]?.labels.name, "v2");
  await waitForQuery(
    "chainvisor_last_switch_seconds",
    single((v) => v > 0),
    "the switch's duration",
  );
  const switchSeconds = (await query("chainvisor_last_switch_seconds"))[0]?.value;
  t.diagnostic(`halt to v2's first block: ${switchSeconds?.toFixed(1)} s; handler ${handler[0]?.value} s`);

  // The rules loaded and none of the node's alerts fire on a healthy chain after a good upgrade.
  const rules = (await (await fetch(`${prometheusUrl}/api/v1/rules`)).json()) as {
    data: { groups: { rules: { name: string; health: string }[] }[] };
  };
  const loaded = rules.data.groups.flatMap((g) => g.rules);
  assert.ok(loaded.length >= 10);
  assert.deepEqual(
    loaded.filter((r) => r.health !== "ok" && r.health !== "unknown"),
    [],
  );
  const firing = await query('ALERTS{alertstate="firing"}');
  assert.deepEqual(
    firing.map((s) => s.labels.alertname),
    [],
  );
});
