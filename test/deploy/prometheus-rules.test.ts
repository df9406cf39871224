// The shipped monitoring files (deploy/prometheus, deploy/grafana) checked with the real tools: `promtool check rules`
// and `promtool test rules` on the alert rules and their unit tests, `promtool check config` on the scrape setup, and
// every metric the rules and the dashboard name is one chaind, chainvisor or prom-client actually exports (so a
// renamed metric cannot silently leave an alert that never fires). Without promtool the promtool checks are skipped
// with a message saying so (.ci/install-tools installs it; CI always has it).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const PROMETHEUS_DIR = join(ROOT, "deploy", "prometheus");
const DASHBOARD = join(ROOT, "deploy", "grafana", "chaind-node.json");

const promtoolFound = spawnSync("promtool", ["--version"], { encoding: "utf8" }).status === 0;
const SKIP = promtoolFound ? false : "promtool is not installed: run .ci/install-tools (Debian's prometheus package)";
if (!promtoolFound) console.warn(`SKIPPING the promtool checks of deploy/prometheus: ${SKIP}`);

function promtool(...args: string[]): string {
  const result = spawnSync("promtool", args, { cwd: PROMETHEUS_DIR, encoding: "utf8" });
  assert.equal(result.status, 0, `promtool ${args.join(" ")} failed:\n${result.stdout}${result.stderr}`);
  return result.stdout + result.stderr;
}

// The metric names our code defines (the default namespace "cometbft" and service-name "chaind" substituted), plus
// prom-client's default process metrics and Prometheus' own `up`.
function exportedNames(): Set<string> {
  const names = new Set<string>(["up"]);
  const sources: [file: string, prefix: string][] = [
    ["src/engine/consensus-metrics.ts", "cometbft"],
    ["src/node/app-telemetry.ts", "chaind"],
    ["src/visor/metrics.ts", ""],
  ];
  for (const [file, prefix] of sources) {
    const text = readFileSync(join(ROOT, file), "utf8");
    for (const match of text.matchAll(/name: `\$\{(?:ns|p)\}_([a-z0-9_]+)`/g)) names.add(`${prefix}_${match[1]}`);
    for (const match of text.matchAll(/name: "(chainvisor_[a-z0-9_]+)"/g)) names.add(match[1] as string);
    for (const match of text.matchAll(/\(`\$\{ns\}_(mempool_[a-z_]+)`/g)) names.add(`cometbft_${match[1]}`);
  }
  for (const processMetric of [
    "process_cpu_seconds_total",
    "process_resident_memory_bytes",
    "nodejs_heap_size_used_bytes",
    "nodejs_eventloop_lag_p99_seconds",
    "nodejs_gc_duration_seconds",
  ]) {
    names.add(processMetric);
  }
  return names;
}

/** The metric names an expression reads (histogram suffixes folded into the histogram's name). */
function namesIn(expr: string, known: Set<string>): string[] {
  const found = expr.match(/\b(?:chaind|cometbft|chainvisor|process|nodejs)_[a-z0-9_]+|\bup\b/g) ?? [];
  return found.map((name) => {
    const base = name.replace(/_(bucket|sum|count)$/, "");
    return known.has(name) ? name : base;
  });
}

describe("deploy/prometheus and deploy/grafana", () => {
  test("promtool check rules: the alert rules are valid", { skip: SKIP }, () => {
    assert.match(promtool("check", "rules", "alerts.yml"), /SUCCESS: \d+ rules found/);
  });

  test("promtool test rules: every alert rule's unit tests pass", { skip: SKIP }, () => {
    assert.match(promtool("test", "rules", "alerts.test.yml"), /SUCCESS/);
  });

  test("promtool check config: the example scrape setup is valid", { skip: SKIP }, () => {
    assert.match(promtool("check", "config", "prometheus.yml"), /is valid prometheus config file syntax/);
  });

  test("every alert rule has a unit test", () => {
    const rules = [...readFileSync(join(PROMETHEUS_DIR, "alerts.yml"), "utf8").matchAll(/- alert: (\w+)/g)].map(
      (m) => m[1],
    );
    const tested = new Set(
      [...readFileSync(join(PROMETHEUS_DIR, "alerts.test.yml"), "utf8").matchAll(/alertname: (\w+)/g)].map((m) => m[1]),
    );
    assert.ok(rules.length >= 10);
    assert.deepEqual(
      rules.filter((rule) => !tested.has(rule)),
      [],
    );
  });

  test("the rules and the dashboard read only metrics that are exported", () => {
    const known = exportedNames();
    const alerts = readFileSync(join(PROMETHEUS_DIR, "alerts.yml"), "utf8");
    const exprs = [...alerts.matchAll(/expr: (\|\n(?:\s{10}.*\n)+|.*)/g)].map((m) => m[1] as string);
    const dashboard = JSON.parse(readFileSync(DASHBOARD, "utf8")) as {
      panels: { title: string; targets?: { expr: string }[] }[];
    };
    for (const panel of dashboard.panels) for (const target of panel.targets ?? []) exprs.push(target.expr);
    assert.ok(exprs.length > 20);
    const unknown = exprs.flatMap((expr) => namesIn(expr, known).filter((name) => !known.has(name)));
    assert.deepEqual([...new Set(unknown)], []);
  });
});
