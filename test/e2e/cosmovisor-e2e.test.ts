// The real cosmovisor (v1.5.0, built from its Go module by .ci/install-tools) as the operator's supervisor of a
// chaind chain, v1 → v2, three ways (issue 13): `init` + `add-upgrade` with the single-file executables, and
// auto-download from the plan's info of the release archive and of the single file. Each must halt at H, switch
// `current` to upgrades/v2, and v2 must apply the upgrade at H and go on; the archive, unpacked by cosmovisor's own
// unpacker, must give a bin/chainvisor that runs. Real processes over loopback, ports picked
// at run time. The halt-moment loop (20 of 20) is cosmovisor-halt-loop.test.ts.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readlink, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import {
  blocksWaitMs,
  GOV_PERIOD,
  GOV_PERIOD_MS,
  heightAfter,
  LEGACY,
  NOTES,
  PROPOSAL_WAIT_MS,
  TIMEOUT_COMMIT,
  UPGRADE_TEST_TIMEOUT_MS,
  waitForBlocks,
} from "./support/chain-checks.ts";
import { type ChaindBinary, setupChainHome } from "./support/chain-home.ts";
import { cosmovisorBinary } from "./support/cosmovisor.ts";
import { type FileServer, startFileServer } from "./support/file-server.ts";
import { latestHeight, restGet, waitForHeight } from "./support/node-api.ts";
import { runCommand, startProcess, stopAll, tail } from "./support/processes.ts";
import { buildTestReleases, type TestRelease } from "./support/releases.ts";
import { submitSoftwareUpgrade, voteYes, waitForProposalStatus } from "./support/upgrade-flow.ts";

const COSMOVISOR = cosmovisorBinary();
const ARCHIVE_PATH = "/chaind-v2-linux-amd64.tar.gz";
const EXECUTABLE_PATH = "/chaind-v2-linux-amd64";

let work: string;
let releases: Record<string, TestRelease>;
let server: FileServer;

before(async () => {
  if (COSMOVISOR === undefined) return;
  work = await mkdtemp(join(tmpdir(), "chaind-cosmovisor-e2e-"));
  // The single files unpack their application once, here, not into the user's ~/.cache.
  process.env.CHAIND_CACHE_DIR = join(work, "cache");
  releases = await buildTestReleases(join(work, "releases"), ["v1", "v2"]);
  server = await startFileServer({
    [ARCHIVE_PATH]: releases.v2?.archive ?? "",
    [EXECUTABLE_PATH]: releases.v2?.executable ?? "",
  });
});

after(async () => {
  await stopAll();
  await server?.close();
  if (work !== undefined) await rm(work, { recursive: true, force: true });
});

type Way = "add-upgrade" | "download-archive" | "download-single-file";

async function cosmovisor(home: string, args: string[]): Promise<void> {
  const result = await runCommand(COSMOVISOR as string, args, { cwd: home, env: cosmovisorEnv(home, "add-upgrade") });
  assert.equal(result.status, 0, `cosmovisor ${args.join(" ")}:\n${tail(result.stdout)}\n${tail(result.stderr)}`);
}

function cosmovisorEnv(home: string, way: Way): Record<string, string | undefined> {
  return {
    ...process.env,
    DAEMON_HOME: home,
    DAEMON_NAME: "chaind",
    DAEMON_ALLOW_DOWNLOAD_BINARIES: way === "add-upgrade" ? "false" : "true",
    DAEMON_RESTART_AFTER_UPGRADE: "true",
    DAEMON_POLL_INTERVAL: "300ms",
    UNSAFE_SKIP_BACKUP: "true",
  };
}

async function upgradeUnderCosmovisor(way: Way): Promise<void> {
  const v1 = releases.v1 as TestRelease;
  const v2 = releases.v2 as TestRelease;
  const home = join(work, way);
  await mkdir(home, { recursive: true });
  // The operator's commands: the single file is all `init` (and `add-upgrade`) need.
  await cosmovisor(home, ["init", v1.executable]);
  if (way === "add-upgrade") await cosmovisor(home, ["add-upgrade", "v2", v2.executable]);
  const binary: ChaindBinary = { command: join(home, "cosmovisor", "current", "bin", "chaind"), prefix: [] };
  const chain = await setupChainHome({
    home,
    chainId: `cosmovisor-${way}`,
    binary,
    govPeriod: GOV_PERIOD,
    timeoutCommit: TIMEOUT_COMMIT,
    notes: NOTES,
    legacy: LEGACY,
  });
  const visor = startProcess(`cosmovisor-${way}`, COSMOVISOR as string, ["run", "start", "--home", home], {
    cwd: home,
    env: cosmovisorEnv(home, way),
  });
  await waitForBlocks(chain);
  const from = (await latestHeight(chain.rpcUrl)) ?? 0n;
  // Room for the proposal to be submitted, voted and pass (its voting period plus the CLI's own time).
  const height = heightAfter(from, GOV_PERIOD_MS / 1000 + 40);
  const url =
    way === "download-archive"
      ? `${server.baseUrl}${ARCHIVE_PATH}?checksum=sha256:${v2.sha256}`
      : `${server.baseUrl}${EXECUTABLE_PATH}?checksum=sha256:${v2.executableSha256}`;
  const info = way === "add-upgrade" ? "" : JSON.stringify({ binaries: { "linux/amd64": url } });
  const proposal = await submitSoftwareUpgrade(binary, chain, { name: "v2", height, info });
  await voteYes(binary, chain, proposal.id);
  await waitForProposalStatus(chain, proposal.id, "PROPOSAL_STATUS_PASSED", PROPOSAL_WAIT_MS);

  await visor.waitForOutput(new RegExp(`UPGRADE "v2" NEEDED at height: ${height}`), blocksWaitMs(height - from));
  await waitForHeight(chain.rpcUrl, height + 2n, blocksWaitMs(10) + 120_000);
  const target = await readlink(join(home, "cosmovisor", "current"));
  assert.match(target, /upgrades\/v2$/, `current -> ${target}\n${tail(visor.output())}`);
  assert.ok(existsSync(join(home, "cosmovisor", "upgrades", "v2", "bin", "chaind")));
  const applied = await restGet(chain.apiUrl, "/chain/upgrade/v1beta1/applied_plan/v2");
  assert.deepEqual(applied.body, { height: String(height) }, "v2 applied the upgrade at H");
  const plan = await restGet(chain.apiUrl, "/chain/upgrade/v1beta1/current_plan");
  assert.deepEqual(plan.body, { plan: null });
  const version = await runCommand(binary.command, ["version", "--long"], { cwd: home });
  assert.match(version.stdout, /^release: v2$/m, "current/bin/chaind is the v2 release");
  if (way === "download-archive") {
    // cosmovisor's unpacker (go-getter v1.7.1) writes tar links as empty files; the archive's bin/chainvisor is a
    // regular file (a script running bin/chaind as chainvisor), so it must come out whole and run.
    const chainvisor = join(home, "cosmovisor", "upgrades", "v2", "bin", "chainvisor");
    const visor = await runCommand(chainvisor, ["version", "--no-app-version"], { cwd: home });
    assert.equal(visor.status, 0, `${chainvisor} version:\n${visor.stdout}\n${visor.stderr}`);
    assert.match(visor.stdout, /^chainvisor version: \S+\n$/, visor.stderr);
  }
  await visor.stop(10_000);
}

for (const way of ["add-upgrade", "download-archive", "download-single-file"] as const) {
  test(`cosmovisor v1.5 upgrades a chaind chain v1 → v2: ${way}`, {
    skip: skipReason(),
    timeout: UPGRADE_TEST_TIMEOUT_MS,
  }, async () => {
    await upgradeUnderCosmovisor(way);
  });
}

function skipReason(): string | false {
  return COSMOVISOR === undefined ? "cosmovisor is not installed (run .ci/install-tools)" : false;
}
