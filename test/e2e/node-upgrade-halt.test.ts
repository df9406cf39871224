// The upgrade halt through `chaind start` as real processes (docs/CONTRACT.md §2.4): governance on a fast chain
// schedules upgrade "v2"; the v1 node halts at its height with the upgrade-halt exit status, the NEEDED
// line and data/upgrade-info.json; restarting v1 halts again at the same place; starting the v2 release
// (CHAIND_RELEASE=v2) applies the upgrade at that height and carries on; the v1 release started again on the
// upgraded state exits 21 with the downgrade line of §2.4. The chain is one started before readiness (genesis
// without vote extensions): v2's handler turns them on from the block after the upgrade's, through FinalizeBlock's
// consensus-parameter update the embedded engine applies, and the validator's signals are recorded from then on.
import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { homePaths, loadGenesis, saveGenesis, setTomlValues } from "../../src/config/index.ts";
import { type DevHome, prepareDevHome } from "../../src/node/dev-chain.ts";
import { scheduleUpgradeByVote } from "../../src/testing/governance.ts";
import { UPGRADE_EXIT_CODES } from "../../src/x/upgrade/errors.ts";
import {
  bannerEndpoints,
  killAllChaind,
  LOOPBACK_PORT_FLAGS,
  latestHeight,
  pollUntil,
  rpcCall,
  runChaind,
  spawnChaind,
  tempDir,
  waitForHeight,
} from "../support/node/chaind.ts";

let dir: Awaited<ReturnType<typeof tempDir>>;
let dev: DevHome;
let userHome: string;

before(async () => {
  dir = await tempDir("chaind-node-upgrade-halt-");
  userHome = join(dir.path, "user");
  // A dev chain for the test: 500 ms blocks, 20 s deposit and voting periods (expedited 10 s) — room for
  // the vote to land on a busy machine; the plan height is counted at the fastest pace (below).
  dev = await prepareDevHome({ home: join(dir.path, "home") });
  const paths = homePaths(dev.home);
  const genesis = await loadGenesis(paths.genesis);
  const appState = structuredClone(genesis.appState ?? {}) as { gov: { params: Record<string, unknown> } };
  appState.gov.params.voting_period = "20s";
  appState.gov.params.max_deposit_period = "20s";
  appState.gov.params.expedited_voting_period = "10s";
  // As a chain made before readiness existed: no vote extensions (enable height 0).
  const consensusParams = structuredClone(genesis.consensusParams);
  consensusParams.abci.voteExtensionsEnableHeight = 0n;
  await saveGenesis(paths.genesis, { ...genesis, consensusParams, appState: appState as never });
  await writeFile(
    paths.configToml,
    setTomlValues(await readFile(paths.configToml, "utf8"), { "consensus.timeout_commit": "500ms" }),
  );
});

after(async () => {
  await killAllChaind();
  await dir?.remove();
});

/** The heights `chaind status --home` reads from the home while no node answers (stdout and stderr as one JSON). */
async function homeHeights(): Promise<{ latest: bigint; committed: bigint }> {
  const status = await runChaind(["status", "--node", "tcp://127.0.0.1:1", "--home", dev.home], { userHome });
  assert.equal(status.code, 0, status.stderr);
  const syncInfo = (
    JSON.parse(status.stdout + status.stderr) as {
      sync_info: { latest_block_height: string; latest_committed_height: string };
    }
  ).sync_info;
  return { latest: BigInt(syncInfo.latest_block_height), committed: BigInt(syncInfo.latest_committed_height) };
}

interface Readiness {
  plan: { name: string } | null;
  height: string;
  validators: { ready: boolean; last_signal_height: string }[];
}
const readiness = async (rest: string): Promise<Readiness> =>
  (await (await fetch(`${rest}/chain/upgrade/v1beta1/readiness`)).json()) as Readiness;
/** The consensus-parameter update block `height` returned (FinalizeBlock), as `block_results` shows it. */
const paramUpdatesAt = async (rpc: string, height: bigint) =>
  (
    await rpcCall<{ consensus_param_updates: Record<string, Record<string, string>> | null }>(rpc, "block_results", {
      height: height.toString(),
    })
  ).consensus_param_updates;

const start = (env?: Record<string, string>) =>
  spawnChaind(["--home", dev.home, "start", ...LOOPBACK_PORT_FLAGS], { userHome, env });

test("a v1 node halts for upgrade v2 with its exit status, halts again on restart, v2 carries on from there, and v1 is refused after it", async () => {
  const validator = dev.keys.find((key) => key.name === "validator")?.address as string;
  let node = start();
  const { rpc, rest } = await bannerEndpoints(node);
  await waitForHeight(rpc, 1n);
  // 80 blocks of at least 500 ms: 40 s or more, so the proposal passes (20 s) before the plan's height.
  const upgradeHeight = (await latestHeight(rpc)) + 80n;
  await scheduleUpgradeByVote({
    rpc,
    rest: rest as string,
    home: dev.home,
    chainId: dev.chainId,
    keyName: "validator",
    address: validator,
    name: "v2",
    height: upgradeHeight,
    title: "upgrade to v2",
    summary: "node e2e",
  });

  // Without vote extensions nobody signals: the plan is there, the validator never signalled.
  const before = await pollUntil(
    async () => {
      const r = await readiness(rest as string);
      return r.plan === null ? undefined : r;
    },
    { what: "plan v2 in the readiness query" },
  );
  assert.equal(before.plan?.name, "v2");
  assert.deepEqual(
    before.validators.map((v) => [v.ready, v.last_signal_height]),
    [[false, "0"]],
  );

  const halted = await node.exited;
  assert.equal(halted.code, UPGRADE_EXIT_CODES.needed, halted.stderr.slice(-3000));
  assert.match(halted.stderr, new RegExp(`UPGRADE "v2" NEEDED at height: ${upgradeHeight}: `));
  const info = JSON.parse(await readFile(homePaths(dev.home).upgradeInfo, "utf8"));
  assert.deepEqual(info, { name: "v2", time: "0001-01-01T00:00:00Z", height: Number(upgradeHeight) });
  // `chaind status --home` after the exit at the halt reports the halt height, as a CometBFT node (which saved block H
  // before executing it) and as cosmovisor v1.6+ needs to switch; the committed height is H-1.
  assert.deepEqual(await homeHeights(), { latest: upgradeHeight, committed: upgradeHeight - 1n });

  // The same binary again: it halts at the same place, having committed nothing of that height.
  const again = await start().exited;
  assert.equal(again.code, UPGRADE_EXIT_CODES.needed, again.stderr.slice(-3000));
  assert.match(again.stderr, new RegExp(`UPGRADE "v2" NEEDED at height: ${upgradeHeight}`));

  // Under a supervisor (DAEMON_NAME in the environment, as cosmovisor passes it on) the halted node stays up,
  // still answering queries, until it is told to stop; `chaind status --home` reads its height meanwhile (the node
  // holds its application state open then: the block store says what is committed).
  const supervised = start({ DAEMON_NAME: "chaind", DAEMON_POLL_INTERVAL: "100ms" });
  const waiting = await bannerEndpoints(supervised);
  await supervised.waitFor(/waiting for the supervisor to stop the node/, { stream: "stderr" });
  assert.equal(supervised.child.exitCode, null, "the node exited instead of waiting for its supervisor");
  const plan = (await (await fetch(`${waiting.rest}/chain/upgrade/v1beta1/current_plan`)).json()) as {
    plan: { name: string };
  };
  assert.equal(plan.plan.name, "v2");
  assert.deepEqual(await homeHeights(), { latest: upgradeHeight, committed: upgradeHeight - 1n });
  supervised.signal("SIGTERM");
  assert.equal((await supervised.exited).code, UPGRADE_EXIT_CODES.needed);

  node = start({ CHAIND_RELEASE: "v2" });
  const resumed = await bannerEndpoints(node);
  assert.match(node.stdout, /\(release v2\)/);
  await waitForHeight(resumed.rpc, upgradeHeight + 1n);
  const applied = (await (await fetch(`${resumed.rest}/chain/upgrade/v1beta1/applied_plan/v2`)).json()) as {
    height: string;
  };
  assert.equal(applied.height, upgradeHeight.toString());
  // v2's handler turned vote extensions on from the next block: the precommit of upgradeHeight + 1 carries the
  // validator's signal, recorded from the extended commit block upgradeHeight + 2 carries.
  await waitForHeight(resumed.rpc, upgradeHeight + 3n);
  const updates = await paramUpdatesAt(resumed.rpc, upgradeHeight);
  assert.deepEqual(updates?.abci, { vote_extensions_enable_height: (upgradeHeight + 1n).toString() });
  assert.ok(updates?.version !== undefined, "the protocol version's update too");
  assert.equal(await paramUpdatesAt(resumed.rpc, upgradeHeight + 1n), null);
  const after = await readiness(resumed.rest as string);
  assert.equal(after.plan, null);
  assert.equal(after.validators.length, 1);
  assert.ok(
    BigInt(after.validators[0]?.last_signal_height ?? "0") >= upgradeHeight + 1n,
    `signals recorded from the enable height on: ${JSON.stringify(after)}`,
  );
  node.signal("SIGTERM");
  assert.equal((await node.exited).code, 0);

  // The v1 release again, on the state v2 upgraded (notes_v1 renamed to notes, legacy deleted): it is refused with
  // docs/CONTRACT.md §2.4's line and exit status 21, before it mounts stores the state no longer has — one line, no stack.
  const downgraded = await start().exited;
  assert.equal(downgraded.code, UPGRADE_EXIT_CODES.wrongBinary, downgraded.stderr.slice(-3000));
  const errorLines = downgraded.stderr.split("\n").filter((line) => line.startsWith("Error:"));
  assert.deepEqual(errorLines, ["Error: wrong app version 1, upgrade handler is missing for v2 upgrade plan"]);
  assert.doesNotMatch(downgraded.stderr, /^\s+at /m, "no stack trace");
  assert.doesNotMatch(downgraded.stderr, /StoreUpgradeError/);

  // Nothing was written: v2 still carries on from where it stopped.
  node = start({ CHAIND_RELEASE: "v2" });
  const again2 = await bannerEndpoints(node);
  await waitForHeight(again2.rpc, upgradeHeight + 2n);
  node.signal("SIGTERM");
  assert.equal((await node.exited).code, 0);
});
