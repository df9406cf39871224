// The paths where an upgrade does not happen, on a real v1 node over loopback (issue 9, docs/CONTRACT.md §2.4, §2.10, §8):
//
//  * a cancel: a `cancel-software-upgrade` proposal voted while the `software-upgrade` proposal is still voting
//    (its voting ends later) removes the plan once both pass; the chain goes past the plan's height on v1;
//  * a skip: a node restarted with `--unsafe-skip-upgrades H` reaches H, clears the plan without marking it done,
//    and goes on; the name can be scheduled again.
//
// The chain runs from this source tree (`node chain/cmd/chaind.mjs`), set up with the operator's commands; every
// command is one docs/UPGRADING.md shows. Ports are picked at run time, processes are stopped, temp dirs removed.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
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
  restAppliedHeight,
  restPlan,
  startSourceNode,
  stillRunning,
  TIMEOUT_COMMIT,
  UPGRADE_TEST_TIMEOUT_MS,
  waitForBlocks,
} from "./support/chain-checks.ts";
import { type ChainHome, chaind, lastSignedHeight, setupChainHome, sourceChaind } from "./support/chain-home.ts";
import { latestHeight, waitForHeight } from "./support/node-api.ts";
import { type ManagedProcess, stopAll } from "./support/processes.ts";
import { submitCancelUpgrade, submitSoftwareUpgrade, voteYes, waitForProposalStatus } from "./support/upgrade-flow.ts";

const binary = sourceChaind("v1");
let work: string;
let chain: ChainHome;
let node: ManagedProcess;

before(async () => {
  work = await mkdtemp(join(tmpdir(), "chaind-upgrade-cancel-skip-"));
  chain = await setupChainHome({
    home: join(work, "home"),
    chainId: "upgrade-cancel-skip",
    binary,
    govPeriod: GOV_PERIOD,
    timeoutCommit: TIMEOUT_COMMIT,
    notes: NOTES,
    legacy: LEGACY,
  });
  node = startSourceNode(chain, "v1");
  await waitForBlocks(chain);
});

after(async () => {
  await stopAll();
  if (work !== undefined) await rm(work, { recursive: true, force: true });
});

test("a cancel proposal voted while the upgrade proposal votes removes the plan; the chain passes H", {
  timeout: UPGRADE_TEST_TIMEOUT_MS,
}, async () => {
  const from = (await latestHeight(chain.rpcUrl)) ?? 0n;
  // docs/CONTRACT.md §2.10: the cancel is submitted while the upgrade proposal is still voting and its voting period ends
  // later, so once both pass the plan is gone. Both must pass before H.
  const height = heightAfter(from, (2 * GOV_PERIOD_MS) / 1000 + 14);
  const upgrade = await submitSoftwareUpgrade(binary, chain, { name: "v2", height, info: "" });
  await voteYes(binary, chain, upgrade.id);
  const cancel = await submitCancelUpgrade(binary, chain);
  await voteYes(binary, chain, cancel.id);
  await waitForProposalStatus(chain, upgrade.id, "PROPOSAL_STATUS_PASSED", PROPOSAL_WAIT_MS);
  await waitForProposalStatus(chain, cancel.id, "PROPOSAL_STATUS_PASSED", PROPOSAL_WAIT_MS);
  const passed = (await latestHeight(chain.rpcUrl)) ?? 0n;
  assert.ok(
    passed < height,
    `the cancel passed at ${passed}, after the plan's height ${height}: the chain is too fast`,
  );

  // The plan was scheduled in between (the state at some height between the two passes holds it) ...
  const plans: string[] = [];
  for (let h = from; h <= passed; h++) {
    const plan = await restPlan(chain, h);
    plans.push(plan === null ? "none" : `${plan.name}@${plan.height}`);
  }
  assert.ok(plans.includes(`v2@${height}`), `the plan was never scheduled: ${plans.join(" ")}`);
  assert.equal(plans.at(-1), "none");
  // ... and is gone now.
  assert.equal(await restPlan(chain), null);
  const none = await chaind(binary, ["query", "upgrade", "plan", "--node", chain.nodeFlag], { allowFailure: true });
  assert.equal(none.status, 1);
  assert.match(none.stderr, /no upgrade scheduled/);

  await waitForHeight(chain.rpcUrl, height + 2n, blocksWaitMs(height + 2n - from), { abortIf: stillRunning(node) });
  assert.equal(existsSync(join(chain.home, "data", "upgrade-info.json")), false, "no halt, so no upgrade-info.json");
  assert.equal(await restAppliedHeight(chain, "v2"), "0");
  assert.doesNotMatch(node.output(), /UPGRADE "v2" NEEDED/);
});

test("--unsafe-skip-upgrades H: the plan due at H is cleared, not marked done, and the chain goes on", {
  timeout: UPGRADE_TEST_TIMEOUT_MS,
}, async () => {
  const from = (await latestHeight(chain.rpcUrl)) ?? 0n;
  // The proposal passes, then the node is restarted with the skip flag (as every validator would), all before H.
  const height = heightAfter(from, (2 * GOV_PERIOD_MS) / 1000 + 10);
  const upgrade = await submitSoftwareUpgrade(binary, chain, { name: "v2", height, info: "" });
  await voteYes(binary, chain, upgrade.id);
  await waitForProposalStatus(chain, upgrade.id, "PROPOSAL_STATUS_PASSED", PROPOSAL_WAIT_MS);
  assert.equal((await restPlan(chain))?.height, String(height));

  await node.stop(15_000, "leader");
  const stoppedAt = await lastSignedHeight(chain.home);
  assert.ok(stoppedAt < height, `the node reached ${stoppedAt} before the restart, plan height ${height}`);
  node = startSourceNode(chain, "v1", ["--unsafe-skip-upgrades", String(height)]);

  await waitForHeight(chain.rpcUrl, height + 2n, blocksWaitMs(height + 2n - from), { abortIf: stillRunning(node) });
  await node.waitForOutput(new RegExp(`UPGRADE "v2" SKIPPED at ${height}`), 60_000);
  assert.equal(await restPlan(chain), null, "a skipped plan is cleared");
  assert.equal(await restAppliedHeight(chain, "v2"), "0", "a skipped plan is not marked done");
  assert.equal(existsSync(join(chain.home, "data", "upgrade-info.json")), false);
  // The name is free again: scheduling v2 once more is accepted.
  const again = await submitSoftwareUpgrade(binary, chain, { name: "v2", height: height + 1000n, info: "" });
  await voteYes(binary, chain, again.id);
  await waitForProposalStatus(chain, again.id, "PROPOSAL_STATUS_PASSED", PROPOSAL_WAIT_MS);
  assert.equal((await restPlan(chain))?.height, String(height + 1000n));
});
