// Watching data/upgrade-info.json. Each poll stats the file; only when its modification time (or size or inode)
// changed is it read again, and a plan counts as new only if its name and height differ from the last one handled
// and it is not the release already running. So a rewrite of the same plan never triggers twice.
import { readFile, stat } from "node:fs/promises";
import { describeError, errorCode, errorMessage } from "./errors.ts";
import { upgradeDirName } from "./layout.ts";
import type { Logger } from "./log.ts";
import { parseUpgradeInfo, type UpgradePlan } from "./upgrade-info.ts";

/** Parameters of {@link UpgradeInfoWatcher}. */
export interface UpgradeInfoWatcherParameters {
  path: string;
  log: Logger;
  /** Directory name of the running release (`genesis` or the upgrade's), never an upgrade target. */
  currentRelease: string;
  /** How long unparsable content is taken for a file still being written before it is reported. */
  settleMs?: number;
}

/** Detects new upgrade plans in the node's upgrade-info.json. */
export class UpgradeInfoWatcher {
  readonly #parameters: UpgradeInfoWatcherParameters;
  #currentRelease: string;
  #lastHandled: { key: string; height: bigint } | undefined;
  #signature: string | undefined;
  #plan: UpgradePlan | undefined;
  #failingSince: { signature: string; at: number } | undefined;
  #broken: unknown;

  constructor(parameters: UpgradeInfoWatcherParameters) {
    this.#parameters = parameters;
    this.#currentRelease = parameters.currentRelease;
  }

  /** True while the file's current content could not be parsed yet (it may still be being written). */
  get unsettled(): boolean {
    return this.#failingSince !== undefined;
  }

  /** Why the file's current content cannot be used (the parse error, naming the file), or undefined if it can. */
  get broken(): unknown {
    return this.#broken;
  }

  /**
   * Looks at the file; returns the plan (name lower-cased) if it calls for an upgrade, else undefined. Never throws:
   * a broken file is logged and the node keeps running.
   */
  async check(): Promise<UpgradePlan | undefined> {
    const { path, log } = this.#parameters;
    let signature: string;
    try {
      const info = await stat(path);
      if (info.size === 0) return undefined; // being written by a non-atomic writer: look again next time
      signature = `${info.mtimeMs}:${info.size}:${info.ino}`;
    } catch (error) {
      if (errorCode(error) !== "ENOENT") log.warn(`cannot stat ${path}: ${errorMessage(error)}`);
      this.#signature = undefined;
      this.#plan = undefined;
      this.#broken = undefined;
      return undefined;
    }
    if (signature !== this.#signature) {
      try {
        const plan = parseUpgradeInfo(await readFile(path, "utf8"), path);
        this.#plan = { ...plan, name: plan.name.toLowerCase() };
        this.#signature = signature;
        this.#failingSince = undefined;
        this.#broken = undefined;
      } catch (error) {
        this.#plan = undefined;
        this.#broken = error;
        if (this.#failingSince?.signature !== signature) this.#failingSince = { signature, at: Date.now() };
        if (Date.now() - this.#failingSince.at < (this.#parameters.settleMs ?? 5_000)) return undefined;
        // Still broken after the settle time: report it once and stop re-reading until the file changes.
        log.error(`${describeError(error)}\n  the node keeps running; fix or remove the file`);
        this.#signature = signature;
        this.#failingSince = undefined;
        return undefined;
      }
    }
    return this.#plan !== undefined && this.isNew(this.#plan) ? this.#plan : undefined;
  }

  /** Whether a plan differs from the one last handled and from the running release. */
  isNew(plan: UpgradePlan): boolean {
    const key = planKey(plan);
    if (this.#lastHandled?.key === key && this.#lastHandled.height === plan.height) return false;
    if (key === this.#currentRelease) return false;
    // A name that cannot be a directory is still a new plan: the upgrade then fails with the reason, loudly,
    // rather than chainvisor passing the node's halt off as an ordinary exit.
    return true;
  }

  /** Records a plan as handled (upgraded to, or skipped); with `release`, that release is now the running one. */
  markHandled(plan: UpgradePlan, release?: string): void {
    this.#lastHandled = { key: planKey(plan), height: plan.height };
    if (release !== undefined) this.#currentRelease = release;
  }
}

// The upgrade directory name, or (for a name that cannot be one) the name itself behind a NUL, which no directory
// name holds, so it is never taken for the running release.
function planKey(plan: UpgradePlan): string {
  try {
    return upgradeDirName(plan.name);
  } catch {
    return `\0${plan.name}`;
  }
}
