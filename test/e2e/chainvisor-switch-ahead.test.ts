// chainvisor's switch ahead (issue 32, docs/CONTRACT.md §13 "No downtime") on real processes over loopback, the
// embedded engine, one validator: chainvisor runs v1 (genesis release) with v2 installed by `add-upgrade` and
// DAEMON_SWITCH_AHEAD=true. Governance schedules v2 at H; chainvisor asks the staged v2 for its release line, sees
// it carries v1, backs up data/ and restarts the node on v2 with --in-place-upgrades at a moment within the window,
// more than DAEMON_SWITCH_AHEAD_GUARD blocks before H. The chain then passes H without halting: no upgrade-info.json
// is written, chainvisor never stops the node for the plan, and v2 is applied at H.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readlink, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { LEGACY, NOTES, restAppliedHeight, stillRunning } from "./support/chain-checks.ts";
import { type ChaindBinary, type ChainHome, chaind, setupChainHome } from "./support/chain-home.ts";
import { latestHeight, waitForHeight } from "./support/node-api.ts";
import { type ManagedProcess, stopAll, tail } from "./support/processes.ts";
import { submitSoftwareUpgrade, voteYes, waitForProposalStatus } from "./support/upgrade-flow.ts";
import { chainvisor, currentChaind, startChainvisor } from "./support/visor.ts";
import { sourceReleaseArchive } from "./testnet-support/source-release.ts";

const GUARD = 10n;
const TIMEOUT_COMMIT_MS = 500;
const GOV_SECONDS = 10;

let work: string;
let chain: ChainHome;
let binary: ChaindBinary;
let visor: ManagedProcess;

before(async () => {
  work = await mkdtemp(join(tmpdir(), "chaind-switch-ahead-"));
  const home = join(work, "home");
  await mkdir(home, { recursive: true });
  const releases = join(work, "releases");
  await chainvisor(home, ["init", await sourceReleaseArchive(releases, "v1")]);
  await chainvisor(home, ["add-upgrade", "v2", await sourceReleaseArchive(releases, "v2")]);
  binary = currentChaind(home);
  chain = await setupChainHome({
    home,
    chainId: "switch-ahead",
    binary,
    govPeriod: `${GOV_SECONDS}s`,
    timeoutCommit: `${TIMEOUT_COMMIT_MS}ms`,
    notes: NOTES,
    legacy: LEGACY,
  });
  visor = startChainvisor(home, {
    DAEMON_SWITCH_AHEAD: "true",
    DAEMON_SWITCH_AHEAD_WINDOW: "5s",
    DAEMON_SWITCH_AHEAD_GUARD: String(GUARD),
    DAEMON_POLL_INTERVAL: "100ms",
    CHAINVISOR_PLAN_POLL_INTERVAL: "500ms",
  });
  await waitForHeight(chain.rpcUrl, 3, 120_000, { abortIf: stillRunning(visor) });
});

after(async () => {
  await stopAll();
  if (work !== undefined) await rm(work, { recursive: true, force: true });
});

test("switch ahead restarts the node on v2 before H, and the chain passes H without halting", {
  timeout: 900_000,
}, async (t) => {
  const from = (await latestHeight(chain.rpcUrl)) ?? 0n;
  // At the fastest pace: the vote's period, the window, and 30 s of slack for a busy machine, before the guard.
  const height = from + BigInt(Math.ceil(((GOV_SECONDS + 5 + 30) * 1000) / TIMEOUT_COMMIT_MS)) + GUARD;
  const proposal = await submitSoftwareUpgrade(binary, chain, { name: "v2", height, info: "" });
  await voteYes(binary, chain, proposal.id);
  await waitForProposalStatus(chain, proposal.id, "PROPOSAL_STATUS_PASSED", 180_000);

  const restart = await visor.waitForOutput(
    /switch ahead: current -> upgrades\/v2; starting v2 2\.0\.0 in the in-place mode at height (\d+)/,
    300_000,
  );
  const restartHeight = BigInt(restart[1] as string);
  t.diagnostic(`restarted ahead at height ${restartHeight}, plan at ${height}`);
  assert.ok(
    restartHeight < height - GUARD,
    `restart at ${restartHeight} is more than ${GUARD} blocks before ${height}`,
  );
  await visor.waitForOutput(/switch ahead: v2 2\.0\.0 committed height \d+ in the in-place mode/, 180_000);
  assert.match(visor.output(), /in-place upgrades: rules of release v1, active on chain/);

  await waitForHeight(chain.rpcUrl, height + 3n, 300_000, { abortIf: stillRunning(visor) });
  assert.equal(await restAppliedHeight(chain, "v2"), height.toString());
  assert.equal(existsSync(join(chain.home, "data", "upgrade-info.json")), false, "no upgrade-info.json was written");
  assert.doesNotMatch(
    visor.output(),
    /UPGRADE "v2" NEEDED|BINARY UPDATED BEFORE TRIGGER|upgrade "v2" at height \d+ detected/,
  );
  assert.equal(await readlink(join(chain.home, "chainvisor", "current")), "upgrades/v2");
  const backups = (await readdir(chain.home)).filter((name) => name.startsWith("data-backup-"));
  assert.equal(backups.length, 1, "data/ was backed up before the restart ahead");
  // The release chainvisor switched to answers as v2 from now on.
  const version = await chaind(binary, ["version", "--long", "-o", "json"]);
  assert.equal(JSON.parse(version.stdout).release, "v2", tail(version.stderr));
  assert.equal(visor.hasExited(), false);
});
