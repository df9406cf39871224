// DAEMON_SWITCH_AHEAD through the real chainvisor CLI as a child process, with fake nodes (shell scripts that answer
// `version --long --output json` like chaind) and a local HTTP server standing in for the node's REST API, whose
// height rises at each request: the restart ahead (backup, mark, in-place flag, current moved), the fall back when
// the new release does not start, the guard, and a staged release that does not carry the running one.
import assert from "node:assert/strict";
import { readlinkSync } from "node:fs";
import { readdir, readlink, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, afterEach, before, beforeEach, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import {
  createTestHome,
  type FakeNode,
  startTestServer,
  startVisor,
  type TestHome,
  type TestServer,
  type VisorProcess,
  writeFakeNode,
} from "../../test/support/visor/fixtures.ts";
import { loadConfig } from "./config.ts";
import { runNode } from "./run-loop.ts";
import { IN_PLACE_MARKER } from "./switch-ahead.ts";

// A node that runs until it is stopped (bounded, so nothing outlives a failed test).
const RUNS = "i=0; while [ $i -lt 400 ]; do sleep 0.05; i=$((i+1)); done; exit 0";
const versionAnswer = (release: string, version: string, line: [string, string][]) => {
  const json = JSON.stringify({
    name: "chaind",
    release,
    version,
    release_line: line.map(([r, v]) => ({ release: r, version: v })),
  });
  return `if [ "$1" = "version" ]; then printf '%s\\n' '${json}'; exit 0; fi`;
};
const V1_VERSION = versionAnswer("v1", "1.0.0", [["v1", "1.0.0"]]);
const V2_VERSION = versionAnswer("v2", "2.0.0", [
  ["v1", "1.0.0"],
  ["v2", "2.0.0"],
]);

let home: TestHome;
let server: TestServer;
let height = 0;
before(async () => {
  server = await startTestServer();
});
after(() => server.close());
beforeEach(async () => {
  home = await createTestHome();
  server.routes.clear();
  height = 100;
});
afterEach(() => home.cleanup());

/** The node's plan: `name` at `planHeight`, the node one block further at each request. */
function servePlan(name: string, planHeight: number) {
  server.routes.set("/chain/upgrade/v1beta1/current_plan", () => ({
    headers: { "content-type": "application/json", "x-chain-block-height": String(height++) },
    body: JSON.stringify({ plan: { name, height: String(planHeight), info: "" } }),
  }));
}

async function install(release: string, node: FakeNode) {
  const dir = release === "genesis" ? "genesis" : join("upgrades", release);
  await writeFakeNode(home.path("chainvisor", dir, "bin", "chaind"), node);
}
const starts = async () =>
  (await home.read("runs.log").catch(() => ""))
    .trim()
    .split("\n")
    .filter((line) => / start/.test(line));
/**
 * Waits until the nodes have recorded `count` starts (a start is logged by chainvisor before the node writes it),
 * failing with what `visor` logged if it ends first (its safety kill on a slow machine): never a wait without end.
 */
async function startsReach(count: number, visor: VisorProcess): Promise<void> {
  let ended = false;
  void visor.done.then(() => {
    ended = true;
  });
  while ((await starts()).length < count) {
    if (ended && (await starts()).length < count) {
      throw new Error(
        `chainvisor ended with ${(await starts()).length} of ${count} starts recorded:\n${visor.stderr()}`,
      );
    }
    await sleep(20);
  }
}
const current = () => readlink(home.path("chainvisor", "current"));
const exists = (...parts: string[]) =>
  stat(home.path(...parts)).then(
    () => true,
    () => false,
  );
const env = (extra: Record<string, string> = {}) =>
  home.env({
    CHAINVISOR_API_URL: server.url,
    CHAINVISOR_PLAN_POLL_INTERVAL: "50ms",
    DAEMON_SWITCH_AHEAD: "true",
    DAEMON_SWITCH_AHEAD_WINDOW: "100ms",
    ...extra,
  });

describe("chainvisor run with DAEMON_SWITCH_AHEAD", () => {
  it("restarts the node ahead on a staged release that carries the running one, in the in-place mode, after a backup", async () => {
    await install("genesis", { label: "genesis", body: `${V1_VERSION}\n${RUNS}` });
    await install("v2", { label: "v2", body: `${V2_VERSION}\n${RUNS}` });
    servePlan("v2", 100_000);
    const visor = startVisor(["run", "start", "--home", home.home], env());
    await visor.waitForLog(/switch ahead: v2 2\.0\.0 committed height \d+ in the in-place mode/);
    visor.child.kill("SIGTERM");
    await visor.done;
    assert.deepEqual(await starts(), [
      `genesis start --home ${home.home}`,
      `v2 start --in-place-upgrades --home ${home.home}`,
    ]);
    assert.equal(await current(), "upgrades/v2");
    assert.ok(await exists("chainvisor", "upgrades", "v2", IN_PLACE_MARKER));
    const backups = (await readdir(home.home)).filter((name) => name.startsWith("data-backup-"));
    assert.equal(backups.length, 1, "data/ was backed up before the restart");
    assert.match(visor.stderr(), /carries the running v1 1\.0\.0; restarting the node on it in the in-place mode in /);
    assert.doesNotMatch(visor.stderr(), /pre-upgrade/);
  });

  it("a chainvisor started again keeps the in-place flag for the release it switched to ahead", async () => {
    await install("genesis", { label: "genesis", body: `${V1_VERSION}\n${RUNS}` });
    await install("v2", { label: "v2", body: `${V2_VERSION}\n${RUNS}` });
    servePlan("v2", 100_000);
    // A safety kill later than the default 20 s: both runs are stopped by the test, and a busy machine is slow.
    const first = startVisor(["run", "start"], env({ UNSAFE_SKIP_BACKUP: "true" }), 60_000);
    await first.waitForLog(/committed height \d+ in the in-place mode/);
    first.child.kill("SIGTERM");
    await first.done;
    const second = startVisor(["run", "start"], env({ UNSAFE_SKIP_BACKUP: "true" }), 60_000);
    await second.waitForLog("running ");
    await startsReach(3, second);
    second.child.kill("SIGTERM");
    await second.done;
    assert.deepEqual(await starts(), ["genesis start", "v2 start --in-place-upgrades", "v2 start --in-place-upgrades"]);
    assert.match(first.stderr(), /UNSAFE_SKIP_BACKUP is set: no backup of the data directory/);
    assert.equal((await readdir(home.home)).filter((name) => name.startsWith("data-backup-")).length, 0);
  });

  it("falls back to the old release, and says so, when the new one exits instead of producing blocks", async () => {
    await install("genesis", { label: "genesis", body: `${V1_VERSION}\n${RUNS}` });
    await install("v2", { label: "v2", body: `${V2_VERSION}\necho "v2 cannot open its store" >&2; exit 3` });
    // The height rises only while genesis is current: once `current` points at v2, no node commits, so the node API
    // answers a height below the one v2 was started at (a height still rising then would pass v2's probation before
    // chainvisor sees it exit, on a slow machine).
    server.routes.set("/chain/upgrade/v1beta1/current_plan", () => ({
      headers: {
        "content-type": "application/json",
        "x-chain-block-height": String(readlinkSync(home.path("chainvisor", "current")) === "genesis" ? height++ : 1),
      },
      body: JSON.stringify({ plan: { name: "v2", height: "100000", info: "" } }),
    }));
    const visor = startVisor(["run", "start"], env({ UNSAFE_SKIP_BACKUP: "true" }));
    await visor.waitForLog(/falling back/);
    // Back on genesis, and it stays there: the plan is left to the halt path.
    await visor.waitForLog(/falling back[\s\S]*running \S*genesis\/bin\/chaind start/);
    await startsReach(3, visor);
    visor.child.kill("SIGTERM");
    await visor.done;
    assert.match(
      visor.stderr(),
      /switch ahead: the node on v2 2\.0\.0 exited \(exit status 3\); falling back to genesis \(v1 1\.0\.0\), the switch to v2 happens at the halt/,
    );
    assert.deepEqual(await starts(), ["genesis start", "v2 start --in-place-upgrades", "genesis start"]);
    assert.equal(await current(), "genesis");
    assert.equal(await exists("chainvisor", "upgrades", "v2", IN_PLACE_MARKER), false);
  });

  it("falls back when the new release commits no block within the bound (run loop in process, 1 s bound)", async () => {
    const stopWhen = (file: string) =>
      `i=0; while [ ! -f "$DAEMON_HOME/${file}" ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i+1)); done; exit 0`;
    await install("genesis", { label: "genesis", body: `${V1_VERSION}\n${stopWhen("stop-genesis")}` });
    await install("v2", { label: "v2", body: `${V2_VERSION}\n${stopWhen("stop-v2")}` });
    // The node's height rises until v2 runs, then answers a height below the one v2 started at.
    server.routes.set("/chain/upgrade/v1beta1/current_plan", () => ({
      headers: { "content-type": "application/json", "x-chain-block-height": String(v2Started ? 1 : height++) },
      body: JSON.stringify({ plan: { name: "v2", height: "100000", info: "" } }),
    }));
    let v2Started = false;
    const lines: string[] = [];
    const log = {
      info: (line: string) => {
        lines.push(line);
        if (line.includes("starting v2 2.0.0 in the in-place mode")) v2Started = true;
        if (line.includes("falling back")) void writeFile(home.path("stop-genesis"), "");
      },
      warn: (line: string) => lines.push(line),
      error: (line: string) => {
        lines.push(line);
        if (line.includes("falling back")) void writeFile(home.path("stop-genesis"), "");
      },
    };
    const config = loadConfig(env({ UNSAFE_SKIP_BACKUP: "true" }));
    // The fake nodes find their home in the environment they inherit from this process.
    process.env.DAEMON_HOME = home.home;
    let code: number;
    try {
      code = await runNode({ config, args: ["start"], log, switchAheadStartBoundMs: 1_000 });
    } finally {
      delete process.env.DAEMON_HOME;
    }
    assert.equal(code, 0, lines.join("\n"));
    assert.ok(
      lines.some((line) =>
        /the node on v2 2\.0\.0 committed no block within 1s \(it stayed at height 1\); falling back to genesis/.test(
          line,
        ),
      ),
      lines.join("\n"),
    );
    assert.deepEqual(await starts(), ["genesis start", "v2 start --in-place-upgrades", "genesis start"]);
    assert.equal(await current(), "genesis");
  });

  it("leaves the switch to the halt when the plan is within the guard or the release does not carry the running one", async () => {
    await install("genesis", { label: "genesis", body: `${V1_VERSION}\n${RUNS}` });
    await install("v2", { label: "v2", body: `${V2_VERSION}\n${RUNS}` });
    servePlan("v2", 110);
    const close = startVisor(["run", "start"], env({ DAEMON_SWITCH_AHEAD_GUARD: "50" }));
    await close.waitForLog(
      /within DAEMON_SWITCH_AHEAD_GUARD \(50\); not restarting ahead, the switch happens at the halt/,
    );
    await startsReach(1, close);
    close.child.kill("SIGTERM");
    await close.done;

    await install("v2", { label: "v2", body: `${versionAnswer("v2", "2.0.0", [["v2", "2.0.0"]])}\n${RUNS}` });
    servePlan("v2", 100_000);
    const foreign = startVisor(["run", "start"], env());
    await foreign.waitForLog(
      /does not carry the running release v1 1\.0\.0 \(its line: v2 2\.0\.0\); the switch happens at the halt/,
    );
    await startsReach(2, foreign);
    foreign.child.kill("SIGTERM");
    await foreign.done;
    assert.deepEqual(await starts(), ["genesis start", "genesis start"]);
    assert.equal(await current(), "genesis");
  });
});
