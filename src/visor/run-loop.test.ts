// The run loop end to end: the real chainvisor CLI as a child process, fake nodes as shell scripts, and a local
// HTTP server for downloads and for the node's REST API.
import assert from "node:assert/strict";
import { readdir, readlink, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, afterEach, before, beforeEach, describe, it } from "node:test";
import {
  createTestHome,
  currentPlanRoute,
  type FakeNode,
  fakeNodeScript,
  makeTarGz,
  makeZip,
  runVisor,
  sha256,
  startTestServer,
  startVisor,
  type TestHome,
  type TestServer,
  touches,
  writeFakeNode,
  writesPlan,
} from "../../test/support/visor/fixtures.ts";
import { skipHeights } from "./run-loop.ts";

// A node that runs until `$DAEMON_HOME/<file>` appears (bounded, so nothing outlives a failed test).
const waitsFor = (file: string) =>
  `i=0; while [ ! -f "$DAEMON_HOME/${file}" ] && [ $i -lt 300 ]; do sleep 0.05; i=$((i+1)); done`;

let home: TestHome;
let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(() => server.close());
beforeEach(async () => {
  home = await createTestHome();
  server.routes.clear();
  server.requests.length = 0;
});
afterEach(() => home.cleanup());

async function install(release: string, node: FakeNode) {
  const dir = release === "genesis" ? "genesis" : join("upgrades", release);
  await writeFakeNode(home.path("chainvisor", dir, "bin", "chaind"), node);
}
const runs = async () => (await home.read("runs.log").catch(() => "")).trim().split("\n").filter(Boolean);
const current = () => readlink(home.path("chainvisor", "current"));
const exists = (...parts: string[]) =>
  stat(home.path(...parts)).then(
    () => true,
    () => false,
  );
const count = (text: string, part: string) => text.split(part).length - 1;

describe("chainvisor run", () => {
  it("switches to a staged upgrade: backup, pre-upgrade, atomic link, restart with the same arguments", async () => {
    await install("genesis", { label: "genesis", body: `${writesPlan({ name: "v2", height: 130 })}\nexit 2` });
    await install("v2", { label: "v2", body: `${touches("v2-ran")}\nexit 0` });
    const result = await runVisor(["run", "start", "--home", home.home, "--", "--x"], home.env());
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(await runs(), [
      `genesis start --home ${home.home} -- --x`,
      "v2 pre-upgrade",
      `v2 start --home ${home.home} -- --x`,
    ]);
    assert.ok(await exists("v2-ran"));
    assert.equal(await current(), "upgrades/v2");
    assert.equal(
      await home.read("chainvisor", "upgrades", "v2", "upgrade-info.json"),
      '{"name":"v2","time":"0001-01-01T00:00:00Z","height":130}',
    );
    const backups = (await readdir(home.home)).filter((name) => name.startsWith("data-backup-"));
    assert.equal(backups.length, 1);
    assert.ok(await exists(backups[0], "upgrade-info.json"));
    assert.match(result.stderr, /^\S+Z chainvisor upgrade "v2" at height 130 detected/m);
    assert.equal(result.stdout, "");
  });

  it("goes through two upgrades in a row and ends with the last node's status", async () => {
    await install("genesis", { label: "genesis", body: `${writesPlan({ name: "v2", height: 10 })}\nexit 2` });
    await install("v2", { label: "v2", body: `${writesPlan({ name: "v3", height: 20 })}\nexit 2` });
    await install("v3", { label: "v3", body: "exit 5" });
    const result = await runVisor(["run", "start"], home.env({ UNSAFE_SKIP_BACKUP: "true" }));
    assert.equal(result.code, 5, result.stderr);
    assert.deepEqual(await runs(), ["genesis start", "v2 pre-upgrade", "v2 start", "v3 pre-upgrade", "v3 start"]);
    assert.equal(await current(), "upgrades/v3");
    assert.ok(!(await readdir(home.home)).some((name) => name.startsWith("data-backup-")));
  });

  it("lower-cases plan names for directories (add-upgrade MyUpgrade, plan MyUpgrade)", async () => {
    await install("genesis", { label: "genesis", body: `${writesPlan({ name: "MyUpgrade", height: 7 })}\nexit 2` });
    const source = await writeFakeNode(home.path("MyUpgrade-build"), { label: "mine", body: "exit 0" });
    const added = await runVisor(["add-upgrade", "MyUpgrade", source], home.env());
    assert.equal(added.code, 0, added.stderr);
    assert.ok(await exists("chainvisor", "upgrades", "myupgrade", "bin", "chaind"));
    const result = await runVisor(["run", "start"], home.env({ UNSAFE_SKIP_BACKUP: "true" }));
    assert.equal(result.code, 0, result.stderr);
    assert.equal(await current(), "upgrades/myupgrade");
    assert.deepEqual(await runs(), ["genesis start", "mine pre-upgrade", "mine start"]);
  });

  it("does not trigger twice when upgrade-info.json is rewritten with the same plan", async () => {
    await install("genesis", { label: "genesis", body: `${writesPlan({ name: "v2", height: 30 })}\nexit 2` });
    // The new release rewrites the same plan (a new modification time) while it runs, then exits on its own.
    await install("v2", {
      label: "v2",
      body: `sleep 0.1\n${writesPlan({ name: "v2", height: 30 })}\nsleep 0.2\n${writesPlan({ name: "v2", height: 30 })}\nexit 7`,
    });
    const result = await runVisor(["run", "start"], home.env({ UNSAFE_SKIP_BACKUP: "true" }));
    assert.equal(result.code, 7, result.stderr);
    assert.equal(count(result.stderr, "detected"), 1);
    assert.deepEqual(await runs(), ["genesis start", "v2 pre-upgrade", "v2 start"]);
  });

  it("ends with the node's own status when it exits for any other reason", async () => {
    await install("genesis", { label: "genesis", body: "exit 3" });
    const crashed = await runVisor(["run", "start"], home.env());
    assert.equal(crashed.code, 3);
    assert.match(crashed.stderr, /the node exited \(exit status 3\) and no upgrade is due/);
    await install("genesis", { label: "genesis", body: "kill -KILL $$" });
    const killed = await runVisor(["run", "start"], home.env());
    assert.equal(killed.code, 137);
    assert.match(killed.stderr, /the node exited \(signal SIGKILL\)/);
    assert.equal(await current(), "genesis");
  });

  it("aborts on pre-upgrade exit 30 and leaves current on the old release", async () => {
    await install("genesis", { label: "genesis", body: `${writesPlan({ name: "v2", height: 30 })}\nexit 2` });
    await install("v2", { label: "v2", preUpgrade: "exit 30", body: "exit 0" });
    const result = await runVisor(
      ["run", "start"],
      home.env({ UNSAFE_SKIP_BACKUP: "true", DAEMON_PREUPGRADE_MAX_RETRIES: "5" }),
    );
    assert.equal(result.code, 1);
    assert.match(result.stderr, /upgrade "v2" at height 30 failed: pre-upgrade command failed : exit status 30/);
    assert.deepEqual(await runs(), ["genesis start", "v2 pre-upgrade"]);
    assert.equal(await current(), "genesis");
  });

  it("retries pre-upgrade on exit 31 up to DAEMON_PREUPGRADE_MAX_RETRIES", async () => {
    const failTwice = [
      'n=$(cat "$DAEMON_HOME/attempts" 2>/dev/null || echo 0); n=$((n+1)); echo $n > "$DAEMON_HOME/attempts"',
      "if [ $n -lt 3 ]; then exit 31; fi",
      "exit 0",
    ].join("\n");
    await install("genesis", { label: "genesis", body: `${writesPlan({ name: "v2", height: 30 })}\nexit 2` });
    await install("v2", { label: "v2", preUpgrade: failTwice, body: "exit 0" });
    const tooFew = await runVisor(
      ["run", "start"],
      home.env({ UNSAFE_SKIP_BACKUP: "true", DAEMON_PREUPGRADE_MAX_RETRIES: "1" }),
    );
    assert.equal(tooFew.code, 1);
    assert.match(tooFew.stderr, /pre-upgrade command failed\. reached max attempt of retries - 1/);
    assert.equal(await current(), "genesis");

    await writeFile(home.path("attempts"), "0");
    await writeFile(home.path("runs.log"), "");
    const enough = await runVisor(
      ["run", "start"],
      home.env({ UNSAFE_SKIP_BACKUP: "true", DAEMON_PREUPGRADE_MAX_RETRIES: "2" }),
    );
    assert.equal(enough.code, 0, enough.stderr);
    assert.deepEqual(await runs(), ["genesis start", "v2 pre-upgrade", "v2 pre-upgrade", "v2 pre-upgrade", "v2 start"]);
    assert.equal(count(enough.stderr, "pre-upgrade command failed. retrying"), 2);
    assert.equal(await current(), "upgrades/v2");
  });

  it("kills a node that ignores SIGTERM once DAEMON_SHUTDOWN_GRACE has passed", async () => {
    await install("genesis", {
      label: "genesis",
      body: `trap '' TERM\n${writesPlan({ name: "v2", height: 30 })}\n${waitsFor("never")}\nexit 9`,
    });
    await install("v2", { label: "v2", body: "exit 0" });
    const result = await runVisor(
      ["run", "start"],
      home.env({ UNSAFE_SKIP_BACKUP: "true", DAEMON_SHUTDOWN_GRACE: "200ms" }),
    );
    assert.equal(result.code, 0, result.stderr);
    assert.match(
      result.stderr,
      /sent SIGTERM to the node, waiting up to 200ms[\s\S]*DAEMON_SHUTDOWN_GRACE exceeded, killing the node/,
    );
    assert.equal(await current(), "upgrades/v2");
  });

  it("exits 0 after the upgrade when DAEMON_RESTART_AFTER_UPGRADE is false", async () => {
    await install("genesis", { label: "genesis", body: `${writesPlan({ name: "v2", height: 30 })}\nexit 2` });
    await install("v2", { label: "v2", body: "exit 4" });
    const result = await runVisor(
      ["run", "start"],
      home.env({ UNSAFE_SKIP_BACKUP: "true", DAEMON_RESTART_AFTER_UPGRADE: "false" }),
    );
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stderr, /DAEMON_RESTART_AFTER_UPGRADE is off/);
    assert.deepEqual(await runs(), ["genesis start", "v2 pre-upgrade"]);
    assert.equal(await current(), "upgrades/v2");
  });

  it("refuses to switch without the binary when downloads are disabled", async () => {
    await install("genesis", { label: "genesis", body: `${writesPlan({ name: "v2", height: 30 })}\nexit 2` });
    const result = await runVisor(["run", "start"], home.env({ UNSAFE_SKIP_BACKUP: "true" }));
    assert.equal(result.code, 1);
    assert.match(
      result.stderr,
      /binary not present, downloading disabled: stat .*upgrades\/v2\/bin\/chaind: no such file or directory/,
    );
    assert.match(result.stderr, /chainvisor add-upgrade v2 <path-to-chaind>/);
    assert.equal(await current(), "genesis");
  });

  it("does not switch at a height the node was told to skip", async () => {
    await install("genesis", { label: "genesis", body: `${writesPlan({ name: "v2", height: 30 })}\nexit 4` });
    await install("v2", { label: "v2", body: "exit 0" });
    const result = await runVisor(["run", "start", "--unsafe-skip-upgrades", "20", "30"], home.env());
    assert.equal(result.code, 4, result.stderr);
    assert.match(result.stderr, /upgrade "v2" at height 30 is skipped/);
    assert.equal(await current(), "genesis");
    assert.deepEqual(
      [...skipHeights(["--unsafe-skip-upgrades", "10", "x", "20", "--abc", "34", "--unsafe-skip-upgrades=40,50"])],
      [10n, 20n, 40n, 50n],
    );
  });

  it("passes SIGTERM to the node and exits with the node's status", async () => {
    await install("genesis", { label: "genesis", body: `${waitsFor("never")}\nexit 9` });
    const visor = startVisor(["run", "start"], home.env());
    await visor.waitForLog("running ");
    while ((await runs()).length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    visor.child.kill("SIGTERM");
    const result = await visor.done;
    assert.equal(result.code, 143, result.stderr);
    assert.match(result.stderr, /received SIGTERM; passing it to the node/);
  });

  describe("downloads", () => {
    const v2 = fakeNodeScript({ label: "v2", body: `${touches("v2-ran")}\nexit 0` });
    const cases: [string, () => Promise<Uint8Array | string>][] = [
      ["a plain file", async () => v2],
      ["a tar.gz with bin/chaind", () => makeTarGz({ "bin/chaind": v2, "lib/x": "x" })],
      ["a zip with chaind", () => makeZip({ chaind: v2 })],
    ];
    for (const [what, make] of cases) {
      it(`downloads ${what}, verifies it, switches and restarts`, async () => {
        const body = await make();
        server.routes.set("/release", { body });
        const info = JSON.stringify({
          binaries: {
            "linux/amd64": `${server.url}/release?checksum=${sha256(body)}`,
            any: `${server.url}/release?checksum=${sha256(body)}`,
          },
        });
        await install("genesis", { label: "genesis", body: `${writesPlan({ name: "v2", height: 30, info })}\nexit 2` });
        const result = await runVisor(
          ["run", "start"],
          home.env({ UNSAFE_SKIP_BACKUP: "true", DAEMON_ALLOW_DOWNLOAD_BINARIES: "true" }),
        );
        assert.equal(result.code, 0, result.stderr);
        assert.ok(await exists("v2-ran"));
        assert.equal(await current(), "upgrades/v2");
        assert.match(result.stderr, /checksum verified/);
      });
    }

    it("cancels a download on SIGTERM, leaving nothing behind", async () => {
      server.routes.set("/slow", { body: "#!/bin/sh\n", hang: true });
      const info = JSON.stringify({ binaries: { any: `${server.url}/slow?checksum=${sha256(v2)}` } });
      await install("genesis", { label: "genesis", body: `${writesPlan({ name: "v2", height: 30, info })}\nexit 2` });
      const visor = startVisor(
        ["run", "start"],
        home.env({ UNSAFE_SKIP_BACKUP: "true", DAEMON_ALLOW_DOWNLOAD_BINARIES: "true" }),
      );
      await visor.waitForLog("downloading http");
      while (server.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
      visor.child.kill("SIGTERM");
      const result = await visor.done;
      assert.equal(result.code, 143, result.stderr);
      assert.match(result.stderr, /download of .* cancelled/);
      assert.deepEqual(await readdir(home.path("chainvisor", "upgrades")), []);
      assert.equal(await current(), "genesis");
    });

    it("fails on a bad checksum leaving nothing behind; chainvisor run again with a good source succeeds", async () => {
      server.routes.set("/release", { body: "tampered" });
      const info = JSON.stringify({ binaries: { any: `${server.url}/release?checksum=${sha256(v2)}` } });
      await install("genesis", { label: "genesis", body: `${writesPlan({ name: "v2", height: 30, info })}\nexit 2` });
      const env = home.env({ UNSAFE_SKIP_BACKUP: "true", DAEMON_ALLOW_DOWNLOAD_BINARIES: "true" });
      const failed = await runVisor(["run", "start"], env);
      assert.equal(failed.code, 1);
      assert.match(
        failed.stderr,
        /cannot download binary\. Checksums did not match for .*\/release\?checksum=sha256:[0-9a-f]{64}\n {2}Expected: sha256:[0-9a-f]{64}\n {2}Got: sha256:[0-9a-f]{64}/,
      );
      assert.deepEqual(await readdir(home.path("chainvisor", "upgrades")), []);
      assert.equal(await current(), "genesis");

      server.routes.set("/release", { body: v2 });
      const retried = await runVisor(["run", "start"], env);
      assert.equal(retried.code, 0, retried.stderr);
      assert.equal(await current(), "upgrades/v2");
      assert.deepEqual(await runs(), ["genesis start", "genesis start", "v2 pre-upgrade", "v2 start"]);
    });
  });

  describe("with the node's REST API", () => {
    it("waits until the node has committed H-1 before acting on a plan written while it runs", async () => {
      let height = 100;
      server.routes.set("/chain/upgrade/v1beta1/current_plan", () => currentPlanRoute(null, height));
      await install("genesis", {
        label: "genesis",
        body: `${writesPlan({ name: "v2", height: 130 })}\n${waitsFor("never")}\nexit 9`,
      });
      await install("v2", { label: "v2", body: "exit 0" });
      const visor = startVisor(
        ["run", "start"],
        home.env({ UNSAFE_SKIP_BACKUP: "true", CHAINVISOR_API_URL: server.url }),
      );
      await visor.waitForLog(
        "is in upgrade-info.json but the node is still running and it is at height 100; waiting until it has committed height 129",
      );
      assert.equal(await current(), "genesis");
      height = 129;
      const result = await visor.done;
      assert.equal(result.code, 0, result.stderr);
      assert.equal(await current(), "upgrades/v2");
      assert.ok(result.stderr.indexOf("waiting until") < result.stderr.indexOf("detected"));
    });

    it("stages the scheduled plan's release ahead of the halt and uses it then", async () => {
      const v2 = fakeNodeScript({ label: "v2", body: `${touches("v2-ran")}\nexit 0` });
      const archive = await makeTarGz({ "bin/chaind": v2 });
      server.routes.set("/v2.tar.gz", { body: archive });
      const info = JSON.stringify({ binaries: { any: `${server.url}/v2.tar.gz?checksum=${sha256(archive)}` } });
      server.routes.set(
        "/chain/upgrade/v1beta1/current_plan",
        currentPlanRoute({ name: "V2", height: 130, info }, 120),
      );
      await install("genesis", {
        label: "genesis",
        body: `${waitsFor("halt-now")}\n${writesPlan({ name: "V2", height: 130, info })}\nexit 2`,
      });
      const visor = startVisor(
        ["run", "start"],
        home.env({
          UNSAFE_SKIP_BACKUP: "true",
          DAEMON_ALLOW_DOWNLOAD_BINARIES: "true",
          CHAINVISOR_API_URL: server.url,
          CHAINVISOR_PLAN_POLL_INTERVAL: "50ms",
        }),
      );
      await visor.waitForLog("is staged and verified");
      assert.ok(await exists("chainvisor", "upgrades", "v2", "bin", "chaind"));
      // The network's readiness, from the node's readiness query, logged each time it changes.
      const readiness = (ready: number) => ({
        body: JSON.stringify({
          plan: { name: "V2", height: "130" },
          ready_fraction: `0.${String(ready * 25).padStart(2, "0")}0000000000000000`,
          validators: [0, 1, 2, 3].map((i) => ({ ready: i < ready })),
        }),
        headers: { "content-type": "application/json" },
      });
      server.routes.set("/chain/upgrade/v1beta1/readiness", readiness(3));
      await visor.waitForLog("staged V2; network 3/4 ready (0.750000000000000000 of voting power)");
      server.routes.set("/chain/upgrade/v1beta1/readiness", readiness(1));
      await visor.waitForLog("staged V2; network 1/4 ready (0.250000000000000000 of voting power)");
      assert.equal(await current(), "genesis");
      await writeFile(home.path("halt-now"), "");
      const result = await visor.done;
      assert.equal(result.code, 0, result.stderr);
      assert.equal(server.requests.filter((path) => path.startsWith("/v2.tar.gz")).length, 1);
      assert.match(result.stderr, /using the staged release/);
      assert.ok(await exists("v2-ran"));
      assert.equal(await current(), "upgrades/v2");
    });

    it("abandons a release being staged ahead on SIGTERM, leaving nothing behind", async () => {
      server.routes.set("/slow.tar.gz", { body: "#!/bin/sh\n", hang: true });
      const info = JSON.stringify({ binaries: { any: `${server.url}/slow.tar.gz?checksum=${sha256("x")}` } });
      server.routes.set(
        "/chain/upgrade/v1beta1/current_plan",
        currentPlanRoute({ name: "v2", height: 130, info }, 120),
      );
      await install("genesis", { label: "genesis", body: `${waitsFor("never")}\nexit 6` });
      const visor = startVisor(
        ["run", "start"],
        home.env({
          DAEMON_ALLOW_DOWNLOAD_BINARIES: "true",
          CHAINVISOR_API_URL: server.url,
          CHAINVISOR_PLAN_POLL_INTERVAL: "50ms",
        }),
      );
      while (!server.requests.some((path) => path.startsWith("/slow.tar.gz"))) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      visor.child.kill("SIGTERM");
      const result = await visor.done;
      assert.equal(result.code, 143, result.stderr);
      assert.deepEqual(await readdir(home.path("chainvisor", "upgrades")).catch(() => []), []);
      assert.equal(await current(), "genesis");
    });

    it("keeps running the node when staging ahead fails", async () => {
      server.routes.set(
        "/chain/upgrade/v1beta1/current_plan",
        currentPlanRoute({ name: "v2", height: 130, info: "not json" }, 120),
      );
      await install("genesis", { label: "genesis", body: `${waitsFor("stop-now")}\nexit 6` });
      const visor = startVisor(
        ["run", "start"],
        home.env({
          DAEMON_ALLOW_DOWNLOAD_BINARIES: "true",
          CHAINVISOR_API_URL: server.url,
          CHAINVISOR_PLAN_POLL_INTERVAL: "50ms",
        }),
      );
      await visor.waitForLog(
        /staging upgrade "v2" at height 130 ahead failed \(will retry; not fatal\): could not parse plan info/,
      );
      await writeFile(home.path("stop-now"), "");
      assert.equal((await visor.done).code, 6);
    });
  });
});
