// Halt to resumed block production through chainvisor with a staged binary (docs/CONTRACT.md §11: under 10 s).
//
// A v1 chain runs under chainvisor with the v2 release already installed (`chainvisor add-upgrade v2 <archive>`,
// what staging leaves behind). Governance schedules `v2` at H; the figure is the time from the halt (the moment the
// node writes data/upgrade-info.json) to the moment block H — the first block of v2 — is committed. The baseline,
// in the same run on the same node: a plain restart through chainvisor (stop, start, next block).
import { mkdir, mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { lastSignedHeight, setupChainHome } from "../test/e2e/support/chain-home.ts";
import { sleep, waitForHeight } from "../test/e2e/support/node-api.ts";
import { stopAll } from "../test/e2e/support/processes.ts";
import { buildTestReleases } from "../test/e2e/support/releases.ts";
import { submitSoftwareUpgrade, voteYes, waitForProposalStatus } from "../test/e2e/support/upgrade-flow.ts";
import { chainvisor, currentChaind, startChainvisor } from "../test/e2e/support/visor.ts";
import type { BenchRow } from "./harness.ts";

const TARGET_MS = 10_000;

/** Runs the benchmark: one upgrade and one plain restart of the same node. */
export async function run(): Promise<BenchRow[]> {
  const work = await mkdtemp(join(tmpdir(), "chaind-upgrade-bench-"));
  try {
    const built = await buildTestReleases(join(work, "releases"), ["v1", "v2"]);
    const home = join(work, "home");
    await mkdir(home, { recursive: true });
    await chainvisor(home, ["init", built.v1.archive]);
    await chainvisor(home, ["add-upgrade", "v2", built.v2.archive]);
    const binary = currentChaind(home);
    const chain = await setupChainHome({
      home,
      chainId: "upgrade-bench",
      binary,
      govPeriod: "2s",
      timeoutCommit: "300ms",
      notes: [{ key: "greeting", value: "hello" }],
      legacy: [{ key: "old", value: "gone after v2" }],
    });
    // The operator's defaults, except that downloads are off: the release must come from the staged copy.
    const env = { DAEMON_ALLOW_DOWNLOAD_BINARIES: "false", DAEMON_RESTART_AFTER_UPGRADE: "true" };
    let visor = startChainvisor(home, env);
    const start = await waitForHeight(chain.rpcUrl, 3, 60_000);

    // Upgrade: schedule v2 far enough ahead for the proposal to pass, then time halt → block H.
    const height = start + 40n;
    const proposal = await submitSoftwareUpgrade(binary, chain, { name: "v2", height, info: "" });
    await voteYes(binary, chain, proposal.id);
    await waitForProposalStatus(chain, proposal.id, "PROPOSAL_STATUS_PASSED", 30_000);
    const infoFile = join(home, "data", "upgrade-info.json");
    let haltedAt: number | undefined;
    while (haltedAt === undefined) {
      haltedAt = await stat(infoFile).then(
        (s) => s.mtimeMs,
        () => undefined,
      );
      if (haltedAt === undefined) await sleep(10);
    }
    await waitForHeight(chain.rpcUrl, height, 60_000, { intervalMs: 10 });
    const upgradeMs = Date.now() - haltedAt;

    // Baseline: the same node (now v2), stopped and started through chainvisor, to its next block.
    await sleep(1_000);
    const restartStarted = Date.now();
    await visor.stop(30_000, "leader");
    const before = await lastSignedHeight(home);
    visor = startChainvisor(home, env);
    await waitForHeight(chain.rpcUrl, before + 1n, 60_000, { intervalMs: 10 });
    const restartMs = Date.now() - restartStarted;
    await visor.stop();

    return [
      {
        name: "upgrade halt → first v2 block via chainvisor (staged binary)",
        value: upgradeMs,
        baseline: restartMs,
        unit: "ms",
        target: "< 10 s (baseline: plain restart to next block)",
        met: upgradeMs < TARGET_MS,
        ratio: upgradeMs / restartMs,
      },
    ];
  } finally {
    await stopAll();
    await rm(work, { recursive: true, force: true });
  }
}
