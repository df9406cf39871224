// Upgrade readiness across four validators behind real CometBFT v0.38 (vote extensions on from height 1, as
// `chaind init` makes the genesis), each node's chaind under its own chainvisor. Governance schedules v2 far ahead;
// then one validator after another gets the v2 release staged in its chainvisor/upgrades/v2/bin/chaind, and the
// readiness query (REST, on every node) goes 0 → ¼ → ½ → ¾ → 1 of the voting power, each within a few blocks: every
// precommit's signed extension reaches state through the next proposer's block, checked by all four in
// ProcessProposal. Skipped, with the reason printed, when cometbft or a chaind command it drives is missing.
import assert from "node:assert/strict";
import { chmod, mkdir, mkdtemp, readFile, readlink, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { chainvisorEnv } from "../../scripts/testnet/chainvisor.ts";
import {
  abciAnswers,
  latestHeight,
  rpcResult,
  startCometbft,
  startTestnet,
  stopTestnet,
  type Testnet,
  type TestnetNode,
  waitForHeight,
  waitUntil,
} from "../../scripts/testnet/index.ts";
import { run } from "../../scripts/testnet/tools.ts";
import { CHAINVISOR_ENTRY } from "../../scripts/testnet/types.ts";
import { headerDifferences, restGet } from "./testnet-support/chain-client.ts";
import { type GovernanceTiming, proposeUpgradeAndVote, upgradeHeightAfterVote } from "./testnet-support/governance.ts";
import { SOFTWARE_UPGRADE_COMMAND, testnetSkipReason } from "./testnet-support/requirements.ts";
import { sourceReleaseArchive } from "./testnet-support/source-release.ts";

const skip = await testnetSkipReason("testnet readiness", [
  SOFTWARE_UPGRADE_COMMAND,
  { path: ["query", "upgrade", "readiness"] },
]);

// The votes are signed before the proposal (testnet-support/governance.ts), so only their broadcast must fit into
// the voting period, however crowded the machine.
const TIMING: GovernanceTiming = { votingPeriodSeconds: 15, timeoutCommitMs: 300 };
const VOTING_PERIOD_SECONDS = TIMING.votingPeriodSeconds;

interface ReadinessJson {
  plan: { name: string } | null;
  height: string;
  ready_power: string;
  total_power: string;
  ready_fraction: string;
  validators: { operator_address: string; power: string; ready: boolean; last_signal_height: string }[];
}

test("readiness goes 0, 1/4, 1/2, 3/4, 1 as validators stage the release", { skip, timeout: 400_000 }, async (t) => {
  const dir = await mkdtemp(join(tmpdir(), "testnet-readiness-"));
  let net: Testnet | undefined;
  try {
    const v1 = await sourceReleaseArchive(join(dir, "releases"), "v1");
    net = await startTestnet({
      dir: join(dir, "net"),
      votingPeriod: `${VOTING_PERIOD_SECONDS}s`,
      timeoutCommit: `${TIMING.timeoutCommitMs}ms`,
      chainvisor: { genesis: v1, env: { DAEMON_POLL_INTERVAL: "100ms" } },
      minHeight: 3,
      log: (line) => t.diagnostic(line),
    });
    const network = net;
    const [proposer] = network.nodes;
    const readiness = async (node = proposer) =>
      (await restGet(node, "/chain/upgrade/v1beta1/readiness")).body as ReadinessJson;

    // Before any plan: every validator signals (empty extensions), nobody is ready.
    const before = await waitUntil("signals recorded", async () => {
      const r = await readiness();
      return r.validators.length === 4 && r.validators.every((v) => v.last_signal_height !== "0") ? r : undefined;
    });
    assert.equal(before.plan, null);
    assert.equal(before.ready_fraction, "0.000000000000000000");
    assert.equal(before.total_power, "400");

    // Far ahead: the test never reaches the height.
    const height = (await latestHeight(proposer)) + 100_000;
    const { proposal, votes } = await proposeUpgradeAndVote(network, proposer, {
      proposalId: 1n,
      name: "v2",
      height,
      title: "Upgrade to v2",
      summary: "readiness",
    });
    assert.equal(proposal.code, 0, proposal.log);
    for (const vote of votes) assert.equal(vote.code, 0, vote.log);
    await waitUntil("the plan", async () => ((await readiness()).plan?.name === "v2" ? true : undefined), {
      timeoutMs: (VOTING_PERIOD_SECONDS + 60) * 1000,
    });
    assert.equal((await readiness()).ready_power, "0");

    for (const [i, node] of network.nodes.entries()) {
      // What `chainvisor add-upgrade` or staging ahead leaves behind: an executable at upgrades/v2/bin/chaind.
      const bin = join(node.home, "chainvisor", "upgrades", "v2", "bin");
      await mkdir(bin, { recursive: true });
      await writeFile(join(bin, "chaind"), "#!/bin/sh\nexit 0\n");
      await chmod(join(bin, "chaind"), 0o755);
      const staged = await latestHeight(proposer);
      const expected = ["0.250000000000000000", "0.500000000000000000", "0.750000000000000000", "1.000000000000000000"][
        i
      ];
      const seen = await waitUntil(
        `readiness ${expected}`,
        async () => {
          const r = await readiness(network.nodes[(i + 1) % 4]);
          return r.ready_fraction === expected ? r : undefined;
        },
        { timeoutMs: 120_000 },
      );
      assert.equal(seen.ready_power, String(100 * (i + 1)));
      const ready = seen.validators.find((v) => v.operator_address === node.operator);
      assert.equal(ready?.ready, true, `${node.moniker} is ready`);
      t.diagnostic(`${node.moniker} staged at ~${staged}; ${expected} seen at ${seen.height}`);
    }
    // Every node records the same: the signals are state (a node may be a block behind: wait for it).
    for (const node of network.nodes) {
      await waitUntil(`${node.moniker} sees 1`, async () =>
        (await readiness(node)).ready_fraction === "1.000000000000000000" ? true : undefined,
      );
    }
  } finally {
    if (net !== undefined) await stopTestnet(net);
    await rm(dir, { recursive: true, force: true });
  }
});

/** Schedules `name` at `height` by a gov proposal every validator votes for; resolves once it passed. */
async function scheduleByGov(network: Testnet, name: string, height: number): Promise<void> {
  const [proposer] = network.nodes;
  const { proposal, votes } = await proposeUpgradeAndVote(network, proposer, {
    proposalId: 1n,
    name,
    height,
    title: `Upgrade to ${name}`,
    summary: "readiness gate",
  });
  assert.equal(proposal.code, 0, proposal.log);
  for (const vote of votes) assert.equal(vote.code, 0, vote.log);
  await waitUntil(
    "the plan",
    async () => {
      const { body } = await restGet(proposer, "/chain/upgrade/v1beta1/current_plan");
      return (body as { plan: { name: string } | null }).plan?.name === name ? true : undefined;
    },
    { timeoutMs: (VOTING_PERIOD_SECONDS + 60) * 1000 },
  );
}

/** Restarts, as CometBFT's supervisor would, each cometbft that exited at the halt once its node runs v2. */
async function superviseCometbft(network: Testnet, until: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const restarted = new Set<TestnetNode>();
  await waitUntil(
    "every node past the upgrade",
    async () => {
      for (const node of network.nodes) {
        if (!node.cometbft?.hasExited()) continue;
        const link = await readlink(join(node.home, "chainvisor", "current")).catch(() => "");
        if (!link.endsWith("v2") || !(await abciAnswers(node.ports.abci).catch(() => false))) continue;
        restarted.add(node);
        await startCometbft(network, node);
      }
      return restarted.size === network.nodes.length && (await until()) ? true : undefined;
    },
    { timeoutMs },
  );
}

test("with the gate at 0.67 and one validator of four ready the plan is postponed, then the chain upgrades", {
  skip,
  timeout: 500_000,
}, async (t) => {
  const dir = await mkdtemp(join(tmpdir(), "testnet-readiness-gate-"));
  let net: Testnet | undefined;
  try {
    const v1 = await sourceReleaseArchive(join(dir, "releases"), "v1");
    const v2 = await sourceReleaseArchive(join(dir, "releases"), "v2");
    const setup = { genesis: v1, env: { DAEMON_POLL_INTERVAL: "100ms" } };
    // Room for three `chainvisor add-upgrade` runs (a CLI start-up each) on a busy machine before the new height.
    const POSTPONE = 80;
    net = await startTestnet({
      dir: join(dir, "net"),
      votingPeriod: `${VOTING_PERIOD_SECONDS}s`,
      timeoutCommit: `${TIMING.timeoutCommitMs}ms`,
      chainvisor: setup,
      minHeight: 3,
      editGenesis: (genesis) => {
        const appState = genesis.app_state as Record<string, unknown>;
        appState.upgrade = {
          params: {
            readiness_threshold: "0.670000000000000000",
            readiness_postpone_blocks: String(POSTPONE),
            readiness_max_postponements: 0,
          },
        };
      },
      log: (line) => t.diagnostic(line),
    });
    const network = net;
    const [proposer] = network.nodes;
    const readiness = async () => (await restGet(proposer, "/chain/upgrade/v1beta1/readiness")).body as ReadinessJson;
    const stage = (node: TestnetNode) =>
      run(process.execPath, [CHAINVISOR_ENTRY, "add-upgrade", "v2", v2], chainvisorEnv(node.home, setup));
    await stage(proposer);

    const start = await latestHeight(proposer);
    const before = Date.now();
    await waitForHeight(network, start + 4, { nodes: [proposer] });
    const perBlock = (Date.now() - before) / 4;
    const height = upgradeHeightAfterVote(await latestHeight(proposer), perBlock, TIMING);
    await scheduleByGov(network, "v2", height);
    t.diagnostic(`v2 scheduled at ${height}; only ${proposer.moniker} staged it`);

    // At the height: not ready (1/4 < 0.67), so no node halts and the plan moves.
    await waitForHeight(network, height + 2, { timeoutMs: 300_000 });
    for (const node of network.nodes) {
      assert.equal(node.chaind?.hasExited(), false, `${node.moniker} did not halt`);
      const { body } = await restGet(node, "/chain/upgrade/v1beta1/current_plan");
      assert.equal((body as { plan: { height: string } }).plan.height, String(height + POSTPONE));
    }
    const results = await rpcResult(proposer, `/block_results?height=${height}`);
    const events = (results.finalize_block_events ?? []) as {
      type: string;
      attributes: { key: string; value: string }[];
    }[];
    const postponed = events.find((e) => e.type === "upgrade_postponed");
    assert.ok(postponed, "upgrade_postponed in the block's events");
    const attrs = Object.fromEntries(postponed.attributes.map((a) => [a.key, a.value]));
    assert.equal(attrs.new_height, String(height + POSTPONE));
    assert.equal(attrs.ready_fraction, "0.250000000000000000");

    // The others get ready; at the new height the network is, and every node halts and switches to v2.
    await Promise.all(network.nodes.slice(1).map((node) => stage(node)));
    const newHeight = height + POSTPONE;
    await waitUntil("the whole network ready", async () =>
      (await readiness()).ready_fraction === "1.000000000000000000" ? true : undefined,
    );
    assert.ok((await latestHeight(proposer)) < newHeight - 1, "ready before the new height");
    await superviseCometbft(
      network,
      async () => {
        const heights = await Promise.all(network.nodes.map((n) => latestHeight(n).catch(() => 0)));
        return heights.every((h) => h >= newHeight + 2);
      },
      400_000,
    );
    assert.deepEqual(await headerDifferences(network.nodes, newHeight - 1, newHeight + 2), [], "identical app hashes");
    for (const node of network.nodes) {
      const { body } = await restGet(node, "/chain/upgrade/v1beta1/applied_plan/v2");
      assert.equal(
        (body as { height: string }).height,
        String(newHeight),
        `${node.moniker}: applied at the new height`,
      );
      const log = await readFile(node.chaind!.logFile, "utf8");
      assert.match(
        log,
        new RegExp(
          `upgrade "v2" postponed to height ${newHeight}: 0.250000000000000000 of voting power ready, 0.670000000000000000 needed`,
        ),
      );
    }
  } finally {
    if (net !== undefined) await stopTestnet(net, { graceMs: 10_000 });
    await rm(dir, { recursive: true, force: true });
  }
});
