// Staging ahead: as soon as the chain has a plan scheduled, download and verify its release into upgrades/<dir>, so
// that at the halt the switch takes seconds. Used once by `prepare-upgrade` and continuously by `run` when downloads
// are allowed. Failures here are reported, never fatal: the halt-time path downloads again if it must.
import { join } from "node:path";
import type { VisorConfig } from "./config.ts";
import { downloadUpgrade } from "./download-upgrade.ts";
import { errorMessage } from "./errors.ts";
import type { RetryPolicy } from "./http-fetch.ts";
import { hasBinary, type Layout, upgradeDirName } from "./layout.ts";
import type { Logger } from "./log.ts";
import { pollDelayMs } from "./long-sleep.ts";
import type { VisorMetrics } from "./metrics.ts";
import { fetchCurrentPlan, fetchReadiness } from "./node-api.ts";
import { resolveBinaryUrl } from "./plan-info.ts";
import { describePlan, type UpgradePlan } from "./upgrade-info.ts";

/** What staging a plan found or did. */
export type StageOutcome =
  | { status: "no-plan" }
  | { status: "already-staged"; plan: UpgradePlan; dir: string }
  | { status: "staged"; plan: UpgradePlan; dir: string; url: string };

/** Parameters of {@link UpgradeStager}. */
export interface UpgradeStagerParameters {
  config: VisorConfig;
  layout: Layout;
  /** The node's REST API base URL. */
  apiUrl: string;
  log: Logger;
  policy?: RetryPolicy;
  /** After a failed attempt, wait this long before trying the same plan again. */
  retryAfterMs?: number;
  /** DAEMON_METRICS_ADDR on: told what is being staged. */
  metrics?: VisorMetrics;
  /**
   * Only read the plan and tell the metrics whether its release is in place; never download (chainvisor run with
   * DAEMON_ALLOW_DOWNLOAD_BINARIES off and DAEMON_METRICS_ADDR on).
   */
  watchOnly?: boolean;
}

/** Stages the releases of scheduled plans; one download per upgrade directory at a time. */
export class UpgradeStager {
  readonly #parameters: UpgradeStagerParameters;
  readonly #inFlight = new Map<string, Promise<StageOutcome>>();
  readonly #lastFailure = new Map<string, number>();
  #timer: NodeJS.Timeout | undefined;
  #polling: Promise<void> | undefined;
  #apiReachable: boolean | undefined;
  #announced = new Set<string>();
  /** The last readiness line logged, so it is said again only when it changes. */
  #lastReadiness: string | undefined;

  constructor(parameters: UpgradeStagerParameters) {
    this.#parameters = parameters;
  }

  /** Reads the node's current plan once and stages its release; throws what went wrong. */
  async pollOnce(): Promise<StageOutcome> {
    const { plan } = await fetchCurrentPlan(this.#parameters.apiUrl);
    if (plan === null) return { status: "no-plan" };
    return this.stagePlan(plan);
  }

  /** Stages one plan's release (joining a download of the same upgrade already under way). */
  stagePlan(plan: UpgradePlan): Promise<StageOutcome> {
    const dirName = upgradeDirName(plan.name);
    const running = this.#inFlight.get(dirName);
    if (running !== undefined) return running;
    const work = this.#stage(plan, dirName).finally(() => this.#inFlight.delete(dirName));
    this.#inFlight.set(dirName, work);
    return work;
  }

  /** Waits for a staging download of this upgrade directory, if one is under way (its failure is ignored). */
  async settle(dirName: string): Promise<void> {
    await this.#inFlight.get(dirName)?.catch(() => undefined);
  }

  /** Polls the node's plan every `intervalMs` in the background until {@link stop}. */
  start(intervalMs: number): void {
    const tick = () => {
      this.#polling = this.#backgroundPoll().finally(() => {
        if (this.#timer !== undefined) this.#timer = setTimeout(tick, pollDelayMs(intervalMs));
      });
    };
    this.#timer = setTimeout(tick, 0);
  }

  /** Stops polling and waits for a poll in progress. */
  async stop(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#polling;
  }

  async #stage(plan: UpgradePlan, dirName: string): Promise<StageOutcome> {
    const { config, layout, log } = this.#parameters;
    const dir = join(layout.upgradesDir, dirName);
    if (await hasBinary(layout, dir)) {
      this.#parameters.metrics?.planStaged(plan);
      return { status: "already-staged", plan, dir };
    }
    log.info(`staging the release of upgrade ${describePlan(plan)} ahead of the halt`);
    const metrics = this.#parameters.metrics;
    metrics?.setPlan(plan);
    if (metrics?.state !== "switching") metrics?.setState("staging");
    const source = await resolveBinaryUrl({
      info: plan.info,
      mustHaveChecksum: config.downloadMustHaveChecksum,
      log,
      policy: this.#parameters.policy,
    });
    await downloadUpgrade({
      layout,
      dirName,
      url: source.url,
      mustHaveChecksum: config.downloadMustHaveChecksum,
      policy: this.#parameters.policy,
      log,
      maxBytes: config.downloadMaxBytes,
      metrics,
    });
    if (metrics?.state === "staging") metrics.setState("watching");
    metrics?.planStaged(plan);
    log.info(`upgrade ${describePlan(plan)} is staged and verified in ${dir}`);
    return { status: "staged", plan, dir, url: source.url };
  }

  // Once the release is staged this node is ready; the operator also wants to know about the others: the node's
  // readiness query (recorded from every validator's vote extensions) says how much of the network is.
  async #reportReadiness(plan: UpgradePlan): Promise<void> {
    const readiness = await fetchReadiness(this.#parameters.apiUrl);
    if (readiness === undefined || readiness.plan !== plan.name) return;
    const line = `staged ${plan.name}; network ${readiness.readyValidators}/${readiness.validators} ready (${readiness.readyFraction} of voting power)`;
    if (line === this.#lastReadiness) return;
    this.#lastReadiness = line;
    this.#parameters.log.info(line);
  }

  async #backgroundPoll(): Promise<void> {
    const { log } = this.#parameters;
    let plan: UpgradePlan | null;
    try {
      plan = (await fetchCurrentPlan(this.#parameters.apiUrl)).plan;
      if (this.#apiReachable === false) log.info("the node's REST API answers again; staging ahead resumes");
      this.#apiReachable = true;
    } catch (error) {
      // Normal while the node starts or stops; said once, not every few seconds.
      if (this.#apiReachable !== false)
        log.info(`staging ahead: cannot read the node's plan yet (${errorMessage(error)})`);
      this.#apiReachable = false;
      return;
    }
    if (plan === null) {
      if (this.#parameters.watchOnly === true) this.#parameters.metrics?.setPlan(undefined);
      return;
    }
    if (this.#parameters.watchOnly === true) {
      const { layout, metrics } = this.#parameters;
      if (await hasBinary(layout, join(layout.upgradesDir, upgradeDirName(plan.name)))) metrics?.planStaged(plan);
      else metrics?.setPlan(plan);
      return;
    }
    const key = `${plan.name}\n${plan.height}\n${plan.info}`;
    const failedAt = this.#lastFailure.get(key);
    if (failedAt !== undefined && Date.now() - failedAt < (this.#parameters.retryAfterMs ?? 60_000)) return;
    try {
      const outcome = await this.stagePlan(plan);
      this.#lastFailure.delete(key);
      if (outcome.status === "already-staged" && !this.#announced.has(key)) {
        log.info(`upgrade ${describePlan(plan)} is already staged in ${outcome.dir}`);
      }
      this.#announced.add(key);
      await this.#reportReadiness(plan);
    } catch (error) {
      this.#lastFailure.set(key, Date.now());
      log.warn(`staging upgrade ${describePlan(plan)} ahead failed (will retry; not fatal): ${errorMessage(error)}`);
      this.#parameters.metrics?.setState("failed");
    }
  }
}
