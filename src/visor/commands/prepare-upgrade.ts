// `chainvisor prepare-upgrade [--watch]`: stage the release of the node's scheduled plan now, not at the halt.
import type { VisorConfig } from "../config.ts";
import { describeError, VisorError } from "../errors.ts";
import type { RetryPolicy } from "../http-fetch.ts";
import { visorLayout } from "../layout.ts";
import type { Logger } from "../log.ts";
import { sleepMs } from "../long-sleep.ts";
import { resolveApiEndpoint } from "../node-api.ts";
import { type StageOutcome, UpgradeStager } from "../stager.ts";
import { describePlan } from "../upgrade-info.ts";

/** Options of {@link prepareUpgradeCommand}. */
export interface PrepareUpgradeOptions {
  /** Keep polling (every CHAINVISOR_PLAN_POLL_INTERVAL) until a plan's release is staged. */
  watch: boolean;
  policy?: RetryPolicy;
}

/**
 * Reads the node's current plan over REST and downloads and verifies its release into `upgrades/<name>`. It does so
 * whatever DAEMON_ALLOW_DOWNLOAD_BINARIES says: running this command is the operator's permission.
 */
export async function prepareUpgradeCommand(
  config: VisorConfig,
  options: PrepareUpgradeOptions,
  log: Logger,
): Promise<void> {
  const endpoint = await resolveApiEndpoint(config);
  if ("disabled" in endpoint) {
    throw new VisorError(`cannot read the node's current plan: ${endpoint.disabled}`, {
      details: ["set CHAINVISOR_API_URL to the node's REST address"],
    });
  }
  if (endpoint.warning !== undefined) log.warn(`${endpoint.warning}; using ${endpoint.url}`);
  const stager = new UpgradeStager({
    config,
    layout: visorLayout(config.home, config.name),
    apiUrl: endpoint.url,
    log,
    policy: options.policy,
  });
  let waitingSaid = false;
  for (;;) {
    let outcome: StageOutcome;
    try {
      outcome = await stager.pollOnce();
    } catch (error) {
      if (!options.watch) throw error;
      log.warn(`${describeError(error)}; trying again`);
      await sleepMs(config.planPollIntervalMs);
      continue;
    }
    if (outcome.status === "staged") return;
    if (outcome.status === "already-staged") {
      log.info(`upgrade ${describePlan(outcome.plan)} is already staged in ${outcome.dir}`);
      return;
    }
    if (!options.watch) {
      log.info("No active upgrade plan found");
      return;
    }
    if (!waitingSaid) log.info("No active upgrade plan found; waiting for one");
    waitingSaid = true;
    await sleepMs(config.planPollIntervalMs);
  }
}
