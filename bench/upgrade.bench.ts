// The restart at an upgrade, two ways (docs/CONTRACT.md §11: under 10 s; issue 38 goal 5: ≤ 1.2 s and ≤ 1.3× a plain
// restart).
//
// Through chainvisor: a v1 chain runs under chainvisor with the v2 release already installed (`chainvisor add-upgrade
// v2 <archive>`, what staging leaves behind). Governance schedules `v2` at H; the figure is the time from the halt
// (the moment the node writes data/upgrade-info.json) to the moment block H — the first block of v2 — is committed.
// The baseline, in the same run on the same node: a plain restart through chainvisor (stop, start, next block).
//
// The new release's own start: a v1 chain (the single file) halts at H by itself; copies of that halted home are
// each started with the v2 single file (its cache warm, as after staging), timed from the launch to the node's log
// line for block H — which takes the reference upgrade's store changes (a store renamed, one deleted) and
// migration — against a plain restart of the same home by the same v2 file (launch → its next block). Medians of
// the copies, interleaved, with each launch's CPU time (the node's utime + stime when the block was logged).
import { cp, mkdir, mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ChaindBinary, chaind, lastSignedHeight, setupChainHome } from "../test/e2e/support/chain-home.ts";
import { sleep, waitForHeight } from "../test/e2e/support/node-api.ts";
import { type ManagedProcess, startProcess, stopAll } from "../test/e2e/support/processes.ts";
import { buildTestReleases, type TestRelease } from "../test/e2e/support/releases.ts";
import { submitSoftwareUpgrade, voteYes, waitForProposalStatus } from "../test/e2e/support/upgrade-flow.ts";
import { chainvisor, currentChaind, startChainvisor } from "../test/e2e/support/visor.ts";
import { type BenchRow, loadNow, quickMode } from "./harness.ts";

const TARGET_MS = 10_000;
/** Long enough for the vote to land on a busy machine (at load 20, 2 s closed the vote first), short enough to wait. */
const GOV_PERIOD = "6s";
/** Issue 38 goal 5: the new release's start on the halted home, and its ratio to a plain restart. */
const LAUNCH_TARGET_MS = 1_200;
const LAUNCH_TARGET_RATIO = 1.3;

/** Runs the benchmark: the chainvisor upgrade and its restart, then the new release's own start and its restart. */
export async function run(): Promise<BenchRow[]> {
  const work = await mkdtemp(join(tmpdir(), "chaind-upgrade-bench-"));
  try {
    const built = await buildTestReleases(join(work, "releases"), ["v1", "v2"]);
    const launch = await launchOnHaltedHome(work, built);
    const viaVisor = await viaChainvisor(work, built);
    return [viaVisor, ...launch];
  } finally {
    await stopAll();
    await rm(work, { recursive: true, force: true });
  }
}

async function viaChainvisor(work: string, built: Record<string, TestRelease>): Promise<BenchRow> {
  const loadBefore = loadNow();
  const home = join(work, "home");
  await mkdir(home, { recursive: true });
  await chainvisor(home, ["init", built.v1.archive]);
  await chainvisor(home, ["add-upgrade", "v2", built.v2.archive]);
  const binary = currentChaind(home);
  const chain = await setupChainHome({
    home,
    chainId: "upgrade-bench",
    binary,
    govPeriod: GOV_PERIOD,
    timeoutCommit: "300ms",
    notes: [{ key: "greeting", value: "hello" }],
    legacy: [{ key: "old", value: "gone after v2" }],
  });
  // The operator's defaults, except that downloads are off: the release must come from the staged copy.
  const env = { DAEMON_ALLOW_DOWNLOAD_BINARIES: "false", DAEMON_RESTART_AFTER_UPGRADE: "true" };
  let visor = startChainvisor(home, env);
  const start = await waitForHeight(chain.rpcUrl, 3, 60_000);

  // Upgrade: schedule v2 far enough ahead for the proposal to pass, then time halt → block H.
  const height = start + 50n;
  const proposal = await submitSoftwareUpgrade(binary, chain, { name: "v2", height, info: "" });
  await voteYes(binary, chain, proposal.id);
  await waitForProposalStatus(chain, proposal.id, "PROPOSAL_STATUS_PASSED", 30_000);
  const infoFile = join(home, "data", "upgrade-info.json");
  let haltedAt: number | undefined;
  while (haltedAt === undefined) {
    haltedAt = await stat(infoFile).then(
      (s) => s.mtimeMs,
      () => undefined,
    );
    if (haltedAt === undefined) await sleep(10);
  }
  await waitForHeight(chain.rpcUrl, height, 60_000, { intervalMs: 10 });
  const upgradeMs = Date.now() - haltedAt;

  // Baseline: the same node (now v2), stopped and started through chainvisor, to its next block.
  await sleep(1_000);
  const restartStarted = Date.now();
  await visor.stop(30_000, "leader");
  const before = await lastSignedHeight(home);
  visor = startChainvisor(home, env);
  await waitForHeight(chain.rpcUrl, before + 1n, 60_000, { intervalMs: 10 });
  const restartMs = Date.now() - restartStarted;
  await visor.stop();

  return {
    name: "upgrade halt → first v2 block via chainvisor (staged binary)",
    value: upgradeMs,
    baseline: restartMs,
    unit: "ms",
    target: "< 10 s (baseline: plain restart to next block)",
    met: upgradeMs < TARGET_MS,
    ratio: upgradeMs / restartMs,
    load: { before: loadBefore, after: loadNow() },
  };
}

/** One timed start of a node: wall time from the launch to the log line of block `height`, and its CPU time. */
interface TimedStart {
  ms: number;
  cpuMs: number;
  node: ManagedProcess;
}

async function launchOnHaltedHome(work: string, built: Record<string, TestRelease>): Promise<BenchRow[]> {
  const copies = quickMode() ? 2 : 3;
  const env = { ...process.env, CHAIND_CACHE_DIR: join(work, "cache") } as Record<string, string>;
  const v1: ChaindBinary = { command: built.v1.executable, prefix: [], env };
  const v2: ChaindBinary = { command: built.v2.executable, prefix: [], env };
  const halted = join(work, "halted");
  await mkdir(halted, { recursive: true });
  const chain = await setupChainHome({
    home: halted,
    chainId: "upgrade-launch-bench",
    binary: v1,
    govPeriod: GOV_PERIOD,
    timeoutCommit: "300ms",
    notes: [{ key: "greeting", value: "hello" }],
    legacy: [{ key: "old", value: "gone after v2" }],
  });
  const node = startProcess("chaind v1", v1.command, ["start", "--home", halted], { env });
  const start = await waitForHeight(chain.rpcUrl, 3, 60_000);
  const height = start + 50n;
  const proposal = await submitSoftwareUpgrade(v1, chain, { name: "v2", height, info: "" });
  await voteYes(v1, chain, proposal.id);
  await waitForProposalStatus(chain, proposal.id, "PROPOSAL_STATUS_PASSED", 30_000);
  const exit = await node.exited;
  const info = await readFile(join(halted, "data", "upgrade-info.json"), "utf8").catch(() => undefined);
  if (info === undefined) throw new Error(`v1 exited (${exit.code ?? exit.signal}) without halting for v2`);
  const homes: string[] = [];
  for (let i = 0; i < copies; i++) {
    homes.push(join(work, `halted-${i}`));
    await cp(halted, homes[i] as string, { recursive: true });
  }
  await chaind(v2, ["version"]); // the v2 file's first run unpacks it; staging would have done that

  const loadBefore = loadNow();
  const upgrades: TimedStart[] = [];
  const restarts: TimedStart[] = [];
  for (const home of homes) {
    const upgraded = await timedStart(v2, home, height);
    upgrades.push(upgraded);
    await upgraded.node.stop(30_000, "leader");
    const restarted = await timedStart(v2, home, (await lastSignedHeight(home)) + 1n);
    restarts.push(restarted);
    await restarted.node.stop(30_000, "leader");
  }
  const load = { before: loadBefore, after: loadNow() };
  const upgradeMs = median(upgrades.map((s) => s.ms));
  const restartMs = median(restarts.map((s) => s.ms));
  const cpu = (starts: TimedStart[]) => median(starts.map((s) => s.cpuMs)).toFixed(0);
  const runs = `median of ${copies}${quickMode() ? ", --quick" : ""}; CPU ${cpu(upgrades)} vs ${cpu(restarts)} ms`;
  return [
    {
      name: `v2 single file launched on the halted home → block H (${runs})`,
      value: upgradeMs,
      baseline: restartMs,
      unit: "ms",
      target: `<= ${LAUNCH_TARGET_MS} ms (baseline: plain restart of the same home)`,
      met: upgradeMs <= LAUNCH_TARGET_MS,
      ratio: upgradeMs / restartMs,
      load,
    },
    {
      name: `v2 launch at the upgrade / plain restart (${runs})`,
      value: upgradeMs,
      baseline: restartMs,
      unit: "ms",
      target: `<= ${LAUNCH_TARGET_RATIO}x a plain restart`,
      met: upgradeMs / restartMs <= LAUNCH_TARGET_RATIO,
      ratio: upgradeMs / restartMs,
      load,
    },
  ];
}

/** Starts `binary` on `home` and waits for its log line of block `height`. */
async function timedStart(binary: ChaindBinary, home: string, height: bigint): Promise<TimedStart> {
  const started = performance.now();
  const node = startProcess("chaind", binary.command, [...binary.prefix, "start", "--home", home], {
    env: binary.env,
  });
  await node.waitForOutput(new RegExp(`committed block height=${height}\\b`), 60_000);
  const ms = performance.now() - started;
  return { ms, cpuMs: await cpuMs(node.pid), node };
}

/** utime + stime of a running process in ms (/proc/<pid>/stat, in clock ticks of 10 ms). */
async function cpuMs(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}
