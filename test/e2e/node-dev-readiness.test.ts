// Readiness on a dev chain (the embedded engine, vote extensions on from height 1) as a real process under a
// supervisor's environment (DAEMON_HOME, DAEMON_NAME), with the readiness gate on (0.67, postpone by 20 blocks):
// governance schedules upgrade "v2"; with no release staged the readiness query shows 0 of the power ready, and at
// the plan's height the plan is postponed (event `upgrade_postponed` in that block, the log line) while the node
// keeps producing blocks; once the v2 release is staged under $DAEMON_HOME/cosmovisor/upgrades/v2/bin the query
// shows 1, and the node halts for v2 at a postponed height.
import assert from "node:assert/strict";
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { homePaths, loadGenesis, saveGenesis, setTomlValues } from "../../src/config/index.ts";
import { type DevHome, prepareDevHome } from "../../src/node/dev-chain.ts";
import { scheduleUpgradeByVote } from "../../src/testing/governance.ts";
import {
  bannerEndpoints,
  killAllChaind,
  LOOPBACK_PORT_FLAGS,
  latestHeight,
  pollUntil,
  rpcCall,
  spawnChaind,
  tempDir,
  waitForHeight,
} from "../support/node/chaind.ts";

const POSTPONE_BLOCKS = 20n;

let dir: Awaited<ReturnType<typeof tempDir>>;
let dev: DevHome;
let userHome: string;
let daemonHome: string;

before(async () => {
  dir = await tempDir("chaind-node-dev-readiness-");
  userHome = join(dir.path, "user");
  daemonHome = join(dir.path, "visor");
  dev = await prepareDevHome({ home: join(dir.path, "home") });
  const paths = homePaths(dev.home);
  const genesis = await loadGenesis(paths.genesis);
  assert.equal(genesis.consensusParams.abci.voteExtensionsEnableHeight, 1n, "a dev chain has vote extensions on");
  const appState = structuredClone(genesis.appState ?? {}) as {
    gov: { params: Record<string, unknown> };
    upgrade?: Record<string, unknown>;
  };
  // 20 s periods: room for the vote to land on a busy machine (the plan height is counted at the fastest pace).
  appState.gov.params.voting_period = "20s";
  appState.gov.params.max_deposit_period = "20s";
  appState.gov.params.expedited_voting_period = "10s";
  appState.upgrade = {
    params: {
      readiness_threshold: "0.670000000000000000",
      readiness_postpone_blocks: POSTPONE_BLOCKS.toString(),
      readiness_max_postponements: 0,
    },
  };
  await saveGenesis(paths.genesis, { ...genesis, appState: appState as never });
  await writeFile(
    paths.configToml,
    setTomlValues(await readFile(paths.configToml, "utf8"), { "consensus.timeout_commit": "500ms" }),
  );
});

after(async () => {
  await killAllChaind();
  await dir?.remove();
});

interface Readiness {
  plan: { name: string; height: string } | null;
  height: string;
  ready_fraction: string;
  validators: { ready: boolean; last_signal_height: string }[];
}

interface BlockResults {
  finalize_block_events: { type: string; attributes: { key: string; value: string }[] }[] | null;
}

test("a dev chain's readiness is 0 without a staged release and 1 with one; with the gate on the plan is postponed and blocks go on", async () => {
  const validator = dev.keys.find((key) => key.name === "validator")?.address as string;
  const node = spawnChaind(["--home", dev.home, "start", ...LOOPBACK_PORT_FLAGS], {
    userHome,
    env: { DAEMON_HOME: daemonHome, DAEMON_NAME: "chaind", DAEMON_POLL_INTERVAL: "100ms" },
  });
  const { rpc, rest } = await bannerEndpoints(node);
  const readiness = async (): Promise<Readiness> =>
    (await (await fetch(`${rest}/chain/upgrade/v1beta1/readiness`)).json()) as Readiness;
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
    summary: "dev readiness e2e",
  });

  // Nothing staged and a v1 binary: the validator signals, but for nothing.
  const scheduled = await pollUntil(
    async () => {
      const r = await readiness();
      return r.plan === null ? undefined : r;
    },
    { what: "plan v2 in the readiness query" },
  );
  const seenAt = BigInt(scheduled.height);
  const notReady = await pollUntil(
    async () => {
      const r = await readiness();
      return BigInt(r.height) > seenAt + 1n ? r : undefined;
    },
    { what: "signals recorded after the plan was scheduled" },
  );
  assert.equal(notReady.plan?.name, "v2");
  assert.equal(notReady.ready_fraction, "0.000000000000000000");
  assert.equal(notReady.validators.length, 1);
  assert.equal(notReady.validators[0]?.ready, false);
  assert.ok(BigInt(notReady.validators[0]?.last_signal_height ?? "0") > seenAt, JSON.stringify(notReady));

  // At the plan's height the gate postpones it: the event is in that block, the node says so and goes on.
  const postponedTo = upgradeHeight + POSTPONE_BLOCKS;
  await node.waitFor(
    new RegExp(
      `upgrade "v2" postponed to height ${postponedTo}: 0\\.000000000000000000 of voting power ready, 0\\.670000000000000000 needed`,
    ),
    { stream: "stderr" },
  );
  // The log line comes from FinalizeBlock; the block's results are served once it is committed, and the node goes on.
  await waitForHeight(rpc, upgradeHeight + 3n);
  assert.equal(node.child.exitCode, null, "the node kept running");
  const results = await rpcCall<BlockResults>(rpc, "block_results", { height: upgradeHeight.toString() });
  const postponed = (results.finalize_block_events ?? []).find((event) => event.type === "upgrade_postponed");
  assert.ok(postponed !== undefined, JSON.stringify(results.finalize_block_events));
  const attributes = Object.fromEntries(postponed.attributes.map((a) => [a.key, a.value]));
  assert.deepEqual(
    { name: attributes.name, height: attributes.height, new_height: attributes.new_height },
    { name: "v2", height: upgradeHeight.toString(), new_height: postponedTo.toString() },
  );
  assert.equal(attributes.ready_fraction, "0.000000000000000000");
  assert.equal((await readiness()).plan?.height, postponedTo.toString());

  // The supervisor stages the v2 release: an executable at $DAEMON_HOME/cosmovisor/upgrades/v2/bin/chaind (the plan
  // Info carries no checksum). The next precommits signal it and the query shows the whole power ready.
  const binDir = join(daemonHome, "cosmovisor", "upgrades", "v2", "bin");
  await mkdir(binDir, { recursive: true });
  await writeFile(join(binDir, "chaind"), "#!/bin/sh\nexit 0\n");
  await chmod(join(binDir, "chaind"), 0o755);
  const ready = await pollUntil(
    async () => {
      const r = await readiness();
      return r.ready_fraction === "1.000000000000000000" ? r : undefined;
    },
    { what: "the staged release counted ready" },
  );
  assert.equal(ready.validators[0]?.ready, true);

  // A ready network halts at the (postponed) height exactly as without the gate; under a supervisor's environment the
  // halted node waits to be stopped.
  const needed = await node.waitFor(/UPGRADE "v2" NEEDED at height: (\d+)/, { stream: "stderr" });
  const haltHeight = BigInt(needed[1] as string);
  assert.ok(
    haltHeight >= postponedTo && (haltHeight - upgradeHeight) % POSTPONE_BLOCKS === 0n,
    `halted at ${haltHeight}, a postponed height of ${upgradeHeight}`,
  );
  node.signal("SIGTERM");
  await node.exited;
});
