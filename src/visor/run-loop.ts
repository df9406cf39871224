// `chainvisor run`: start the node, watch for an upgrade, switch releases, start again.
import { join } from "node:path";
import { backupData } from "./backup.ts";
import type { VisorConfig } from "./config.ts";
import { describeError, errorMessage, VisorError } from "./errors.ts";
import { formatGoDuration } from "./go-duration.ts";
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from "./http-fetch.ts";
import {
  type CurrentRelease,
  ensureBinary,
  type Layout,
  readCurrentRelease,
  switchCurrent,
  upgradeDir,
  upgradeDirName,
  upgradeTarget,
  visorLayout,
} from "./layout.ts";
import type { Logger } from "./log.ts";
import { sleepMs } from "./long-sleep.ts";
import { VisorMetrics } from "./metrics.ts";
import { fetchCurrentPlan, resolveApiEndpoint } from "./node-api.ts";
import {
  describeExit,
  type ExitStatus,
  exitCodeOf,
  type RunningProcess,
  startProcess,
  stopProcess,
} from "./node-process.ts";
import { performUpgrade } from "./perform-upgrade.ts";
import { UpgradeStager } from "./stager.ts";
import {
  DEFAULT_SWITCH_AHEAD_START_BOUND_MS,
  isMarkedInPlace,
  markInPlace,
  type SwitchAheadDecision,
  SwitchAheadScheduler,
  unmarkInPlace,
} from "./switch-ahead.ts";
import { inPlaceArgs, tooCloseToHeight } from "./switch-ahead-rules.ts";
import { describePlan, readUpgradeInfo, type UpgradePlan } from "./upgrade-info.ts";
import { UpgradeInfoWatcher } from "./watcher.ts";

/** Parameters of {@link runNode}. */
export interface RunNodeParameters {
  config: VisorConfig;
  /** Passed to the node unchanged. */
  args: readonly string[];
  log: Logger;
  policy?: RetryPolicy;
  /** DAEMON_SWITCH_AHEAD: numbers in [0, 1) for the moment within the window (Math.random by default). */
  random?: () => number;
  /** How long a node restarted ahead may take to commit a block before the fall back (default 2 minutes). */
  switchAheadStartBoundMs?: number;
}

/** How long a node that wrote a plan but whose API does not answer may take to exit, when DAEMON_SHUTDOWN_GRACE is unset. */
export const UNREACHABLE_WAIT_MS = 5_000;

/** The signals chainvisor passes on to the node. */
export const FORWARDED_SIGNALS: readonly NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT"];

type LaunchOutcome =
  | { kind: "exited"; status: ExitStatus }
  | { kind: "upgrade"; plan: UpgradePlan }
  /** DAEMON_SWITCH_AHEAD: time to restart the node on a release that carries the running one. */
  | { kind: "switch-ahead"; decision: SwitchAheadDecision; height: bigint }
  /** The node restarted ahead exited or committed no block in time: back to the release it ran before. */
  | { kind: "fall-back"; reason: string }
  /** The node exited while upgrade-info.json held something that is not a usable plan. */
  | { kind: "unusable"; status: ExitStatus; error: unknown };

/**
 * Runs the node under supervision until it exits for a reason other than an upgrade; resolves with the exit code
 * chainvisor should end with (the node's own status, 0 after an upgrade with restarts off, 1 on a failed upgrade).
 * @example process.exit(await runNode({ config: loadConfig(process.env), args: ["start"], log: createLogger() }))
 */
export async function runNode(parameters: RunNodeParameters): Promise<number> {
  return new Supervisor(parameters).run();
}

/** Upgrade heights the node was told to skip (`--unsafe-skip-upgrades 10 20`, `--unsafe-skip-upgrades=10,20`). */
export function skipHeights(args: readonly string[]): Set<bigint> {
  const heights = new Set<bigint>();
  const add = (value: string) => {
    for (const part of value.split(",")) if (/^[0-9]+$/.test(part)) heights.add(BigInt(part));
  };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg.startsWith("--unsafe-skip-upgrades=")) add(arg.slice(arg.indexOf("=") + 1));
    else if (arg === "--unsafe-skip-upgrades") {
      while (i + 1 < args.length && !args[i + 1].startsWith("-")) add(args[++i]);
    }
  }
  return heights;
}

class Supervisor {
  readonly #parameters: RunNodeParameters;
  readonly #layout: Layout;
  readonly #log: Logger;
  readonly #stop = new AbortController();
  /** Cancels staging ahead: aborted on a stop signal, and when the run ends. */
  readonly #stagerStop = new AbortController();
  readonly #skip: Set<bigint>;
  #stopSignal: NodeJS.Signals | undefined;
  #child: RunningProcess | undefined;
  #apiUrl: string | undefined;
  #waitingFor = "";
  /** Since when the node's API has not answered about a due plan (which plan, and when that began). */
  #unreachable: { key: string; since: number } | undefined;
  /** DAEMON_METRICS_ADDR on: chainvisor's metrics. */
  #metrics: VisorMetrics | undefined;
  /** DAEMON_SWITCH_AHEAD on (and the node's API known): finds the moment to restart ahead. */
  #switchAhead: SwitchAheadScheduler | undefined;
  /** When the switch-ahead scheduler last looked (ms), and whether a look is under way. */
  #switchAheadPolledAt = 0;
  #switchAheadPolling = false;
  /** The release running now (`current`'s label), for the scheduler. */
  #currentLabel = "";
  /**
   * Set from a restart ahead until the node on the new release commits a block: what to go back to if it does not.
   */
  #probation:
    | { decision: SwitchAheadDecision; previous: CurrentRelease; fromHeight: bigint; deadline: number }
    | undefined;

  constructor(parameters: RunNodeParameters) {
    this.#parameters = parameters;
    this.#layout = visorLayout(parameters.config.home, parameters.config.name);
    this.#log = parameters.log;
    this.#skip = skipHeights(parameters.args);
  }

  async run(): Promise<number> {
    const { config } = this.#parameters;
    const log = this.#log;
    const onSignal = (signal: NodeJS.Signals) => this.#onSignal(signal);
    for (const signal of FORWARDED_SIGNALS) process.on(signal, onSignal);
    const stagerStop = this.#stagerStop;
    let stager: UpgradeStager | undefined;
    // Downloads off, metrics on: the plan is still read, so the metrics say whether its release is in place
    // (staged by hand with add-upgrade or prepare-upgrade); nothing is downloaded.
    let planWatch: UpgradeStager | undefined;
    let metricsServer: { url: string; close(): Promise<void> } | undefined;
    try {
      if (config.metricsAddr !== undefined) {
        const metrics = new VisorMetrics();
        try {
          metricsServer = await metrics.listen(config.metricsAddr);
        } catch (error) {
          throw new VisorError(
            `cannot serve metrics on ${config.metricsAddr.host}:${config.metricsAddr.port} (DAEMON_METRICS_ADDR): ${errorMessage(error)}`,
            { cause: error },
          );
        }
        this.#metrics = metrics;
        log.info(`serving metrics on ${metricsServer.url}`);
      }
      const metrics = this.#metrics;
      const current = await this.#currentBinary();
      const watcher = new UpgradeInfoWatcher({
        path: this.#layout.upgradeInfoFile,
        log,
        currentRelease: current.label,
      });
      const installedFor = await readUpgradeInfo(join(current.dir, "upgrade-info.json")).catch(() => undefined);
      if (installedFor !== undefined) watcher.markHandled({ ...installedFor, name: installedFor.name.toLowerCase() });

      const endpoint = await resolveApiEndpoint(config, this.#parameters.args);
      if ("disabled" in endpoint) log.info(`not asking the node over REST: ${endpoint.disabled}`);
      else {
        if (endpoint.warning !== undefined) log.warn(`${endpoint.warning}; using ${endpoint.url}`);
        this.#apiUrl = endpoint.url;
        if (config.allowDownloadBinaries) {
          const policy = { ...(this.#parameters.policy ?? DEFAULT_RETRY_POLICY), signal: stagerStop.signal };
          stager = new UpgradeStager({ config, layout: this.#layout, apiUrl: endpoint.url, log, policy, metrics });
          stager.start(config.planPollIntervalMs);
        } else if (metrics !== undefined) {
          planWatch = new UpgradeStager({
            config,
            layout: this.#layout,
            apiUrl: endpoint.url,
            log,
            metrics,
            watchOnly: true,
          });
          planWatch.start(config.planPollIntervalMs);
        }
        if (config.switchAhead) {
          this.#switchAhead = new SwitchAheadScheduler({
            config,
            layout: this.#layout,
            apiUrl: endpoint.url,
            log,
            stager,
            random: this.#parameters.random,
            currentBinary: async () => (await this.#currentBinary()).binary,
          });
        }
      }
      if (config.switchAhead && this.#switchAhead === undefined) {
        log.warn("DAEMON_SWITCH_AHEAD needs the node's REST API (its plan and height); not switching ahead");
      }

      for (;;) {
        const release = await this.#currentBinary();
        this.#currentLabel = release.label;
        const args = await this.#argsFor(release);
        log.info(`running ${release.binary}${args.length > 0 ? ` ${args.join(" ")}` : ""}`);
        const node = await startProcess({ binary: release.binary, args });
        this.#child = node;
        metrics?.nodeStarted();
        // A signal that arrived while the node was being started is passed on now.
        if (this.#stopSignal !== undefined) node.child.kill(this.#stopSignal);
        const outcome = await this.#supervise(node, watcher);
        if (outcome.kind === "unusable") {
          // Maybe the node halted for an upgrade, maybe not: either way an operator must look at the file, and
          // restarting the same release (as "no upgrade is due" would invite) cannot help.
          log.error(
            `the node exited (${describeExit(outcome.status)}) and ${this.#layout.upgradeInfoFile} cannot be used: ${describeError(outcome.error)}`,
          );
          return 1;
        }
        if (outcome.kind === "exited") {
          log.info(`the node exited (${describeExit(outcome.status)}) and no upgrade is due; chainvisor exits too`);
          return exitCodeOf(outcome.status);
        }
        if (outcome.kind === "switch-ahead") {
          await stopProcess(node, config.shutdownGraceMs, log);
          this.#child = undefined;
          await this.#switchAheadTo(outcome.decision, outcome.height, release);
          if (this.#stopSignal !== undefined) return exitCodeOf({ code: null, signal: this.#stopSignal });
          continue;
        }
        if (outcome.kind === "fall-back") {
          await stopProcess(node, config.shutdownGraceMs, log);
          this.#child = undefined;
          await this.#fallBack(outcome.reason);
          if (this.#stopSignal !== undefined) return exitCodeOf({ code: null, signal: this.#stopSignal });
          continue;
        }
        const plan = outcome.plan;
        const haltSeenAt = performance.now();
        metrics?.setPlan(plan);
        metrics?.setState("switching");
        log.info(`upgrade ${describePlan(plan)} detected; daemon shutting down in an attempt to restart`);
        await stopProcess(node, config.shutdownGraceMs, log);
        this.#child = undefined;
        try {
          await performUpgrade(
            {
              config,
              layout: this.#layout,
              log,
              stager,
              policy: { ...(this.#parameters.policy ?? DEFAULT_RETRY_POLICY), signal: this.#stop.signal },
              signal: this.#stop.signal,
              onChild: (running) => {
                this.#child = running;
              },
              metrics,
            },
            plan,
          );
        } catch (error) {
          metrics?.switched("failed");
          metrics?.setState("failed");
          log.error(`upgrade ${describePlan(plan)} failed: ${describeError(error)}`);
          return this.#stopSignal !== undefined ? exitCodeOf({ code: null, signal: this.#stopSignal }) : 1;
        } finally {
          this.#child = undefined;
        }
        watcher.markHandled(plan, upgradeDirName(plan.name));
        metrics?.switched("ok");
        metrics?.setState("watching");
        metrics?.setPlan(undefined);
        if (metrics !== undefined) this.#timeFirstBlock(plan, haltSeenAt, metrics);
        if (this.#stopSignal !== undefined) return exitCodeOf({ code: null, signal: this.#stopSignal });
        if (!config.restartAfterUpgrade) {
          log.info(
            "upgrade done, DAEMON_RESTART_AFTER_UPGRADE is off. Verify the new release and start chainvisor again.",
          );
          return 0;
        }
        log.info("upgrade done, relaunching the node");
      }
    } catch (error) {
      log.error(describeError(error));
      return 1;
    } finally {
      for (const signal of FORWARDED_SIGNALS) process.off(signal, onSignal);
      stagerStop.abort();
      await stager?.stop();
      await planWatch?.stop();
      await metricsServer?.close();
    }
  }

  // In the background, once the node runs the next release: the time from the halt being seen to the plan's height
  // being committed (the new release's first block), read from the node's REST API. Given up when chainvisor stops.
  #timeFirstBlock(plan: UpgradePlan, haltSeenAt: number, metrics: VisorMetrics): void {
    const apiUrl = this.#apiUrl;
    if (apiUrl === undefined) return;
    const signal = this.#stop.signal;
    const poll = async () => {
      while (!signal.aborted) {
        const answer = await fetchCurrentPlan(apiUrl, 2_000).catch(() => undefined);
        if (answer?.height !== undefined && answer.height >= plan.height) {
          metrics.switchTook((performance.now() - haltSeenAt) / 1000);
          return;
        }
        await sleepMs(this.#parameters.config.pollIntervalMs, signal).catch(() => undefined);
      }
    };
    void poll();
  }

  // The node's arguments: those chainvisor was given, plus the in-place flag for a release it switched to ahead
  // (so a restart of chainvisor before the plan's height does not start it plainly, to be refused as an early binary).
  async #argsFor(release: CurrentRelease): Promise<string[]> {
    const given = this.#parameters.args;
    if (!(await isMarkedInPlace(release.dir))) return [...given];
    const args = inPlaceArgs(given);
    if (args !== undefined) return args;
    this.#log.warn(
      `${release.dir} was switched to ahead, but the node's arguments hold no start command to give --in-place-upgrades to`,
    );
    return [...given];
  }

  // The restart ahead, with the node stopped: back up data/ (as before a switch at the height), mark the release
  // as run in the in-place mode, move `current`. The run loop then starts it; #supervise watches for its first
  // block. Anything failing here leaves the old release current and the halt path in charge.
  async #switchAheadTo(decision: SwitchAheadDecision, height: bigint, previous: CurrentRelease): Promise<void> {
    const { config } = this.#parameters;
    const log = this.#log;
    const { plan, dirName, to } = decision;
    const dir = upgradeDir(this.#layout, plan.name);
    try {
      if (config.unsafeSkipBackup) log.info("UNSAFE_SKIP_BACKUP is set: no backup of the data directory");
      else
        await backupData({
          dataDir: this.#layout.dataDir,
          backupDir: config.dataBackupDir,
          log,
          signal: this.#stop.signal,
        });
      await markInPlace(dir, plan, height);
      await switchCurrent(this.#layout, upgradeTarget(dirName));
    } catch (error) {
      await unmarkInPlace(dir).catch(() => undefined);
      this.#switchAhead?.decline(plan);
      log.error(
        `switch ahead to ${to.release} for upgrade ${describePlan(plan)} failed before the restart: ${describeError(error)}; staying on ${previous.label}, the switch happens at the halt`,
      );
      return;
    }
    const boundMs = this.#parameters.switchAheadStartBoundMs ?? DEFAULT_SWITCH_AHEAD_START_BOUND_MS;
    this.#probation = { decision, previous, fromHeight: height, deadline: Date.now() + boundMs };
    log.info(
      `switch ahead: current -> ${upgradeTarget(dirName)}; starting ${to.release} ${to.version} in the in-place mode at height ${height}, ${plan.height - height} blocks before upgrade ${describePlan(plan)}`,
    );
  }

  // The node restarted ahead did not make it: the old release becomes current again (its data is as the new one
  // left it, which ran the old release's rules), and this plan is left to the halt path.
  async #fallBack(reason: string): Promise<void> {
    const probation = this.#probation;
    this.#probation = undefined;
    if (probation === undefined) return;
    const { decision, previous } = probation;
    const log = this.#log;
    log.error(
      `switch ahead: the node on ${decision.to.release} ${decision.to.version} ${reason}; falling back to ${previous.label} (${decision.from.release} ${decision.from.version}), the switch to ${decision.to.release} happens at the halt`,
    );
    this.#switchAhead?.decline(decision.plan);
    await unmarkInPlace(upgradeDir(this.#layout, decision.plan.name)).catch(() => undefined);
    await switchCurrent(this.#layout, previous.target);
  }

  // One switch-ahead look per plan poll interval, in the background (never holding up the exit and upgrade checks).
  #pollSwitchAhead(): void {
    const scheduler = this.#switchAhead;
    if (scheduler === undefined || this.#switchAheadPolling) return;
    if (Date.now() - this.#switchAheadPolledAt < this.#parameters.config.planPollIntervalMs) return;
    this.#switchAheadPolledAt = Date.now();
    this.#switchAheadPolling = true;
    void scheduler.poll(this.#currentLabel).finally(() => {
      this.#switchAheadPolling = false;
    });
  }

  // A switch ahead that is due, checked once more against the guard with a fresh height; undefined to go on.
  async #dueSwitchAhead(): Promise<{ decision: SwitchAheadDecision; height: bigint } | undefined> {
    const decision = this.#switchAhead?.takeDue();
    if (decision === undefined || this.#apiUrl === undefined) return undefined;
    const answer = await fetchCurrentPlan(this.#apiUrl, 2_000).catch(() => undefined);
    const guard = this.#parameters.config.switchAheadGuard;
    if (answer?.height === undefined || tooCloseToHeight(decision.plan.height, answer.height, guard)) {
      this.#switchAhead?.decline(decision.plan);
      this.#log.info(
        `switch ahead: not restarting for upgrade ${describePlan(decision.plan)}: ${answer?.height === undefined ? "the node's height is unknown" : `height ${answer.height} is within DAEMON_SWITCH_AHEAD_GUARD (${guard}) blocks of it`}; the switch happens at the halt`,
      );
      return undefined;
    }
    return { decision, height: answer.height };
  }

  // While on probation: passed once the node reports a height above the one it was restarted at; failed when the
  // bound passes first. Returns the reason of a failure.
  async #probationFailed(watcher: UpgradeInfoWatcher): Promise<string | undefined> {
    const probation = this.#probation;
    if (probation === undefined || this.#apiUrl === undefined) return undefined;
    const answer = await fetchCurrentPlan(this.#apiUrl, 2_000).catch(() => undefined);
    if (answer?.height !== undefined && answer.height > probation.fromHeight) {
      this.#probation = undefined;
      const { plan, dirName, to } = probation.decision;
      watcher.markHandled(plan, dirName);
      this.#log.info(
        `switch ahead: ${to.release} ${to.version} committed height ${answer.height} in the in-place mode; it switches rules at height ${plan.height} without halting`,
      );
      return undefined;
    }
    if (Date.now() < probation.deadline) return undefined;
    const bound = this.#parameters.switchAheadStartBoundMs ?? DEFAULT_SWITCH_AHEAD_START_BOUND_MS;
    return `committed no block within ${formatGoDuration(bound)} (it stayed at height ${answer?.height ?? "unknown"})`;
  }

  async #currentBinary() {
    const release = await readCurrentRelease(this.#layout);
    try {
      await ensureBinary(release.binary);
    } catch (error) {
      throw new VisorError(`current binary is invalid: ${errorMessage(error)}`, { cause: error });
    }
    return release;
  }

  #onSignal(signal: NodeJS.Signals): void {
    this.#log.info(`received ${signal}; passing it to the node and stopping`);
    this.#stopSignal = signal;
    this.#stop.abort();
    // A release being staged ahead is abandoned at once (its temp dir is removed), not awaited.
    this.#stagerStop.abort();
    if (this.#child !== undefined && !this.#child.hasExited()) this.#child.child.kill(signal);
  }

  // Waits for the node to exit or for an upgrade to be due, whichever comes first.
  async #supervise(node: RunningProcess, watcher: UpgradeInfoWatcher): Promise<LaunchOutcome> {
    const { config } = this.#parameters;
    for (;;) {
      const exited = await Promise.race([node.exited, sleepMs(config.pollIntervalMs).then(() => undefined)]);
      if (exited !== undefined) {
        if (this.#stopSignal !== undefined) return { kind: "exited", status: exited };
        if (this.#probation !== undefined) return { kind: "fall-back", reason: `exited (${describeExit(exited)})` };
        // The node may have written the file and exited between two polls: look once more, giving a file that
        // is still being written (unparsable, or empty) a moment to settle. One still unparsable or empty then has no
        // writer left: it cannot be used, which is not "no upgrade is due".
        const plan = await this.#finalCheck(watcher);
        if (plan !== undefined && !this.#skipped(plan, watcher)) return { kind: "upgrade", plan };
        if (plan === undefined && watcher.unusable !== undefined) {
          return { kind: "unusable", status: exited, error: watcher.unusable };
        }
        return { kind: "exited", status: exited };
      }
      if (this.#stopSignal !== undefined) continue;
      const failed = await this.#probationFailed(watcher);
      if (failed !== undefined) return { kind: "fall-back", reason: failed };
      this.#pollSwitchAhead();
      const due = this.#probation === undefined ? await this.#dueSwitchAhead() : undefined;
      if (due !== undefined) return { kind: "switch-ahead", ...due };
      const plan = await watcher.check();
      if (plan === undefined || this.#skipped(plan, watcher)) continue;
      if (await this.#heightReached(plan, node)) return { kind: "upgrade", plan };
    }
  }

  async #finalCheck(watcher: UpgradeInfoWatcher): Promise<UpgradePlan | undefined> {
    const deadline = Date.now() + 2_000;
    for (;;) {
      const plan = await watcher.check();
      if (plan !== undefined || !(watcher.unsettled || watcher.empty) || Date.now() > deadline) return plan;
      await sleepMs(Math.min(this.#parameters.config.pollIntervalMs, 100));
    }
  }

  #skipped(plan: UpgradePlan, watcher: UpgradeInfoWatcher): boolean {
    if (!this.#skip.has(plan.height)) return false;
    this.#log.info(`upgrade ${describePlan(plan)} is skipped (--unsafe-skip-upgrades); not switching`);
    watcher.markHandled(plan);
    return true;
  }

  // A plan in the file while the node still runs (a manual `add-upgrade --upgrade-height`, or a node that stays up
  // after halting) is acted on once the node has committed height H-1, as far as its REST API tells. Without an API
  // it is acted on at once, as cosmovisor would.
  async #heightReached(plan: UpgradePlan, node: RunningProcess): Promise<boolean> {
    if (this.#apiUrl === undefined) return true;
    let reason: string;
    try {
      const answer = await Promise.race([fetchCurrentPlan(this.#apiUrl, 2_000), node.exited.then(() => undefined)]);
      if (answer === undefined) return false; // the node exited: the next round handles it
      if (answer.height !== undefined && answer.height + 1n >= plan.height) return true;
      reason = answer.height === undefined ? "its height is unknown" : `it is at height ${answer.height}`;
    } catch (error) {
      // No answer at all: the node may be halted with its API down, or wedged. It gets the grace to exit on its
      // own, then it is stopped like any node at an upgrade (SIGTERM, SIGKILL after the grace), never waited for
      // forever.
      const key = `${plan.name}@${plan.height}`;
      if (this.#unreachable?.key !== key) this.#unreachable = { key, since: Date.now() };
      const waitMs = this.#parameters.config.shutdownGraceMs || UNREACHABLE_WAIT_MS;
      if (Date.now() - this.#unreachable.since >= waitMs) {
        this.#log.warn(
          `upgrade ${describePlan(plan)} is due, the node is still running and its REST API cannot be reached (${errorMessage(error)}) after ${formatGoDuration(waitMs)}; stopping the node`,
        );
        return true;
      }
      reason = `its REST API cannot be reached (${errorMessage(error)})`;
    }
    const key = `${plan.name}@${plan.height}`;
    if (this.#waitingFor !== key) {
      this.#waitingFor = key;
      this.#log.info(
        `upgrade ${describePlan(plan)} is in upgrade-info.json but the node is still running and ${reason}; waiting until it has committed height ${plan.height - 1n} or exits`,
      );
    }
    return false;
  }
}
