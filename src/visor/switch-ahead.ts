// DAEMON_SWITCH_AHEAD: once the scheduled plan's release is staged, ask it (`version --long --output json`) whether
// it carries the release the node runs now; if so, pick a random moment within DAEMON_SWITCH_AHEAD_WINDOW and, when
// it comes and the plan's height is still more than DAEMON_SWITCH_AHEAD_GUARD blocks away, tell the run loop to
// restart the node on that release in the in-place mode (src/visor/run-loop.ts does the restart, the backup and the
// fall back). Everything here is advice: a failure is logged and the halt path stays in charge.
import { execFile } from "node:child_process";
import { readFile, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { VisorConfig } from "./config.ts";
import { errorCode, errorMessage, VisorError } from "./errors.ts";
import { formatGoDuration } from "./go-duration.ts";
import { hasBinary, type Layout, releaseBinary, upgradeDir, upgradeDirName } from "./layout.ts";
import type { Logger } from "./log.ts";
import { fetchCurrentPlan } from "./node-api.ts";
import type { UpgradeStager } from "./stager.ts";
import {
  carriesRelease,
  parseVersionReport,
  switchDelayMs,
  tooCloseToHeight,
  type VersionReport,
} from "./switch-ahead-rules.ts";
import { describePlan, type UpgradePlan } from "./upgrade-info.ts";

/** The file in a release directory that says chainvisor runs that release in the in-place mode (switched ahead). */
export const IN_PLACE_MARKER = "in-place-upgrades.json";

/** How long a node restarted ahead may take to commit a block before chainvisor falls back to the old release. */
export const DEFAULT_SWITCH_AHEAD_START_BOUND_MS = 120_000;

/** A restart ahead that is due now. */
export interface SwitchAheadDecision {
  plan: UpgradePlan;
  /** The upgrade's directory name under `upgrades/`. */
  dirName: string;
  /** The release the node runs now and the one it switches to, as their binaries describe themselves. */
  from: VersionReport;
  to: VersionReport;
}

/** Parameters of {@link SwitchAheadScheduler}. */
export interface SwitchAheadSchedulerParameters {
  config: VisorConfig;
  layout: Layout;
  /** The node's REST API base URL (the plan and the height come from it). */
  apiUrl: string;
  log: Logger;
  /** The binary running now (`current/bin/<name>`), re-read at each decision. */
  currentBinary: () => Promise<string>;
  /** A staging download under way is waited for before the release is asked. */
  stager?: UpgradeStager;
  /** Numbers in [0, 1): Math.random unless a test gives a seeded source. */
  random?: () => number;
  /** Clock in milliseconds, for tests. */
  now?: () => number;
}

type PlanState =
  | { kind: "declined" }
  | { kind: "scheduled"; at: number; decision: Omit<SwitchAheadDecision, "plan"> }
  | { kind: "taken" };

/**
 * Watches the node's plan for a release to switch to ahead of its height. {@link poll} is called at every plan poll
 * of the run loop; {@link takeDue} hands over a decision once its moment has come (and only once).
 */
export class SwitchAheadScheduler {
  readonly #parameters: SwitchAheadSchedulerParameters;
  readonly #states = new Map<string, PlanState>();
  /** What was last said about each plan, so the same line is not logged at every poll. */
  readonly #said = new Map<string, string>();
  #due: SwitchAheadDecision | undefined;

  constructor(parameters: SwitchAheadSchedulerParameters) {
    this.#parameters = parameters;
  }

  /** The restart that is due, if any; handed over once. */
  takeDue(): SwitchAheadDecision | undefined {
    const due = this.#due;
    this.#due = undefined;
    if (due !== undefined) this.#states.set(planKey(due.plan), { kind: "taken" });
    return due;
  }

  /** Gives up switching ahead for this plan (a failed restart): the halt path does the switch. */
  decline(plan: UpgradePlan): void {
    this.#states.set(planKey(plan), { kind: "declined" });
  }

  /** One look at the node's plan and height; never throws (problems are logged, the halt path stays). */
  async poll(currentLabel: string): Promise<void> {
    try {
      await this.#poll(currentLabel);
    } catch (error) {
      this.#say("error", `switch ahead: ${errorMessage(error)}`, "warn");
    }
  }

  async #poll(currentLabel: string): Promise<void> {
    const { config, layout, log } = this.#parameters;
    const now = this.#parameters.now ?? Date.now;
    let answer: Awaited<ReturnType<typeof fetchCurrentPlan>>;
    try {
      answer = await fetchCurrentPlan(this.#parameters.apiUrl, 2_000);
    } catch {
      return; // the node starting or stopping: the stager already says so
    }
    const { plan, height } = answer;
    if (plan === null || height === undefined) return;
    const key = planKey(plan);
    const dirName = upgradeDirName(plan.name);
    if (dirName === currentLabel) return; // already running it
    const state = this.#states.get(key);
    if (state?.kind === "declined" || state?.kind === "taken") return;
    const left = plan.height - height;
    if (tooCloseToHeight(plan.height, height, config.switchAheadGuard)) {
      this.#states.set(key, { kind: "declined" });
      this.#due = this.#due !== undefined && planKey(this.#due.plan) === key ? undefined : this.#due;
      log.info(
        `switch ahead: upgrade ${describePlan(plan)} is ${left} blocks away, within DAEMON_SWITCH_AHEAD_GUARD (${config.switchAheadGuard}); not restarting ahead, the switch happens at the halt`,
      );
      return;
    }
    if (state?.kind === "scheduled") {
      if (now() >= state.at && this.#due === undefined) this.#due = { plan, ...state.decision };
      return;
    }
    const dir = upgradeDir(layout, plan.name);
    await this.#parameters.stager?.settle(dirName);
    if (!(await hasBinary(layout, dir))) {
      this.#say(key, `switch ahead: waiting for the release of upgrade ${describePlan(plan)} to be staged in ${dir}`);
      return;
    }
    const [to, from] = await Promise.all([
      readVersionReport(releaseBinary(layout, dir), config.home),
      readVersionReport(await this.#parameters.currentBinary(), config.home),
    ]);
    if (!carriesRelease(to, from)) {
      this.#states.set(key, { kind: "declined" });
      const line = to.releaseLine.map((entry) => `${entry.release} ${entry.version}`).join(", ") || "none listed";
      log.info(
        `switch ahead: the staged release ${to.release} ${to.version} of upgrade ${describePlan(plan)} does not carry the running release ${from.release} ${from.version} (its line: ${line}); the switch happens at the halt`,
      );
      return;
    }
    const delay = switchDelayMs(config.switchAheadWindowMs, this.#parameters.random ?? Math.random);
    this.#states.set(key, { kind: "scheduled", at: now() + delay, decision: { dirName, from, to } });
    log.info(
      `switch ahead: the staged release ${to.release} ${to.version} carries the running ${from.release} ${from.version}; restarting the node on it in the in-place mode in ${formatGoDuration(Math.max(delay, 1))} (within DAEMON_SWITCH_AHEAD_WINDOW ${formatGoDuration(config.switchAheadWindowMs)}), unless the height comes within ${config.switchAheadGuard} blocks of ${plan.height} first`,
    );
    if (delay === 0 && this.#due === undefined) this.#due = { plan, dirName, from, to };
  }

  #say(key: string, line: string, level: "info" | "warn" = "info"): void {
    if (this.#said.get(key) === line) return;
    this.#said.set(key, line);
    this.#parameters.log[level](line);
  }
}

const planKey = (plan: UpgradePlan) => `${plan.name.toLowerCase()}@${plan.height}`;

/**
 * Runs `<binary> version --long --output json` (never through the run loop) and parses it.
 * @example const report = await readVersionReport("/h/chainvisor/upgrades/v2/bin/chaind", "/h")
 */
export function readVersionReport(binary: string, cwd: string, timeoutMs = 60_000): Promise<VersionReport> {
  return new Promise((resolve, reject) => {
    execFile(
      binary,
      ["version", "--long", "--output", "json"],
      { cwd, timeout: timeoutMs, maxBuffer: 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error !== null) {
          const said = stderr.trim().split("\n").at(-1) ?? "";
          reject(
            new VisorError(
              `${binary} version --long --output json failed: ${errorMessage(error)}${said === "" ? "" : ` (${said})`}`,
            ),
          );
          return;
        }
        try {
          resolve(parseVersionReport(stdout, binary));
        } catch (parseError) {
          reject(parseError);
        }
      },
    );
  });
}

/** Marks a release directory as run in the in-place mode (written before `current` moves to it ahead). */
export async function markInPlace(releaseDir: string, plan: UpgradePlan, height: bigint | undefined): Promise<void> {
  const record = { plan: plan.name, plan_height: plan.height.toString(), switched_at_height: height?.toString() };
  await writeFile(join(releaseDir, IN_PLACE_MARKER), `${JSON.stringify(record)}\n`, { mode: 0o600 });
}

/** Removes the mark (a fall back to the old release). */
export async function unmarkInPlace(releaseDir: string): Promise<void> {
  await rm(join(releaseDir, IN_PLACE_MARKER), { force: true });
}

/** What the in-place mark of a release directory records: the upgrade it was switched ahead for, and when. */
export interface InPlaceMark {
  plan: string;
  plan_height: string;
  /** The node's height when chainvisor restarted it ahead (absent when the API did not say). */
  switched_at_height?: string;
}

/** The release directory's in-place mark, or undefined when it has none; throws when it cannot be read or parsed. */
export async function readInPlaceMark(releaseDir: string): Promise<InPlaceMark | undefined> {
  const file = join(releaseDir, IN_PLACE_MARKER);
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if (errorCode(error) === "ENOENT") return undefined;
    throw error;
  }
  const expected = `expected {"plan": "<name>", "plan_height": "<height>"}`;
  let parsed: Partial<InPlaceMark> | null;
  try {
    parsed = JSON.parse(text) as Partial<InPlaceMark> | null;
  } catch {
    throw new Error(`${file} is not JSON: ${expected}, got ${JSON.stringify(text.trim().slice(0, 80))}`);
  }
  if (typeof parsed?.plan !== "string" || typeof parsed.plan_height !== "string") {
    throw new Error(`${file}: ${expected}, got ${text.trim().slice(0, 80)}`);
  }
  return {
    plan: parsed.plan,
    plan_height: parsed.plan_height,
    ...(typeof parsed.switched_at_height === "string" ? { switched_at_height: parsed.switched_at_height } : {}),
  };
}

/** Whether chainvisor runs this release in the in-place mode. */
export async function isMarkedInPlace(releaseDir: string): Promise<boolean> {
  return stat(join(releaseDir, IN_PLACE_MARKER)).then(
    () => true,
    () => false,
  );
}
