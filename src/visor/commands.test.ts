// The commands other than `run`, through the real CLI.
import assert from "node:assert/strict";
import { mkdir, readdir, readFile, readlink, stat, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, afterEach, before, beforeEach, describe, it } from "node:test";
import {
  createTestHome,
  currentPlanRoute,
  fakeNodeScript,
  makeTarGz,
  makeZip,
  runVisor,
  sha256,
  startTestServer,
  type TestHome,
  type TestServer,
  writeFakeNode,
  writesPlan,
} from "../../test/support/visor/fixtures.ts";
import { visorVersion } from "./commands/version.ts";

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

const exists = (...parts: string[]) =>
  stat(home.path(...parts)).then(
    () => true,
    () => false,
  );

describe("configuration errors", () => {
  it("reports every problem together and exits 1", async () => {
    const result = await runVisor(["status"], {
      PATH: process.env.PATH ?? "",
      DAEMON_HOME: "relative",
      DAEMON_POLL_INTERVAL: "300",
      UNSAFE_SKIP_BACKUP: "maybe",
    });
    assert.equal(result.code, 1);
    assert.ok(
      result.stderr.includes(
        [
          "chainvisor error: invalid configuration:",
          '  env variable "UNSAFE_SKIP_BACKUP" must have a boolean value ("true" or "false"), got "maybe"',
          `  invalid: DAEMON_POLL_INTERVAL: could not parse '300' into a duration: time: missing unit in duration "300"`,
          "  DAEMON_NAME is not set",
          "  DAEMON_HOME must be an absolute path",
          "  relative must be an absolute path",
          "",
        ].join("\n"),
      ),
      result.stderr,
    );
  });
});

describe("chainvisor init", () => {
  it("installs the genesis release and the current link; a second init keeps the existing binary", async () => {
    const source = await writeFakeNode(home.path("build", "chaind"), { label: "genesis" });
    const result = await runVisor(["init", source], home.env());
    assert.equal(result.code, 0, result.stderr);
    assert.equal(await home.read("chainvisor", "genesis", "bin", "chaind"), fakeNodeScript({ label: "genesis" }));
    assert.equal(await readlink(home.path("chainvisor", "current")), "genesis");
    assert.match(result.stderr, /the current symlink points to: ".*genesis\/bin\/chaind"/);
    await writeFile(source, "other");
    const again = await runVisor(["init", source], home.env());
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stderr, /file already exists/);
    assert.equal(await home.read("chainvisor", "genesis", "bin", "chaind"), fakeNodeScript({ label: "genesis" }));
  });

  it("explains a missing, absent or directory path", async () => {
    const none = await runVisor(["init"], home.env());
    assert.equal(none.code, 1);
    assert.match(none.stderr, /error: no <path to executable> provided/);
    const missing = await runVisor(["init", home.path("nope")], home.env());
    assert.match(missing.stderr, /executable file not found: stat .*\/nope: no such file or directory/);
    const dir = await runVisor(["init", home.path("data")], home.env());
    assert.match(dir.stderr, /invalid path to executable: must not be a directory/);
    const badEnv = await runVisor(["init", home.path("data")], { PATH: process.env.PATH ?? "", DAEMON_HOME: "x" });
    assert.match(badEnv.stderr, /DAEMON_NAME is not set\n {2}DAEMON_HOME must be an absolute path/);
    assert.ok(!(await exists("chainvisor")));
  });
});

describe("release archives", () => {
  it("init and add-upgrade unpack a whole release, so a launcher finds the files beside it", async () => {
    const launcher = '#!/bin/sh\nexec /bin/sh "$(dirname "$0")/../lib/real.sh" "$@"\n';
    const v1 = await makeTarGz({
      "bin/chaind": launcher,
      "lib/real.sh": fakeNodeScript({
        label: "v1-from-archive",
        body: `${writesPlan({ name: "v2", height: 8 })}\nexit 2`,
      }),
    });
    const v2 = await makeZip({
      "chaind-v2/bin/chaind": launcher,
      "chaind-v2/lib/real.sh": fakeNodeScript({ label: "v2-from-archive", body: "exit 0" }),
    });
    await writeFile(home.path("v1.tar.gz"), v1);
    await writeFile(home.path("v2.zip"), v2);
    assert.equal((await runVisor(["init", home.path("v1.tar.gz")], home.env())).code, 0);
    const added = await runVisor(["add-upgrade", "v2", home.path("v2.zip")], home.env());
    assert.equal(added.code, 0, added.stderr);
    assert.equal(
      await home.read("chainvisor", "upgrades", "v2", "lib", "real.sh"),
      fakeNodeScript({ label: "v2-from-archive", body: "exit 0" }),
    );
    const result = await runVisor(["run", "start"], home.env({ UNSAFE_SKIP_BACKUP: "true" }));
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual((await home.read("runs.log")).trim().split("\n"), [
      "v1-from-archive start",
      "v2-from-archive pre-upgrade",
      "v2-from-archive start",
    ]);
    assert.deepEqual((await readdir(home.path("chainvisor"))).sort(), ["current", "genesis", "upgrades"]);
    const bad = await runVisor(["add-upgrade", "v3", home.path("v1.tar.gz")], { ...home.env(), DAEMON_NAME: "otherd" });
    assert.match(
      bad.stderr,
      /failed to install the release: url ".*v1\.tar\.gz" result does not contain a bin\/otherd or otherd file/,
    );
    assert.ok(!(await exists("chainvisor", "upgrades", "v3")));
  });
});

describe("chainvisor add-upgrade", () => {
  beforeEach(async () => {
    await mkdir(home.path("chainvisor"), { recursive: true });
  });

  it("copies the executable (0755) under the lower-cased name and, with a height, writes upgrade-info.json", async () => {
    const source = await writeFakeNode(home.path("build", "chaind"), { label: "v2" });
    const result = await runVisor(["add-upgrade", "V2-Beta", source, "--upgrade-height", "250"], home.env());
    assert.equal(result.code, 0, result.stderr);
    const target = home.path("chainvisor", "upgrades", "v2-beta", "bin", "chaind");
    assert.equal((await stat(target)).mode & 0o777, 0o755);
    assert.equal(
      await home.read("data", "upgrade-info.json"),
      '{"name":"v2-beta","time":"0001-01-01T00:00:00Z","height":250}',
    );
    assert.match(result.stderr, /upgrade-info\.json created, v2-beta upgrade binary will switch at height 250/);

    const again = await runVisor(["add-upgrade", "v2-beta", source], home.env());
    assert.equal(again.code, 1);
    assert.match(again.stderr, new RegExp(`file already exists at ${target}\\n {2}pass --force to overwrite it`));
    await writeFile(source, "new");
    const forced = await runVisor(["add-upgrade", "v2-beta", source, "--force"], home.env());
    assert.equal(forced.code, 0, forced.stderr);
    assert.equal(await readFile(target, "utf8"), "new");
  });

  it("checks everything before writing anything", async () => {
    const source = await writeFakeNode(home.path("build", "chaind"), { label: "v2" });
    await writeFile(home.path("data", "upgrade-info.json"), "{}");
    const blocked = await runVisor(["add-upgrade", "v2", source, "--upgrade-height", "9"], home.env());
    assert.match(blocked.stderr, /file already exists at .*data\/upgrade-info\.json/);
    const badHeight = await runVisor(["add-upgrade", "v2", source, "--upgrade-height", "-3"], home.env());
    assert.match(badHeight.stderr, /--upgrade-height must be a positive integer, got "-3"/);
    // Past int64 the node would refuse the upgrade-info.json it was given: refused here, before anything is written.
    const hugeHeight = await runVisor(
      ["add-upgrade", "v2", source, "--upgrade-height", "99999999999999999999"],
      home.env(),
    );
    assert.match(
      hugeHeight.stderr,
      /--upgrade-height must be at most 9223372036854775807 \(a signed 64-bit block height\)/,
    );
    assert.notEqual(hugeHeight.code, 0);
    const device = await runVisor(["add-upgrade", "v2", "/dev/null"], home.env());
    assert.match(device.stderr, /invalid executable path: \/dev\/null is not a regular file/);
    const missing = await runVisor(["add-upgrade", "v2", home.path("nope")], home.env());
    assert.match(missing.stderr, /invalid executable path: stat .*\/nope: no such file or directory/);
    const badName = await runVisor(["add-upgrade", "..", source], home.env());
    assert.match(badName.stderr, /upgrade name "\.\." cannot be used as a directory name/);
    assert.ok(!(await exists("chainvisor", "upgrades")));
  });
});

describe("an empty path argument", () => {
  it("init '' and add-upgrade <name> '' refuse it in one line and install nothing", async () => {
    await mkdir(home.path("chainvisor"), { recursive: true });
    for (const args of [
      ["init", ""],
      ["add-upgrade", "v2", ""],
    ]) {
      const result = await runVisor(args, home.env());
      assert.equal(result.code, 1, `chainvisor ${args.join(" ")}`);
      const lines = result.stderr.trimEnd().split("\n");
      assert.equal(lines.length, 1, result.stderr);
      assert.match(
        lines[0] as string,
        /error: <path> is empty: expected the path of the node executable or release archive$/,
      );
    }
    assert.deepEqual(await readdir(home.path("chainvisor")), []);
  });
});

describe("chainvisor status", () => {
  it("shows the current release, installed upgrades, the pending file and the node's plan", async () => {
    await writeFakeNode(home.path("chainvisor", "genesis", "bin", "chaind"), { label: "genesis" });
    await writeFakeNode(home.path("chainvisor", "upgrades", "v2", "bin", "chaind"), { label: "v2" });
    await mkdir(home.path("chainvisor", "upgrades", "v3"), { recursive: true });
    await mkdir(home.path("chainvisor", "upgrades", ".download-v4-1-abc"), { recursive: true });
    await writeFile(home.path("data", "upgrade-info.json"), '{"name":"v2","height":130}');
    server.routes.set("/chain/upgrade/v1beta1/current_plan", currentPlanRoute({ name: "v2", height: 130 }, 125));
    const env = home.env({ CHAINVISOR_API_URL: server.url });
    const text = await runVisor(["status"], env);
    assert.equal(text.code, 0, text.stderr);
    assert.equal(
      text.stdout,
      [
        "current release:    genesis",
        `current binary:     ${home.path("chainvisor", "genesis", "bin", "chaind")}`,
        "switch ahead:       off (DAEMON_SWITCH_AHEAD)",
        "upgrades installed: v2, v3 (no executable)",
        'upgrade-info.json:  "v2" at height 130',
        'node plan:          "v2" at height 130, staged',
        "node height:        125",
        "",
      ].join("\n"),
    );
    const json = JSON.parse((await runVisor(["status", "-o", "json"], env)).stdout);
    assert.deepEqual(json.node, {
      api: server.url,
      plan: { name: "v2", height: "130", info: "", staged: true },
      height: "125",
      error: null,
    });
    assert.deepEqual(json.current, {
      release: "genesis",
      binary: home.path("chainvisor", "genesis", "bin", "chaind"),
      switched_ahead: null,
    });
    assert.deepEqual(json.switch_ahead, { enabled: false, window: "10m0s", guard: "20" });
    assert.equal(
      await readlink(home.path("chainvisor", "current")).catch(() => "none"),
      "none",
      "status changes nothing",
    );

    const apiOff = await runVisor(["status"], home.env());
    assert.match(
      apiOff.stdout,
      /node plan: {10}not asked: the REST API is disabled in .*app\.toml \(\[api\] enable = false\)/,
    );
  });

  it("says when the current release runs switched ahead, and how switching ahead is set", async () => {
    await writeFakeNode(home.path("chainvisor", "genesis", "bin", "chaind"), { label: "genesis" });
    await writeFakeNode(home.path("chainvisor", "upgrades", "v2", "bin", "chaind"), { label: "v2" });
    await symlink("upgrades/v2", home.path("chainvisor", "current"));
    const mark = home.path("chainvisor", "upgrades", "v2", "in-place-upgrades.json");
    await writeFile(mark, '{"plan":"v2","plan_height":"130","switched_at_height":"71"}\n');
    const env = home.env({
      DAEMON_SWITCH_AHEAD: "true",
      DAEMON_SWITCH_AHEAD_WINDOW: "90s",
      DAEMON_SWITCH_AHEAD_GUARD: "30",
    });
    const text = await runVisor(["status"], env);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /^current release: {4}v2$/m);
    assert.match(
      text.stdout,
      /^switched ahead: {5}for upgrade v2 at height 130, restarted at height 71 \(the in-place mode\)$/m,
    );
    assert.match(text.stdout, /^switch ahead: {7}on \(window 1m30s, guard 30 blocks\)$/m);
    const json = JSON.parse((await runVisor(["status", "-o", "json"], env)).stdout);
    assert.deepEqual(json.current.switched_ahead, { plan: "v2", plan_height: "130", switched_at_height: "71" });
    assert.deepEqual(json.switch_ahead, { enabled: true, window: "1m30s", guard: "30" });

    // A damaged mark is reported where it is; the rest of the status still prints.
    await writeFile(mark, "not json");
    const damaged = await runVisor(["status"], env);
    assert.equal(damaged.code, 0, damaged.stderr);
    assert.match(
      damaged.stdout,
      /^switched ahead: {5}unknown: .*in-place-upgrades\.json is not JSON: expected \{"plan": "<name>", "plan_height": "<height>"\}, got "not json"$/m,
    );
    assert.match(damaged.stdout, /^upgrades installed: v2$/m);
  });
});

describe("chainvisor version", () => {
  it("prints its own version, then the current release's", async () => {
    const own = await runVisor(["version", "--no-app-version"], {});
    assert.equal(own.stdout, `chainvisor version: ${visorVersion()}\n`);
    assert.match(visorVersion(), /^\d+\.\d+\.\d+/);
    const unconfigured = await runVisor(["version"], {});
    assert.equal(unconfigured.stdout, `chainvisor version: ${visorVersion()}\n`, "printed before the config is read");
    assert.match(unconfigured.stderr, /DAEMON_HOME is not set/);
    assert.notEqual(unconfigured.code, 0);
    await mkdir(home.path("chainvisor"), { recursive: true });
    await writeFakeNode(home.path("chainvisor", "genesis", "bin", "chaind"), {
      label: "genesis",
      // As cosmovisor: JSON mode asks the release for `version --long --output json` (its full record).
      body: 'if [ "$*" = "version --long --output json" ]; then echo \'{"name":"chaind","version":"1.0.0"}\'; else echo "1.0.0"; fi',
    });
    const both = await runVisor(["version"], home.env());
    assert.equal(both.stdout, `chainvisor version: ${visorVersion()}\n1.0.0\n`);
    const json = await runVisor(["version", "-o", "json"], home.env());
    assert.equal(json.code, 0, json.stderr);
    assert.deepEqual(JSON.parse(json.stdout), {
      chainvisor_version: visorVersion(),
      app_version: { name: "chaind", version: "1.0.0" },
    });
  });

  it("refuses a release whose version output is not JSON, as cosmovisor does", async () => {
    await mkdir(home.path("chainvisor"), { recursive: true });
    await writeFakeNode(home.path("chainvisor", "genesis", "bin", "chaind"), {
      label: "genesis",
      body: 'echo "1.0.0"',
    });
    const json = await runVisor(["version", "-o", "json"], home.env());
    assert.equal(json.code, 1);
    assert.equal(json.stdout, "");
    assert.match(json.stderr, /can't print version output, expected valid json from APP, got: 1\.0\.0$/m);
    assert.doesNotMatch(json.stderr, /\n\s+at /, "one line, no stack");
  });
});

describe("chainvisor prepare-upgrade", () => {
  beforeEach(async () => {
    await mkdir(home.path("chainvisor"), { recursive: true });
  });

  it("stages the node's scheduled plan, then finds it staged", async () => {
    const binary = fakeNodeScript({ label: "v2" });
    server.routes.set("/chaind", { body: binary });
    const info = JSON.stringify({ binaries: { any: `${server.url}/chaind?checksum=${sha256(binary)}` } });
    server.routes.set("/chain/upgrade/v1beta1/current_plan", currentPlanRoute({ name: "Gamma", height: 99, info }, 50));
    const env = home.env({ CHAINVISOR_API_URL: server.url });
    const staged = await runVisor(["prepare-upgrade"], env);
    assert.equal(staged.code, 0, staged.stderr);
    assert.equal(await home.read("chainvisor", "upgrades", "gamma", "bin", "chaind"), binary);
    assert.match(staged.stderr, /upgrade "Gamma" at height 99 is staged and verified/);
    const again = await runVisor(["prepare-upgrade"], env);
    assert.match(again.stderr, /is already staged in .*upgrades\/gamma/);
    assert.equal(server.requests.filter((path) => path.startsWith("/chaind")).length, 1);
  });

  it("says when there is no plan, and fails clearly when the node or the download cannot be used", async () => {
    server.routes.set("/chain/upgrade/v1beta1/current_plan", currentPlanRoute(null, 50));
    const none = await runVisor(["prepare-upgrade"], home.env({ CHAINVISOR_API_URL: server.url }));
    assert.equal(none.code, 0);
    assert.match(none.stderr, /No active upgrade plan found/);

    const info = JSON.stringify({ binaries: { any: `${server.url}/chaind` } });
    server.routes.set("/chain/upgrade/v1beta1/current_plan", currentPlanRoute({ name: "v2", height: 99, info }, 50));
    const unchecked = await runVisor(["prepare-upgrade"], home.env({ CHAINVISOR_API_URL: server.url }));
    assert.equal(unchecked.code, 1);
    assert.match(unchecked.stderr, /invalid url ".*\/chaind" in binaries\[any\]: missing checksum query parameter/);

    const down = await runVisor(["prepare-upgrade"], home.env({ CHAINVISOR_API_URL: "http://127.0.0.1:1" }));
    assert.equal(down.code, 1);
    assert.match(
      down.stderr,
      /GET http:\/\/127\.0\.0\.1:1\/chain\/upgrade\/v1beta1\/current_plan failed: fetch failed/,
    );

    const disabled = await runVisor(["prepare-upgrade"], home.env());
    assert.match(disabled.stderr, /cannot read the node's current plan: the REST API is disabled in/);
    assert.ok(!(await exists("chainvisor", "upgrades", "v2")));
  });

  it("reads the API address from app.toml", async () => {
    const { resolveApiEndpoint, addressToUrl } = await import("./node-api.ts");
    await writeFile(home.path("config", "app.toml"), '[api]\nenable = true\naddress = "tcp://0.0.0.0:1417"\n');
    assert.deepEqual(await resolveApiEndpoint({ home: home.home, apiUrl: undefined }), {
      url: "http://127.0.0.1:1417",
      source: join(home.home, "config", "app.toml"),
    });
    await writeFile(home.path("config", "app.toml"), "[api\n");
    const broken = await resolveApiEndpoint({ home: home.home, apiUrl: undefined });
    assert.ok("url" in broken && broken.url === "http://localhost:1317" && /cannot parse/.test(broken.warning ?? ""));
    assert.equal(addressToUrl("localhost:1317"), "http://localhost:1317");
    assert.equal(addressToUrl("tcp://[::]:1317"), "http://[::1]:1317");
  });
});
