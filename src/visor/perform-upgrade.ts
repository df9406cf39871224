// The switch itself, once the node is down: get the release (staged or downloaded), back up data/, run the new
// release's pre-upgrade, then point `current` at it. `current` moves last, so an aborted upgrade leaves the old
// release in place (cosmovisor switches before pre-upgrade and leaves the new one behind).

import { join } from "node:path";
import { backupData } from "./backup.ts";
import type { VisorConfig } from "./config.ts";
import { downloadUpgrade } from "./download-upgrade.ts";
import { describeError, VisorError } from "./errors.ts";
import { formatGoDuration } from "./go-duration.ts";
import type { RetryPolicy } from "./http-fetch.ts";
import {
  ensureBinary,
  type Layout,
  releaseBinary,
  switchCurrent,
  upgradeDir,
  upgradeDirName,
  upgradeTarget,
} from "./layout.ts";
import type { Logger } from "./log.ts";
import { sleepMs } from "./long-sleep.ts";
import type { VisorMetrics } from "./metrics.ts";
import type { RunningProcess } from "./node-process.ts";
import { resolveBinaryUrl } from "./plan-info.ts";
import { runPreUpgrade } from "./pre-upgrade.ts";
import type { UpgradeStager } from "./stager.ts";
import { describePlan, type UpgradePlan, writeUpgradeInfo } from "./upgrade-info.ts";

/** What {@link performUpgrade} works with. */
export interface UpgradeContext {
  config: VisorConfig;
  layout: Layout;
  log: Logger;
  /** A staging download of the same upgrade under way is waited for instead of starting a second one. */
  stager?: UpgradeStager;
  policy?: RetryPolicy;
  /** Aborted when chainvisor is asked to stop. */
  signal?: AbortSignal;
  /** Told about child processes (pre-upgrade) so signals reach them. */
  onChild?: (running: RunningProcess) => void;
  /** DAEMON_METRICS_ADDR on: told of a download made here. */
  metrics?: VisorMetrics;
}

/**
 * Performs the upgrade to `plan` with the node already stopped. Throws a {@link VisorError} if the upgrade cannot
 * be completed; `current` is then unchanged.
 */
export async function performUpgrade(context: UpgradeContext, plan: UpgradePlan): Promise<void> {
  const { config, layout, log } = context;
  const dirName = upgradeDirName(plan.name);
  const dir = upgradeDir(layout, plan.name);
  const binary = releaseBinary(layout, dir);
  const checkCancelled = () => {
    if (context.signal?.aborted)
      throw new VisorError(`upgrade ${describePlan(plan)} interrupted: chainvisor is stopping`);
  };
  log.info(`upgrading to ${describePlan(plan)}`);
  if (config.restartDelayMs > 0) {
    log.info(`waiting DAEMON_RESTART_DELAY (${formatGoDuration(config.restartDelayMs)})`);
    await sleepMs(config.restartDelayMs);
  }
  checkCancelled();

  await context.stager?.settle(dirName);
  let present: VisorError | undefined;
  try {
    await ensureBinary(binary);
  } catch (error) {
    present = error as VisorError;
  }
  if (present === undefined) log.info(`using the staged release in ${dir}`);
  else if (!config.allowDownloadBinaries) {
    throw new VisorError(`binary not present, downloading disabled: ${present.message}`, {
      details: [
        `install it with \`chainvisor add-upgrade ${plan.name} <path-to-${layout.name}>\` and start chainvisor again,`,
        "or set DAEMON_ALLOW_DOWNLOAD_BINARIES=true to let chainvisor download it from the plan's info",
      ],
    });
  } else {
    log.info("no upgrade binary found, beginning to download it");
    try {
      const source = await resolveBinaryUrl({
        info: plan.info,
        mustHaveChecksum: config.downloadMustHaveChecksum,
        log,
        policy: context.policy,
      });
      await downloadUpgrade({
        layout,
        dirName,
        url: source.url,
        mustHaveChecksum: config.downloadMustHaveChecksum,
        policy: context.policy,
        log,
        maxBytes: config.downloadMaxBytes,
        metrics: context.metrics,
      });
    } catch (error) {
      throw new VisorError(`cannot download binary. ${describeError(error)}`, { cause: error });
    }
    log.info("downloading binary complete");
  }
  checkCancelled();

  if (config.unsafeSkipBackup) log.info("UNSAFE_SKIP_BACKUP is set: no backup of the data directory");
  else await backupData({ dataDir: layout.dataDir, backupDir: config.dataBackupDir, log, signal: context.signal });
  checkCancelled();

  await runPreUpgrade({
    binary,
    cwd: config.home,
    maxRetries: config.preUpgradeMaxRetries,
    retryDelayMs: config.pollIntervalMs,
    log,
    onStart: context.onChild,
  });
  checkCancelled();

  // The per-release copy of the plan is written first, so `current/upgrade-info.json` is right the moment the link moves.
  await writeUpgradeInfo(join(dir, "upgrade-info.json"), plan);
  await switchCurrent(layout, upgradeTarget(dirName));
  log.info(`upgrade ${describePlan(plan)} done: current -> ${upgradeTarget(dirName)}`);
}
