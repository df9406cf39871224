import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { loadConfig } from "./config.ts";
import { VisorConfigError } from "./errors.ts";

let home: string;
before(async () => {
  home = await mkdtemp(join(tmpdir(), "chainvisor-config-"));
  await mkdir(join(home, "chainvisor"));
  await writeFile(join(home, "a-file"), "");
});
after(() => rm(home, { recursive: true, force: true }));

const valid = () => ({ DAEMON_HOME: home, DAEMON_NAME: "chaind" });

function problemsOf(env: Record<string, string>, check: "full" | "init" = "full"): string[] {
  try {
    loadConfig(env, check);
  } catch (error) {
    assert.ok(error instanceof VisorConfigError);
    assert.equal(error.message, error.problems.join("\n"));
    return error.problems;
  }
  assert.fail("expected a VisorConfigError");
}

describe("loadConfig", () => {
  it("has cosmovisor's defaults, except that checksums are required", () => {
    const config = loadConfig(valid());
    assert.deepEqual(config, {
      home,
      name: "chaind",
      allowDownloadBinaries: false,
      downloadMustHaveChecksum: true,
      restartAfterUpgrade: true,
      restartDelayMs: 0,
      shutdownGraceMs: 0,
      pollIntervalMs: 300,
      dataBackupDir: home,
      unsafeSkipBackup: false,
      preUpgradeMaxRetries: 0,
      apiUrl: undefined,
      planPollIntervalMs: 5000,
      downloadMaxBytes: 1073741824,
      metricsAddr: undefined,
      switchAhead: false,
      switchAheadWindowMs: 600_000,
      switchAheadGuard: 20n,
    });
  });

  it("reads the switch-ahead variables and names the variable and the expected form when one is bad", () => {
    const config = loadConfig({
      ...valid(),
      DAEMON_SWITCH_AHEAD: "true",
      DAEMON_SWITCH_AHEAD_WINDOW: "1m30s",
      DAEMON_SWITCH_AHEAD_GUARD: "0",
    });
    assert.equal(config.switchAhead, true);
    assert.equal(config.switchAheadWindowMs, 90_000);
    assert.equal(config.switchAheadGuard, 0n);
    assert.deepEqual(
      problemsOf({
        ...valid(),
        DAEMON_SWITCH_AHEAD: "yes",
        DAEMON_SWITCH_AHEAD_WINDOW: "600",
        DAEMON_SWITCH_AHEAD_GUARD: "-5",
      }),
      [
        'env variable "DAEMON_SWITCH_AHEAD" must have a boolean value ("true" or "false"), got "yes"',
        'invalid: DAEMON_SWITCH_AHEAD_WINDOW: expected a duration greater than 0 with a unit such as 10m, 90s or 1h30m, got "600"',
        'invalid: DAEMON_SWITCH_AHEAD_GUARD: expected a whole number of blocks (0 or more, e.g. 20), got "-5"',
      ],
    );
    assert.deepEqual(problemsOf({ ...valid(), DAEMON_SWITCH_AHEAD_WINDOW: "0s", DAEMON_SWITCH_AHEAD_GUARD: "2x" }), [
      'invalid: DAEMON_SWITCH_AHEAD_WINDOW: expected a duration greater than 0 with a unit such as 10m, 90s or 1h30m, got "0s"',
      'invalid: DAEMON_SWITCH_AHEAD_GUARD: expected a whole number of blocks (0 or more, e.g. 20), got "2x"',
    ]);
  });

  it("reads every variable", () => {
    const config = loadConfig({
      ...valid(),
      DAEMON_ALLOW_DOWNLOAD_BINARIES: "TRUE",
      DAEMON_DOWNLOAD_MUST_HAVE_CHECKSUM: "False",
      DAEMON_RESTART_AFTER_UPGRADE: "false",
      DAEMON_RESTART_DELAY: "1.5s",
      DAEMON_SHUTDOWN_GRACE: "1m",
      DAEMON_POLL_INTERVAL: "100ms",
      DAEMON_DATA_BACKUP_DIR: join(home, "chainvisor"),
      UNSAFE_SKIP_BACKUP: "true",
      DAEMON_PREUPGRADE_MAX_RETRIES: "+3",
      CHAINVISOR_API_URL: "http://127.0.0.1:1318/",
      CHAINVISOR_PLAN_POLL_INTERVAL: "2s",
    });
    assert.equal(config.allowDownloadBinaries, true);
    assert.equal(config.downloadMustHaveChecksum, false);
    assert.equal(config.restartAfterUpgrade, false);
    assert.equal(config.restartDelayMs, 1500);
    assert.equal(config.shutdownGraceMs, 60_000);
    assert.equal(config.pollIntervalMs, 100);
    assert.equal(config.dataBackupDir, join(home, "chainvisor"));
    assert.equal(config.unsafeSkipBackup, true);
    assert.equal(config.preUpgradeMaxRetries, 3);
    assert.equal(config.apiUrl, "http://127.0.0.1:1318");
    assert.equal(config.planPollIntervalMs, 2000);
  });

  it("reports an unset environment with cosmovisor's three errors", () => {
    assert.deepEqual(problemsOf({}), [
      "DAEMON_NAME is not set",
      "DAEMON_HOME is not set",
      "DAEMON_DATA_BACKUP_DIR must not be empty",
    ]);
  });

  for (const variable of [
    "DAEMON_ALLOW_DOWNLOAD_BINARIES",
    "DAEMON_DOWNLOAD_MUST_HAVE_CHECKSUM",
    "DAEMON_RESTART_AFTER_UPGRADE",
    "UNSAFE_SKIP_BACKUP",
  ]) {
    it(`refuses a non-boolean ${variable} (the value shown lower-cased)`, () => {
      assert.deepEqual(problemsOf({ ...valid(), [variable]: "YES" }), [
        `env variable "${variable}" must have a boolean value ("true" or "false"), got "yes"`,
      ]);
    });
  }

  for (const variable of [
    "DAEMON_POLL_INTERVAL",
    "DAEMON_RESTART_DELAY",
    "DAEMON_SHUTDOWN_GRACE",
    "CHAINVISOR_PLAN_POLL_INTERVAL",
  ]) {
    it(`refuses a bad or non-positive ${variable}`, () => {
      assert.deepEqual(problemsOf({ ...valid(), [variable]: "600" }), [
        `invalid: ${variable}: could not parse '600' into a duration: time: missing unit in duration "600"`,
      ]);
      assert.deepEqual(problemsOf({ ...valid(), [variable]: "5 s" }), [
        `invalid: ${variable}: could not parse '5 s' into a duration: time: unknown unit " s" in duration "5 s"`,
      ]);
      assert.deepEqual(problemsOf({ ...valid(), [variable]: "0" }), [`invalid: ${variable}: must be greater than 0`]);
      assert.deepEqual(problemsOf({ ...valid(), [variable]: "-3m" }), [`invalid: ${variable}: must be greater than 0`]);
    });
  }

  it("refuses a DAEMON_PREUPGRADE_MAX_RETRIES that is not an integer", () => {
    assert.deepEqual(problemsOf({ ...valid(), DAEMON_PREUPGRADE_MAX_RETRIES: "two" }), [
      'DAEMON_PREUPGRADE_MAX_RETRIES could not be parsed to int: strconv.Atoi: parsing "two": invalid syntax',
    ]);
    assert.deepEqual(problemsOf({ ...valid(), DAEMON_PREUPGRADE_MAX_RETRIES: " 2" }), [
      'DAEMON_PREUPGRADE_MAX_RETRIES could not be parsed to int: strconv.Atoi: parsing " 2": invalid syntax',
    ]);
    assert.deepEqual(problemsOf({ ...valid(), DAEMON_PREUPGRADE_MAX_RETRIES: "99999999999999999999" }), [
      'DAEMON_PREUPGRADE_MAX_RETRIES could not be parsed to int: strconv.Atoi: parsing "99999999999999999999": value out of range',
    ]);
  });

  it("refuses a CHAINVISOR_API_URL that is not http(s)", () => {
    assert.deepEqual(problemsOf({ ...valid(), CHAINVISOR_API_URL: "tcp://localhost:1317" }), [
      'CHAINVISOR_API_URL must be an http:// or https:// URL such as http://localhost:1317, got "tcp://localhost:1317"',
    ]);
  });

  it("checks DAEMON_NAME and DAEMON_HOME", () => {
    assert.deepEqual(problemsOf({ DAEMON_HOME: home, DAEMON_NAME: "bin/chaind" }), [
      'DAEMON_NAME must be a plain file name, got "bin/chaind"',
    ]);
    assert.deepEqual(problemsOf({ DAEMON_HOME: "relative/home", DAEMON_NAME: "chaind", UNSAFE_SKIP_BACKUP: "true" }), [
      "DAEMON_HOME must be an absolute path",
    ]);
    const missing = join(home, "missing");
    assert.deepEqual(problemsOf({ DAEMON_HOME: missing, DAEMON_NAME: "chaind", UNSAFE_SKIP_BACKUP: "true" }), [
      `cannot stat home dir: stat ${join(missing, "chainvisor")}: no such file or directory`,
    ]);
    const fileHome = join(home, "file-home");
    return (async () => {
      await mkdir(fileHome);
      await writeFile(join(fileHome, "chainvisor"), "");
      assert.deepEqual(problemsOf({ DAEMON_HOME: fileHome, DAEMON_NAME: "chaind", UNSAFE_SKIP_BACKUP: "true" }), [
        `${join(fileHome, "chainvisor")} is not a directory`,
      ]);
    })();
  });

  it("checks DAEMON_DATA_BACKUP_DIR unless backups are skipped", () => {
    assert.deepEqual(problemsOf({ ...valid(), DAEMON_DATA_BACKUP_DIR: "backups" }), [
      "backups must be an absolute path",
    ]);
    const missing = join(home, "no-backups");
    assert.deepEqual(problemsOf({ ...valid(), DAEMON_DATA_BACKUP_DIR: missing }), [
      `"${missing}" must be a valid directory: stat ${missing}: no such file or directory`,
    ]);
    const file = join(home, "a-file");
    assert.deepEqual(problemsOf({ ...valid(), DAEMON_DATA_BACKUP_DIR: file }), [`"${file}" must be a valid directory`]);
    assert.equal(
      loadConfig({ ...valid(), DAEMON_DATA_BACKUP_DIR: missing, UNSAFE_SKIP_BACKUP: "true" }).unsafeSkipBackup,
      true,
    );
  });

  it("reports every problem at once", () => {
    const problems = problemsOf({
      DAEMON_HOME: "relative",
      DAEMON_ALLOW_DOWNLOAD_BINARIES: "1",
      DAEMON_DOWNLOAD_MUST_HAVE_CHECKSUM: "on",
      DAEMON_RESTART_AFTER_UPGRADE: "yes",
      UNSAFE_SKIP_BACKUP: "no",
      DAEMON_POLL_INTERVAL: "fast",
      DAEMON_RESTART_DELAY: "0",
      DAEMON_SHUTDOWN_GRACE: "10",
      DAEMON_PREUPGRADE_MAX_RETRIES: "x",
      DAEMON_DATA_BACKUP_DIR: "also-relative",
    });
    assert.deepEqual(problems, [
      'env variable "DAEMON_ALLOW_DOWNLOAD_BINARIES" must have a boolean value ("true" or "false"), got "1"',
      'env variable "DAEMON_DOWNLOAD_MUST_HAVE_CHECKSUM" must have a boolean value ("true" or "false"), got "on"',
      'env variable "DAEMON_RESTART_AFTER_UPGRADE" must have a boolean value ("true" or "false"), got "yes"',
      'env variable "UNSAFE_SKIP_BACKUP" must have a boolean value ("true" or "false"), got "no"',
      `invalid: DAEMON_POLL_INTERVAL: could not parse 'fast' into a duration: time: invalid duration "fast"`,
      "invalid: DAEMON_RESTART_DELAY: must be greater than 0",
      `invalid: DAEMON_SHUTDOWN_GRACE: could not parse '10' into a duration: time: missing unit in duration "10"`,
      'DAEMON_PREUPGRADE_MAX_RETRIES could not be parsed to int: strconv.Atoi: parsing "x": invalid syntax',
      "DAEMON_NAME is not set",
      "DAEMON_HOME must be an absolute path",
      "also-relative must be an absolute path",
    ]);
  });

  it("needs only the name and an absolute home for init", () => {
    const missing = join(home, "fresh");
    assert.equal(loadConfig({ DAEMON_HOME: missing, DAEMON_NAME: "chaind" }, "init").home, missing);
    assert.deepEqual(problemsOf({ DAEMON_HOME: "rel" }, "init"), [
      "DAEMON_NAME is not set",
      "DAEMON_HOME must be an absolute path",
    ]);
    // cosmovisor's init reads DAEMON_HOME and DAEMON_NAME only: a variable meant for `run` that is wrong does not
    // stop the genesis release from being installed (`run` reports it).
    const forRun = { DAEMON_POLL_INTERVAL: "600", UNSAFE_SKIP_BACKUP: "maybe", DAEMON_PREUPGRADE_MAX_RETRIES: "x" };
    assert.equal(loadConfig({ DAEMON_HOME: missing, DAEMON_NAME: "chaind", ...forRun }, "init").home, missing);
    assert.deepEqual(problemsOf({ DAEMON_HOME: "rel", ...forRun }, "init"), [
      "DAEMON_NAME is not set",
      "DAEMON_HOME must be an absolute path",
    ]);
    assert.equal(problemsOf({ DAEMON_HOME: missing, DAEMON_NAME: "chaind", ...forRun }).length, 5, "run sees them all");
  });
});
