// Issue 32's "done when": an upgrade without downtime on the 4-validator real-CometBFT testnet, every chaind under
// its own chainvisor. Three validators run with DAEMON_SWITCH_AHEAD=true, the fourth without. Governance schedules
// v2 at H; the test stages v2 on the three one after the other (`chainvisor add-upgrade`, as an operator would), so
// each restarts ahead on v2 in the in-place mode at its own height; v2 is staged on the fourth from the start, which
// halts at H and is switched there by its chainvisor. The chain passes H without the three halting; the fourth
// catches up; all four have identical headers (so app hashes) up to past H+10. The block intervals around H are
// printed (the issue asks for none over 2x the median; timing is measured, not asserted, as tests never time).
// CometBFT exits when its chaind is restarted; the test plays its supervisor and starts it again. Skipped, with the
// reason printed, when cometbft is missing.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, readlink, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { chainvisorEnv } from "../../scripts/testnet/chainvisor.ts";
import {
  abciAnswers,
  latestHeight,
  logTail,
  rpcResult,
  startCometbft,
  startTestnet,
  stopTestnet,
  type Testnet,
  type TestnetNode,
  waitForHeight,
  waitUntil,
} from "../../scripts/testnet/index.ts";
import { ownOutput, stopProcess } from "../../scripts/testnet/processes.ts";
import { run } from "../../scripts/testnet/tools.ts";
import { CHAINVISOR_ENTRY, type ChainvisorSetup } from "../../scripts/testnet/types.ts";
import { headerDifferences, restGet } from "./testnet-support/chain-client.ts";
import {
  blockTimeMs,
  type GovernanceTiming,
  proposalStatus,
  proposeUpgradeAndVote,
  upgradeHeightAfterVote,
} from "./testnet-support/governance.ts";
import { SOFTWARE_UPGRADE_COMMAND, testnetSkipReason } from "./testnet-support/requirements.ts";
import { sourceReleaseArchive } from "./testnet-support/source-release.ts";

const skip = await testnetSkipReason("testnet switch ahead", [SOFTWARE_UPGRADE_COMMAND]);

const TIMING: GovernanceTiming = { votingPeriodSeconds: 15, timeoutCommitMs: 300 };
const GUARD = 10;
/** Seconds the three restarts ahead may take, one after the other, on a busy machine, counted into H. */
const RESTARTS_SECONDS = 150;

/**
 * How long a CometBFT may take to exit once it has stopped its node. CometBFT stops its node when its ABCI app goes
 * away (chainvisor restarting chaind) and then exits; on a loaded machine one was seen to sit for minutes with every
 * service stopped and its process alive, so nothing restarted it.
 */
const STOPPED_EXIT_MS = 15_000;
const stoppedSince = new Map<TestnetNode, number>();

/** Ends a CometBFT that stopped its node STOPPED_EXIT_MS ago and is still there (its supervisor would). */
async function endStuckCometbft(node: TestnetNode): Promise<void> {
  const cometbft = node.cometbft;
  if (cometbft === undefined || cometbft.hasExited()) return;
  if (!ownOutput(cometbft).includes('msg="Stopping Consensus service"')) return;
  const since = stoppedSince.get(node) ?? Date.now();
  stoppedSince.set(node, since);
  if (Date.now() - since < STOPPED_EXIT_MS) return;
  await stopProcess(cometbft, { signal: "SIGKILL" });
}

/**
 * Starts again every CometBFT that exited once its chaind answers ABCI (as CometBFT's supervisor would), after ending
 * one that stopped its node and did not exit.
 */
async function restartExitedCometbfts(net: Testnet): Promise<void> {
  for (const node of net.nodes) {
    await endStuckCometbft(node);
    if (!node.cometbft?.hasExited()) continue;
    stoppedSince.delete(node);
    if (!(await abciAnswers(node.ports.abci).catch(() => false))) continue;
    await startCometbft(net, node);
  }
}

/** Waits for `what` while keeping the CometBFTs running. */
async function superviseUntil(net: Testnet, what: string, until: () => Promise<boolean>, timeoutMs: number) {
  await waitUntil(
    what,
    async () => {
      await restartExitedCometbfts(net);
      return (await until()) ? true : undefined;
    },
    { timeoutMs },
  );
}

const visorLog = (node: TestnetNode) => readFile(node.chaind?.logFile ?? join(node.home, "chaind.log"), "utf8");

/** The time of each block from `from` to `to` on `node`, in ms. */
async function blockTimes(node: TestnetNode, from: number, to: number): Promise<Map<number, number>> {
  const times = new Map<number, number>();
  for (let height = from; height <= to; height++) {
    const result = await rpcResult(node, `/header?height=${height}`);
    times.set(height, Date.parse((result.header as { time: string }).time));
  }
  return times;
}

test("three validators switch ahead, the fourth halts and is switched at H: the chain passes H", {
  skip,
  timeout: 1_200_000,
}, async (t) => {
  const dir = await mkdtemp(join(tmpdir(), "testnet-switch-ahead-"));
  let net: Testnet | undefined;
  try {
    const v1 = await sourceReleaseArchive(join(dir, "releases"), "v1");
    const v2 = await sourceReleaseArchive(join(dir, "releases"), "v2");
    const setup: ChainvisorSetup = {
      genesis: v1,
      env: {
        DAEMON_POLL_INTERVAL: "100ms",
        CHAINVISOR_PLAN_POLL_INTERVAL: "500ms",
        DAEMON_SWITCH_AHEAD: "true",
        DAEMON_SWITCH_AHEAD_WINDOW: "2s",
        DAEMON_SWITCH_AHEAD_GUARD: String(GUARD),
      },
      nodeEnv: { 3: { DAEMON_SWITCH_AHEAD: "false" } },
    };
    net = await startTestnet({
      dir: join(dir, "net"),
      votingPeriod: `${TIMING.votingPeriodSeconds}s`,
      timeoutCommit: `${TIMING.timeoutCommitMs}ms`,
      chainvisor: setup,
      minHeight: 3,
      log: (line) => t.diagnostic(line),
    });
    const network = net;
    const [proposer] = network.nodes;
    const ahead = network.nodes.slice(0, 3);
    const halting = network.nodes[3] as TestnetNode;
    const stage = (node: TestnetNode) =>
      run(process.execPath, [CHAINVISOR_ENTRY, "add-upgrade", "v2", v2], chainvisorEnv(node.home, setup, node.index));
    await stage(halting);

    const perBlock = await blockTimeMs(network, proposer);
    const current = await latestHeight(proposer);
    const height =
      upgradeHeightAfterVote(current, perBlock, TIMING) + Math.ceil((RESTARTS_SECONDS * 1000) / perBlock) + GUARD;
    t.diagnostic(`~${Math.round(perBlock)} ms per block; at ${current}, upgrade scheduled for ${height}`);
    const { proposal } = await proposeUpgradeAndVote(network, proposer, {
      proposalId: 1n,
      name: "v2",
      height,
      title: "Upgrade to v2",
      summary: "Switch every validator to the v2 release, three of them ahead",
    });
    assert.equal(proposal.code, 0, proposal.log);
    const status = await waitUntil(
      "the end of the voting period",
      async () => {
        const s = await proposalStatus(proposer, 1n);
        return s === "PROPOSAL_STATUS_VOTING_PERIOD" ? undefined : s;
      },
      { timeoutMs: (TIMING.votingPeriodSeconds + 60) * 1000 },
    );
    assert.equal(status, "PROPOSAL_STATUS_PASSED");

    // One after the other: stage v2, then wait until that validator's chainvisor has it running ahead.
    const restartHeights: number[] = [];
    for (const node of ahead) {
      await stage(node);
      await superviseUntil(
        network,
        `${node.moniker} on v2 ahead of H`,
        async () => /switch ahead: v2 2\.0\.0 committed height \d+ in the in-place mode/.test(await visorLog(node)),
        RESTARTS_SECONDS * 1000,
      ).catch((error: unknown) => {
        // What the node and its CometBFT were doing, for a failure that cannot be rerun at will.
        const cometbft = node.cometbft;
        throw new Error(
          `${(error as Error).message}\n--- ${node.moniker} chaind.log:\n${logTail(join(node.home, "chaind.log"))}\n--- cometbft (${cometbft?.hasExited() ? "exited" : "running"}):\n${logTail(join(node.home, "cometbft.log"))}`,
        );
      });
      const match = /starting v2 2\.0\.0 in the in-place mode at height (\d+)/.exec(await visorLog(node));
      restartHeights.push(Number(match?.[1]));
    }
    t.diagnostic(`restarted ahead at heights ${restartHeights.join(", ")} (plan at ${height})`);
    assert.ok(
      restartHeights.every((h) => h < height - GUARD),
      `all ahead of ${height - GUARD}`,
    );
    assert.equal(new Set(restartHeights).size, 3, "at different heights");
    assert.equal(await readlink(join(halting.home, "chainvisor", "current")), "genesis", "the fourth is still on v1");

    // Past H+11 everywhere: the fourth halts at H, its chainvisor switches it, and it catches up.
    await superviseUntil(
      network,
      "every node past H+11",
      async () => {
        const heights = await Promise.all(network.nodes.map((n) => latestHeight(n).catch(() => 0)));
        return heights.every((h) => h >= height + 11);
      },
      600_000,
    );
    for (const node of ahead) {
      assert.equal(existsSync(join(node.home, "data", "upgrade-info.json")), false, `${node.moniker}: no halt`);
      assert.doesNotMatch(await visorLog(node), /NEEDED at height|upgrade "v2" at height \d+ detected/);
    }
    const info = JSON.parse(await readFile(join(halting.home, "data", "upgrade-info.json"), "utf8"));
    assert.equal(Number(info.height), height, "the fourth halted at H");
    assert.match(await visorLog(halting), new RegExp(`upgrade "v2" at height ${height} done: current -> upgrades/v2`));
    for (const node of network.nodes) {
      const { body } = await restGet(node, "/chain/upgrade/v1beta1/applied_plan/v2");
      assert.equal((body as { height: string }).height, String(height), `${node.moniker}: applied at H`);
    }
    // Header H+11 carries the app hash after H+10: every header from H-1 on is the same on all four.
    assert.deepEqual(await headerDifferences(network.nodes, height - 1, height + 11), []);

    // The intervals around H, as the issue asks them printed: the 20 before it, and H's own.
    const times = await blockTimes(proposer, height - 21, height + 1);
    const interval = (h: number) => (times.get(h) as number) - (times.get(h - 1) as number);
    const before = Array.from({ length: 20 }, (_, i) => interval(height - 20 + i)).sort((a, b) => a - b);
    const median = ((before[9] as number) + (before[10] as number)) / 2;
    t.diagnostic(
      `block interval at H: ${interval(height)} ms, at H+1: ${interval(height + 1)} ms; median of the 20 before: ${median} ms (ratio ${(interval(height) / median).toFixed(2)}); largest before: ${before.at(-1)} ms`,
    );
    await waitForHeight(network, height + 12);
  } finally {
    if (net !== undefined) await stopTestnet(net, { graceMs: 10_000 });
    if (process.env.TESTNET_KEEP === "1") t.diagnostic(`kept ${dir}`);
    else await rm(dir, { recursive: true, force: true });
  }
});
