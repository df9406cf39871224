// Watching data/upgrade-info.json. Each poll stats the file; only when its modification time (or size or inode)
// changed is it read again, and a plan counts as new only if its name and height differ from the last one handled
// and it is not the release already running. So a rewrite of the same plan never triggers twice.
import { readFile, stat } from "node:fs/promises";
import { describeError, errorCode, errorMessage } from "./errors.ts";
import { upgradeDirName } from "./layout.ts";
import type { Logger } from "./log.ts";
import { emptyUpgradeInfoError, parseUpgradeInfo, type UpgradePlan } from "./upgrade-info.ts";

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
  #empty = false;

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

  /** True when the last check found the file empty (0 bytes): taken for one being written while the node runs. */
  get empty(): boolean {
    return this.#empty;
  }

  /**
   * Why the file cannot be used once no writer is left (the node has exited and the last check is done): the parse
   * error, or, for a file still empty, that it is empty. Undefined when there is no file or it holds a usable plan.
   */
  get unusable(): unknown {
    return this.#empty ? emptyUpgradeInfoError(this.#parameters.path) : this.#broken;
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
      // Being written by a non-atomic writer: look again next time, without a word while the node runs. Once the node
      // has exited, a file still empty after the last look is unusable (see `unusable`), as chaind itself says.
      this.#empty = info.size === 0;
      if (this.#empty) return undefined;
      signature = `${info.mtimeMs}:${info.size}:${info.ino}`;
    } catch (error) {
      if (errorCode(error) !== "ENOENT") log.warn(`cannot stat ${path}: ${errorMessage(error)}`);
      this.#signature = undefined;
      this.#plan = undefined;
      this.#broken = undefined;
      this.#empty = false;
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
