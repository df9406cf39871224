// The block interval at the upgrade height (issue 32): the in-place switch against the halt-and-switch path, both
// under chainvisor, both in this run, on the embedded engine with the reference upgrade v1 → v2.
//
// Two single-validator chains, each run by chainvisor from the v1 release with v2 staged (`add-upgrade`): one with
// DAEMON_SWITCH_AHEAD=true, which restarts the node on v2 in the in-place mode well before H; one without, which
// halts at H and is switched there. For each, the figure is the longest of the intervals ending at blocks H and H+1
// (block H's header time is set when it is proposed; the work of the switch shows in whichever interval follows it),
// against the median interval of the 20 blocks before H. Target for the in-place switch: ≤ 1.5×.
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setupChainHome } from "../test/e2e/support/chain-home.ts";
import { rpcCall, waitForHeight } from "../test/e2e/support/node-api.ts";
import { stopAll } from "../test/e2e/support/processes.ts";
import { submitSoftwareUpgrade, voteYes, waitForProposalStatus } from "../test/e2e/support/upgrade-flow.ts";
import { chainvisor, currentChaind, startChainvisor } from "../test/e2e/support/visor.ts";
import { sourceReleaseArchive } from "../test/e2e/testnet-support/source-release.ts";
import type { BenchRow } from "./harness.ts";

const TARGET_RATIO = 1.5;
/** Blocks from the plan's passing to H: the restart ahead happens early among them, outside the 20 measured. */
const BLOCKS_AHEAD = 70n;

interface IntervalFigure {
  atUpgradeMs: number;
  medianBeforeMs: number;
}

async function blockTime(rpcUrl: string, height: bigint): Promise<number> {
  const result = (await rpcCall(rpcUrl, "block", { height: height.toString() })) as {
    block: { header: { time: string } };
  };
  return Date.parse(result.block.header.time);
}

/** One chain under chainvisor through the upgrade; the intervals around H. */
async function upgradeInterval(work: string, name: string, switchAhead: boolean): Promise<IntervalFigure> {
  const releases = join(work, "releases");
  const home = join(work, name);
  await mkdir(home, { recursive: true });
  await chainvisor(home, ["init", await sourceReleaseArchive(releases, "v1")]);
  await chainvisor(home, ["add-upgrade", "v2", await sourceReleaseArchive(releases, "v2")]);
  const binary = currentChaind(home);
  const chain = await setupChainHome({
    home,
    chainId: `no-downtime-${name}`,
    binary,
    govPeriod: "4s",
    timeoutCommit: "300ms",
    notes: [{ key: "greeting", value: "hello" }],
    legacy: [{ key: "old", value: "gone after v2" }],
  });
  const visor = startChainvisor(home, {
    DAEMON_POLL_INTERVAL: "100ms",
    CHAINVISOR_PLAN_POLL_INTERVAL: "300ms",
    UNSAFE_SKIP_BACKUP: "true",
    DAEMON_SWITCH_AHEAD: String(switchAhead),
    DAEMON_SWITCH_AHEAD_WINDOW: "1s",
    DAEMON_SWITCH_AHEAD_GUARD: "30",
  });
  const start = await waitForHeight(chain.rpcUrl, 3, 60_000);
  const height = start + BLOCKS_AHEAD;
  const proposal = await submitSoftwareUpgrade(binary, chain, { name: "v2", height, info: "" });
  await voteYes(binary, chain, proposal.id);
  await waitForProposalStatus(chain, proposal.id, "PROPOSAL_STATUS_PASSED", 60_000);
  await waitForHeight(chain.rpcUrl, height + 2n, 300_000);
  const times: number[] = [];
  for (let h = height - 21n; h <= height + 1n; h++) times.push(await blockTime(chain.rpcUrl, h));
  await visor.stop();
  // times[i] is block height-21+i: the interval ending at block b is times[b] - times[b-1].
  const intervals = times.slice(1).map((t, i) => t - (times[i] as number));
  const before = intervals.slice(0, 20).sort((a, b) => a - b);
  return {
    atUpgradeMs: Math.max(intervals[20] as number, intervals[21] as number),
    medianBeforeMs: ((before[9] as number) + (before[10] as number)) / 2,
  };
}

/** Runs the benchmark: the in-place switch, then the halt-and-switch path. */
export async function run(): Promise<BenchRow[]> {
  const work = await mkdtemp(join(tmpdir(), "chaind-no-downtime-bench-"));
  try {
    const inPlace = await upgradeInterval(work, "in-place", true);
    const halting = await upgradeInterval(work, "halt", false);
    const row = (name: string, figure: IntervalFigure, target: string, met: boolean): BenchRow => ({
      name,
      value: figure.atUpgradeMs,
      baseline: figure.medianBeforeMs,
      unit: "ms",
      target,
      met,
    });
    return [
      row(
        "block interval at the upgrade height, switched ahead (in-place) under chainvisor",
        inPlace,
        "≤ 1.5x the median of the 20 blocks before",
        inPlace.atUpgradeMs <= TARGET_RATIO * inPlace.medianBeforeMs,
      ),
      row(
        "block interval at the upgrade height, halt-and-switch under chainvisor (comparison)",
        halting,
        "none: the path switching ahead removes",
        true,
      ),
    ];
  } finally {
    await stopAll();
    await rm(work, { recursive: true, force: true });
  }
}
