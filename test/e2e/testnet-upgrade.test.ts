// The governance upgrade across four validators behind real CometBFT v0.38, each node's chaind under its own
// chainvisor with the v2 release staged (`chainvisor add-upgrade v2 <archive>`). Governance schedules v2 at H; every
// v1 halts in FinalizeBlock(H) without committing it, chainvisor switches to v2, CometBFT (restarted, as its
// supervisor would) replays FinalizeBlock(H) into v2 through the handshake, and the chain goes on with the same app
// hash everywhere and the new app version in header H+1. Then a full node with only v2, in replay mode, joins
// from genesis by block sync and reaches the same app hash at every height (issue 19). Skipped, with the reason printed, when cometbft or a
// chaind command it drives is missing.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, readlink, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import {
  abciAnswers,
  latestHeight,
  startCometbft,
  startTestnet,
  stopTestnet,
  type Testnet,
  type TestnetNode,
  waitForHeight,
  waitUntil,
} from "../../scripts/testnet/index.ts";
import { headerAt, headerDifferences, restGet } from "./testnet-support/chain-client.ts";
import {
  blockTimeMs,
  type GovernanceTiming,
  proposalStatus,
  proposeUpgradeAndVote,
  upgradeHeightAfterVote,
} from "./testnet-support/governance.ts";
import { BACKUP_AT_UPGRADE_ENV, rehearseFromUpgradeBackup } from "./testnet-support/rehearse-snapshot.ts";
import { startReplayFullNode } from "./testnet-support/replay-node.ts";
import { SOFTWARE_UPGRADE_COMMAND, testnetSkipReason } from "./testnet-support/requirements.ts";
import { sourceReleaseArchive } from "./testnet-support/source-release.ts";

const skip = await testnetSkipReason("testnet upgrade", [SOFTWARE_UPGRADE_COMMAND]);

// The votes are signed before the proposal exists (testnet-support/governance.ts), so the period has to hold only
// their broadcast and a block or two; 15 s leaves room for a crowded machine without making the test much longer.
const TIMING: GovernanceTiming = { votingPeriodSeconds: 15, timeoutCommitMs: 300 };

/**
 * Plays CometBFT's supervisor until `until` holds: a node whose cometbft has exited gets it started again once its
 * chaind (restarted by chainvisor) runs v2 and answers ABCI. Records where each restarted node's log stood.
 */
async function superviseCometbft(
  net: Testnet,
  restartLogStarts: Map<TestnetNode, number>,
  options: { until: () => Promise<boolean>; timeoutMs: number },
): Promise<void> {
  // A restart that fails (CometBFT exiting again at once) ends the wait with its error instead of being retried.
  let failed: unknown;
  await waitUntil(
    "every node past the upgrade",
    async () => {
      for (const node of net.nodes) {
        if (failed !== undefined || !node.cometbft?.hasExited()) continue;
        const link = await readlink(join(node.home, "chainvisor", "current")).catch(() => "");
        if (!link.endsWith("v2") || !(await abciAnswers(node.ports.abci).catch(() => false))) continue;
        restartLogStarts.set(node, (await readFile(node.cometbft.logFile, "utf8")).length);
        await startCometbft(net, node).catch((error: unknown) => {
          failed = error;
        });
      }
      return failed !== undefined || (await options.until()) ? true : undefined;
    },
    { timeoutMs: options.timeoutMs },
  );
  if (failed !== undefined) throw failed;
}

test("a governance upgrade across four validators under chainvisor", { skip, timeout: 600_000 }, async (t) => {
  const dir = await mkdtemp(join(tmpdir(), "testnet-upgrade-"));
  let net: Testnet | undefined;
  try {
    const v1 = await sourceReleaseArchive(join(dir, "releases"), "v1");
    const v2 = await sourceReleaseArchive(join(dir, "releases"), "v2");
    net = await startTestnet({
      dir: join(dir, "net"),
      votingPeriod: `${TIMING.votingPeriodSeconds}s`,
      timeoutCommit: `${TIMING.timeoutCommitMs}ms`,
      chainvisor: {
        genesis: v1,
        upgrades: [{ name: "v2", path: v2 }],
        // The backup at the upgrade is the stopped state at H-1 the rehearsal check snapshots (issue 33).
        env: { DAEMON_POLL_INTERVAL: "100ms", ...BACKUP_AT_UPGRADE_ENV },
      },
      minHeight: 3,
      log: (line) => t.diagnostic(line),
    });
    const network = net;
    const [proposer] = network.nodes;

    // H leaves room for the proposal (a CLI start-up) at this machine's block time, then for as many blocks as the
    // voting period can hold: too early, and the passed proposal could not schedule a plan in the past.
    const perBlock = await blockTimeMs(network, proposer);
    const current = await latestHeight(proposer);
    const haltHeight = upgradeHeightAfterVote(current, perBlock, TIMING);
    t.diagnostic(`~${Math.round(perBlock)} ms per block; at ${current}, upgrade scheduled for ${haltHeight}`);

    await t.test("governance schedules the upgrade", async () => {
      const { proposal, votes } = await proposeUpgradeAndVote(network, proposer, {
        proposalId: 1n,
        name: "v2",
        height: haltHeight,
        title: "Upgrade to v2",
        summary: "Switch every validator to the v2 release",
      });
      assert.equal(proposal.code, 0, `the proposal was accepted: ${proposal.log}`);
      t.diagnostic(`proposal in block ${proposal.height}, votes in blocks ${votes.map((v) => v.height).join(", ")}`);
      for (const [i, vote] of votes.entries()) {
        assert.equal(vote.code, 0, `${network.nodes[i].moniker}'s vote (block ${vote.height}): ${vote.log}`);
      }
      // The end of the voting period, which the proposal's status shows (it leaves VOTING_PERIOD when tallied).
      const status = await waitUntil(
        "the end of the voting period",
        async () => {
          const s = await proposalStatus(proposer, 1n);
          return s === "PROPOSAL_STATUS_VOTING_PERIOD" ? undefined : s;
        },
        { timeoutMs: (TIMING.votingPeriodSeconds + 60) * 1000 },
      );
      assert.equal(status, "PROPOSAL_STATUS_PASSED");
      // A node can be a block behind the proposer, and CometBFT stores a block (its RPC height) before the app has
      // committed it: wait until each node's app answers with the plan (a wrong plan still fails at once).
      for (const node of network.nodes) {
        const plan = await waitUntil(
          `${node.moniker}'s app showing the plan`,
          async () => {
            const { body } = await restGet(node, "/chain/upgrade/v1beta1/current_plan");
            return (body as { plan?: { name: string; height: string } | null }).plan ?? undefined;
          },
          { timeoutMs: 60_000 },
        );
        assert.deepEqual({ name: plan.name, height: plan.height }, { name: "v2", height: String(haltHeight) });
      }
      assert.ok((await latestHeight(proposer)) < haltHeight, "the plan was scheduled before its height");
    });

    // Where each node's CometBFT log stood when it was started again after its halt.
    const restartLogStarts = new Map<TestnetNode, number>();

    await t.test("every node halts at H and its chainvisor switches to v2", async () => {
      const remaining = haltHeight - (await latestHeight(proposer));
      // Each CometBFT exits at the halt; it is started again, as its supervisor would, once chainvisor has the
      // node on v2. A validator that had not yet received block H when the others halted gets it from them only
      // after they are back, and halts then.
      await superviseCometbft(network, restartLogStarts, {
        until: async () => {
          const heights = await Promise.all(network.nodes.map((n) => latestHeight(n).catch(() => 0)));
          return restartLogStarts.size === network.nodes.length && heights.every((h) => h >= haltHeight + 2);
        },
        timeoutMs: remaining * perBlock * 3 + 120_000,
      });
      for (const node of network.nodes) {
        const info = JSON.parse(await readFile(join(node.home, "data", "upgrade-info.json"), "utf8")) as {
          name: string;
          height: number;
        };
        assert.deepEqual({ name: info.name, height: Number(info.height) }, { name: "v2", height: haltHeight });
        assert.equal(node.chaind?.hasExited(), false, "chainvisor itself kept running");
        const visorLog = await readFile(node.chaind!.logFile, "utf8");
        assert.match(
          visorLog,
          new RegExp(`chainvisor upgrade "v2" at height ${haltHeight} done: current -> upgrades/v2`),
        );
        assert.equal(await readlink(join(node.home, "chainvisor", "current")), "upgrades/v2");
        assert.ok(existsSync(join(node.home, "chainvisor", "upgrades", "v2", "bin", "chaind")));
      }
    });

    await t.test("CometBFT replays FinalizeBlock(H) into v2 and the chain goes on, identical everywhere", async () => {
      for (const node of network.nodes) {
        const restartLog = (await readFile(node.cometbft!.logFile, "utf8")).slice(restartLogStarts.get(node));
        assert.match(
          restartLog,
          new RegExp(`ABCI Replay Blocks .*appHeight=${haltHeight - 1} storeHeight=${haltHeight} `),
          `${node.moniker}: v2 answered Info with H-1 while CometBFT had stored H`,
        );
        assert.match(
          restartLog,
          /Replay last block using real app/,
          `${node.moniker}: FinalizeBlock(H) replayed into v2`,
        );
      }
      await waitForHeight(network, haltHeight + 2);
      assert.deepEqual(await headerDifferences(network.nodes, haltHeight - 1, haltHeight + 2), []);
      const atHalt = await headerAt(proposer, haltHeight);
      const after = await headerAt(proposer, haltHeight + 1);
      assert.notEqual(after.appVersion, atHalt.appVersion, "app_version moves in header H+1");
      t.diagnostic(
        `app_version ${atHalt.appVersion} in header ${haltHeight}, ${after.appVersion} in header ${haltHeight + 1}`,
      );
      for (const node of network.nodes) {
        const { status, body } = await restGet(node, "/chain/upgrade/v1beta1/applied_plan/v2");
        assert.equal(status, 200, JSON.stringify(body));
        assert.equal((body as { height: string }).height, String(haltHeight), `${node.moniker}: applied at H`);
        const plan = await restGet(node, "/chain/upgrade/v1beta1/current_plan");
        assert.equal((plan.body as { plan: unknown }).plan, null, `${node.moniker}: no plan left`);
      }
    });

    // Issue 33: `upgrade rehearse` on a snapshot of the state at H-1 gives the app hash the real upgrade gave.
    await t.test("a rehearsal from a snapshot at H-1 gives the real upgrade's app hash", async () => {
      const {
        withBlock: report,
        built,
        allPrecommitted,
      } = await rehearseFromUpgradeBackup(proposer, "v2", haltHeight, dir);
      t.diagnostic(
        `rehearsed on ${report.archive}: app hash ${report.app_hash_after}, built block ${built.app_hash_after}`,
      );
      assert.deepEqual([report.height, report.applied_at], [String(haltHeight - 1), String(haltHeight)]);
      assert.equal(report.app_hash_before, (await headerAt(proposer, haltHeight)).appHash, "the snapshot's state");
      assert.equal(report.app_hash_after, (await headerAt(proposer, haltHeight + 1)).appHash, "header H+1's");
      assert.deepEqual([report.passed, report.determinism.equal], [true, true], report.failures.join("; "));
      // The block built without --block: the real one's time and proposer, and H-1's extended commit as a network
      // where every validator precommitted and kept its readiness would carry it — which this one did, if all four
      // precommits reached the proposer (a slow one may not: then the built block is not the real one).
      assert.deepEqual(
        [built.passed, built.app_hash_before],
        [true, report.app_hash_before],
        built.failures.join("; "),
      );
      if (allPrecommitted) assert.equal(built.app_hash_after, report.app_hash_after, "the built block is the real one");
      else t.diagnostic("not every validator's precommit of H-1 is in block H: the built block differs from it");
    });

    // Issue 19: a node with only the v2 release, in replay mode (app.toml replay-releases), joins from genesis by
    // CometBFT block sync, runs v1's rules up to H-1, switches to v2 in process at H, and matches every header.
    await t.test(
      "a v2-only node in replay mode block-syncs from genesis through H to the same app hashes",
      async () => {
        const tip = await latestHeight(proposer);
        const full = await startReplayFullNode(network, "v2");
        await waitForHeight(network, tip + 1, { nodes: [full], timeoutMs: 240_000 });
        assert.deepEqual(await headerDifferences([proposer, full], 1, tip + 1), [], "every header, so every app hash");
        const log = await readFile(full.chaind!.logFile, "utf8");
        assert.match(log, /switching from release v1 to v2 in process/);
        assert.doesNotMatch(log, /NEEDED at height/, "no upgrade halt");
        assert.equal(existsSync(join(full.home, "data", "upgrade-info.json")), false);
        const { status, body } = await restGet(full, "/chain/upgrade/v1beta1/applied_plan/v2");
        assert.equal(status, 200, JSON.stringify(body));
        assert.equal((body as { height: string }).height, String(haltHeight));
      },
    );
  } finally {
    if (net !== undefined) await stopTestnet(net, { graceMs: 10_000 });
    if (process.env.TESTNET_KEEP === "1") t.diagnostic(`kept ${dir}`);
    else await rm(dir, { recursive: true, force: true });
  }
});
