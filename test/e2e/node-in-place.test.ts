// In-place upgrades (issue 32 item 1, docs/CONTRACT.md §13 "No downtime") through `chaind start` as real processes on
// the embedded engine: a v1 chain schedules upgrade "v2" by governance; ahead of the height the v1 node is stopped.
// - v2 started plainly ahead of the height is refused as "BINARY UPDATED BEFORE TRIGGER" (exit 21): today's guard;
// - v2 started ahead with `--in-place-upgrades` runs v1's rules, passes H without halting and without writing
//   data/upgrade-info.json, and has applied v2 at H;
// - the same node, still in that mode, halts (exit 20, upgrade-info.json) for a plan its release line does not carry;
// - app.toml `replay-releases = true` (the mode's older name) is accepted as the same mode.
import assert from "node:assert/strict";
import { access, readFile, writeFile } from "node:fs/promises";
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
  spawnChaind,
  tempDir,
  waitForHeight,
} from "../support/node/chaind.ts";

let dir: Awaited<ReturnType<typeof tempDir>>;
let dev: DevHome;
let userHome: string;

before(async () => {
  dir = await tempDir("chaind-node-in-place-");
  userHome = join(dir.path, "user");
  dev = await prepareDevHome({ home: join(dir.path, "home") });
  const paths = homePaths(dev.home);
  const genesis = await loadGenesis(paths.genesis);
  const appState = structuredClone(genesis.appState ?? {}) as { gov: { params: Record<string, unknown> } };
  // 20 s periods: room for the vote to land on a busy machine; plan heights are counted at the fastest pace.
  appState.gov.params.voting_period = "20s";
  appState.gov.params.max_deposit_period = "20s";
  appState.gov.params.expedited_voting_period = "10s";
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

const start = (extra: string[], env?: Record<string, string>) =>
  spawnChaind(["--home", dev.home, "start", ...LOOPBACK_PORT_FLAGS, ...extra], { userHome, env });

const exists = (file: string) =>
  access(file).then(
    () => true,
    () => false,
  );

/** Schedules `name` at 80 blocks from now by a governance vote and waits until the plan is on chain. */
async function schedule(rpc: string, rest: string, name: string): Promise<bigint> {
  const validator = dev.keys.find((key) => key.name === "validator")?.address as string;
  // 80 blocks of at least 500 ms: 40 s or more, so the proposal passes (20 s) before the plan's height.
  const height = (await latestHeight(rpc)) + 80n;
  await scheduleUpgradeByVote({
    rpc,
    rest,
    home: dev.home,
    chainId: dev.chainId,
    keyName: "validator",
    address: validator,
    name,
    height,
    summary: "in-place e2e",
  });
  await pollUntil(
    async () => {
      const plan = (await (await fetch(`${rest}/chain/upgrade/v1beta1/current_plan`)).json()) as {
        plan: { name: string } | null;
      };
      return plan.plan?.name === name ? true : undefined;
    },
    { what: `plan ${name} on chain`, timeoutMs: 120_000 },
  );
  return height;
}

test("a v2 binary started ahead in the in-place mode passes v2's height without halting, and halts for a plan it does not carry", async () => {
  const info = homePaths(dev.home).upgradeInfo;
  const v1 = start([], { CHAIND_RELEASE: "v1" });
  const first = await bannerEndpoints(v1);
  await waitForHeight(first.rpc, 1n);
  const upgradeHeight = await schedule(first.rpc, first.rest as string, "v2");
  const stoppedAt = await latestHeight(first.rpc);
  v1.signal("SIGTERM");
  await v1.exited;
  assert.ok(stoppedAt < upgradeHeight - 5n, `stopped at ${stoppedAt}, ahead of ${upgradeHeight}`);

  // Without the mode, the guard of docs/CONTRACT.md §2.4 refuses the early binary: the test's contrast.
  const plain = await start([], { CHAIND_RELEASE: "v2" }).exited;
  assert.equal(plain.code, UPGRADE_EXIT_CODES.wrongBinary, plain.stderr.slice(-2000));
  assert.match(plain.stderr, /BINARY UPDATED BEFORE TRIGGER! UPGRADE "v2"/);

  const node = start(["--in-place-upgrades"], { CHAIND_RELEASE: "v2" });
  const { rpc, rest } = await bannerEndpoints(node);
  assert.match(node.stdout, /\(release v2, in-place upgrades: rules of release v1, active on chain\)/);
  await waitForHeight(rpc, upgradeHeight + 3n);
  assert.equal(node.child.exitCode, null, "the node is still running past the height");
  assert.equal(await exists(info), false, "no upgrade-info.json was written");
  const applied = (await (await fetch(`${rest}/chain/upgrade/v1beta1/applied_plan/v2`)).json()) as { height: string };
  assert.equal(applied.height, upgradeHeight.toString());
  assert.doesNotMatch(node.stderr, /BINARY UPDATED BEFORE TRIGGER|NEEDED at height/);

  // A plan this binary's line does not carry: the node halts as any node does.
  const foreignHeight = await schedule(rpc, rest as string, "v3-unknown");
  const halted = await node.exited;
  assert.equal(halted.code, UPGRADE_EXIT_CODES.needed, halted.stderr.slice(-3000));
  assert.match(halted.stderr, new RegExp(`UPGRADE "v3-unknown" NEEDED at height: ${foreignHeight}: `));
  assert.deepEqual(JSON.parse(await readFile(info, "utf8")), {
    name: "v3-unknown",
    time: "0001-01-01T00:00:00Z",
    height: Number(foreignHeight),
  });

  // app.toml's older key names the same mode: the restarted node halts at the same place with the same status.
  const appToml = homePaths(dev.home).appToml;
  await writeFile(appToml, setTomlValues(await readFile(appToml, "utf8"), { "replay-releases": true }));
  const again = start([], { CHAIND_RELEASE: "v2" });
  assert.equal((await again.exited).code, UPGRADE_EXIT_CODES.needed);
  assert.match(again.stdout, /in-place upgrades: rules of release v2, active on chain/);
});
