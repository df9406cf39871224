// Upgrade readiness across four validators behind real CometBFT v0.38 (vote extensions on from height 1, as
// `chaind init` makes the genesis), each node's chaind under its own chainvisor. Governance schedules v2 far ahead;
// then one validator after another gets the v2 release staged in its chainvisor/upgrades/v2/bin/chaind, and the
// readiness query (REST, on every node) goes 0 → ¼ → ½ → ¾ → 1 of the voting power, each within a few blocks: every
// precommit's signed extension reaches state through the next proposer's block, checked by all four in
// ProcessProposal. Skipped, with the reason printed, when cometbft or a chaind command it drives is missing.
import assert from "node:assert/strict";
import { chmod, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { latestHeight, startTestnet, stopTestnet, type Testnet, waitUntil } from "../../scripts/testnet/index.ts";
import { cliTx, cosmjsVoteYes, restGet, waitForTx } from "./testnet-support/chain-client.ts";
import { testnetSkipReason } from "./testnet-support/requirements.ts";
import { sourceReleaseArchive } from "./testnet-support/source-release.ts";

const TX_FLAGS = ["--from", "--node", "--chain-id", "--fees", "--yes"];
const skip = await testnetSkipReason("testnet readiness", [
  {
    path: ["tx", "upgrade", "software-upgrade"],
    options: [...TX_FLAGS, "--upgrade-height", "--deposit", "--title", "--summary", "--no-validate"],
  },
  { path: ["query", "upgrade", "readiness"] },
]);

const VOTING_PERIOD_SECONDS = 10;

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
    const submitted = await cliTx(network, proposer, [
      "upgrade",
      "software-upgrade",
      "v2",
      "--title",
      "Upgrade to v2",
      "--summary",
      "readiness",
      "--deposit",
      "10000000stake",
      "--upgrade-height",
      String(height),
      "--no-validate",
    ]);
    assert.equal((await waitForTx(proposer, String(submitted.txhash))).code, 0);
    const votes = await Promise.all(network.nodes.map((node) => cosmjsVoteYes(network, node, 1n)));
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
    // Every node records the same: the signals are state.
    const all = await Promise.all(network.nodes.map((node) => readiness(node)));
    for (const r of all) assert.equal(r.ready_fraction, "1.000000000000000000");
  } finally {
    if (net !== undefined) await stopTestnet(net);
    await rm(dir, { recursive: true, force: true });
  }
});
