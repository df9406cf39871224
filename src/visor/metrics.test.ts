// chainvisor's metrics (DAEMON_METRICS_ADDR): the real chainvisor CLI as a child process over fake nodes (shell
// scripts), scraped over real HTTP while the first release runs and after it has switched to the next one; a
// malformed address is one line naming the variable, and with the variable unset nothing listens.
import assert from "node:assert/strict";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, it } from "node:test";
import {
  createTestHome,
  currentPlanRoute,
  runVisor,
  startTestServer,
  startVisor,
  type TestHome,
  writeFakeNode,
  writesPlan,
} from "../../test/support/visor/fixtures.ts";
import { loadConfig } from "./config.ts";

let home: TestHome;
beforeEach(async () => {
  home = await createTestHome();
});
afterEach(() => home.cleanup());

// A node that runs until `$DAEMON_HOME/<file>` appears (bounded, so nothing outlives a failed test).
const waitsFor = (file: string) =>
  `i=0; while [ ! -f "$DAEMON_HOME/${file}" ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i+1)); done`;

async function metricsText(url: string): Promise<string> {
  const response = await fetch(url);
  assert.equal(response.status, 200);
  return response.text();
}

/** The value of the sample `line` starts with (name and labels as printed), or undefined. */
function value(text: string, series: string): number | undefined {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

async function poll<T>(what: string, read: () => Promise<T | undefined>): Promise<T> {
  for (let i = 0; i < 600; i++) {
    const found = await read().catch(() => undefined);
    if (found !== undefined) return found;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe("chainvisor metrics", () => {
  it("DAEMON_METRICS_ADDR is parsed like prometheus_listen_addr; unset means off; a bad one is one line", async () => {
    await mkdir(home.path("chainvisor"), { recursive: true });
    assert.equal(loadConfig(home.env()).metricsAddr, undefined);
    assert.deepEqual(loadConfig(home.env({ DAEMON_METRICS_ADDR: ":26661" })).metricsAddr, {
      host: "0.0.0.0",
      port: 26661,
    });
    assert.deepEqual(loadConfig(home.env({ DAEMON_METRICS_ADDR: "127.0.0.1:0" })).metricsAddr, {
      host: "127.0.0.1",
      port: 0,
    });
    const result = await runVisor(["run", "start"], home.env({ DAEMON_METRICS_ADDR: "localhost" }));
    assert.equal(result.code, 1);
    assert.match(result.stderr, /invalid: DAEMON_METRICS_ADDR: expected "<host>:<port>" or ":<port>".*got "localhost"/);
    assert.doesNotMatch(result.stderr, /\n\s+at /);
  });

  it("serves its state, node starts and switches on GET /metrics through an upgrade", async () => {
    await writeFakeNode(home.path("chainvisor", "genesis", "bin", "chaind"), {
      label: "genesis",
      body: `${waitsFor("halt")}\n${writesPlan({ name: "v2", height: 40 })}\nexit 2`,
    });
    await writeFakeNode(home.path("chainvisor", "upgrades", "v2", "bin", "chaind"), {
      label: "v2",
      body: `${waitsFor("stop")}\nexit 0`,
    });
    const visor = startVisor(["run", "start"], home.env({ DAEMON_METRICS_ADDR: "127.0.0.1:0" }), 60_000);
    await visor.waitForLog(/serving metrics on http:\/\/127\.0\.0\.1:\d+\/metrics/);
    const url = /serving metrics on (\S+)/.exec(visor.stderr())?.[1] as string;

    const before = await poll("the first node start in the metrics", async () => {
      const text = await metricsText(url);
      return value(text, "chainvisor_node_starts_total") === 1 ? text : undefined;
    });
    assert.match(before, /^# TYPE chainvisor_state gauge$/m);
    assert.equal(value(before, 'chainvisor_state{state="watching"}'), 1);
    assert.equal(value(before, 'chainvisor_state{state="switching"}'), 0);
    assert.equal(value(before, 'chainvisor_switches_total{result="ok"}'), 0);
    assert.equal(value(before, "chainvisor_plan_height"), 0);
    const notFound = await fetch(url.replace(/\/metrics$/, "/"));
    assert.equal(notFound.status, 404);
    await notFound.arrayBuffer();

    await writeFile(join(home.home, "halt"), "");
    const after = await poll("the switch in the metrics", async () => {
      const text = await metricsText(url);
      return value(text, "chainvisor_node_starts_total") === 2 ? text : undefined;
    });
    assert.equal(value(after, 'chainvisor_switches_total{result="ok"}'), 1);
    assert.equal(value(after, 'chainvisor_switches_total{result="failed"}'), 0);
    assert.equal(value(after, 'chainvisor_state{state="watching"}'), 1);
    assert.equal(value(after, "chainvisor_plan_height"), 0);

    await writeFile(join(home.home, "stop"), "");
    const result = await visor.done;
    assert.equal(result.code, 0, result.stderr);
  });

  it("with downloads off, says whether the scheduled plan's release is in place: 0, then 1 once add-upgrade put it", async () => {
    const server = await startTestServer();
    try {
      server.routes.set("/chain/upgrade/v1beta1/current_plan", () =>
        currentPlanRoute({ name: "v2", height: 500 }, 100),
      );
      await writeFakeNode(home.path("chainvisor", "genesis", "bin", "chaind"), {
        label: "genesis",
        body: `${waitsFor("stop")}\nexit 0`,
      });
      const env = home.env({
        DAEMON_METRICS_ADDR: "127.0.0.1:0",
        CHAINVISOR_API_URL: server.url,
        CHAINVISOR_PLAN_POLL_INTERVAL: "50ms",
      });
      const visor = startVisor(["run", "start"], env, 60_000);
      await visor.waitForLog(/serving metrics on http:\/\/127\.0\.0\.1:\d+\/metrics/);
      const url = /serving metrics on (\S+)/.exec(visor.stderr())?.[1] as string;
      const seen = await poll("the plan in the metrics", async () => {
        const text = await metricsText(url);
        return value(text, "chainvisor_plan_height") === 500 ? text : undefined;
      });
      assert.equal(value(seen, "chainvisor_plan_staged"), 0);
      const release = home.path("build", "chaind");
      await writeFakeNode(release, { label: "v2", body: "exit 0" });
      const added = await runVisor(["add-upgrade", "v2", release], home.env());
      assert.equal(added.code, 0, added.stderr);
      await poll("the staged release in the metrics", async () =>
        value(await metricsText(url), "chainvisor_plan_staged") === 1 ? true : undefined,
      );
      assert.ok(!server.requests.some((request) => !request.startsWith("/chain/upgrade/v1beta1/current_plan")));
      await writeFile(join(home.home, "stop"), "");
      const result = await visor.done;
      assert.equal(result.code, 0, result.stderr);
    } finally {
      await server.close();
    }
  });
});
