// A release's history, derived once from its chain: the release, its predecessor (`upgradesFrom`), that one's
// predecessor, … back to a release that runs from genesis, each entered by the one upgrade it adds. A release lists
// only that upgrade; every handler it must still know (the node's downgrade and early-binary guards need the one of
// the chain's last applied upgrade, whichever release applied it) comes from here: buildChainApp registers them,
// the replay mode (src/replay/chain-line.ts) switches releases along the same steps.
import { UserError } from "../errors/user-error.ts";
import type { Upgrade } from "../x/upgrade/install.ts";
import type { ChainDefinition, Release } from "./release.ts";

/**
 * A chain's releases do not form a line (a predecessor unknown or looping, a release without its upgrade), or a
 * state does not fit one.
 */
export class ReleaseLineError extends UserError {
  /** The process exit status this asks for (21, the wrong-binary status, when the chain is beyond the line). */
  constructor(message: string, options: ErrorOptions & { exitCode?: number } = {}) {
    super(message, options);
    this.name = "ReleaseLineError";
  }
}

/** One release of a line and the upgrade that enters it from the step before. */
export interface ReleaseStep {
  release: Release;
  /**
   * The release's own `upgrade`. On the first step it is absent for a release that runs from genesis, or the upgrade
   * that entered it from a release the chain no longer carries (a test node's single release, a pruned history).
   */
  enteredBy?: Upgrade;
}

/** A release as its line sees it: its name and the releases it upgrades from. */
export interface LineMember {
  readonly name: string;
  readonly upgradesFrom?: readonly string[];
}

/** Where a walk back through `upgradesFrom` stopped before reaching a release that runs from genesis. */
export type LineBreak = { kind: "loop"; at: string } | { kind: "unknown"; release: string; predecessor: string };

/**
 * The releases `top` stands on, oldest first, ending with `top`: its predecessor (the last one `upgradesFrom`
 * names: the newest path), that one's, … up to a release without `upgradesFrom`. The one walk every reader of a
 * line shares (the app builder's handler history, the in-place mode, `version`'s release line); a predecessor the
 * list does not hold, or a loop, ends it and is returned as `broken` for the caller to refuse or to report.
 */
export function predecessorLine<R extends LineMember>(
  releases: readonly R[],
  top: R,
): { line: R[]; broken?: LineBreak } {
  const line: R[] = [];
  const seen = new Set<string>();
  let release: R = top;
  for (;;) {
    if (seen.has(release.name)) return { line, broken: { kind: "loop", at: release.name } };
    seen.add(release.name);
    line.unshift(release);
    const fromName = release.upgradesFrom?.at(-1);
    if (fromName === undefined) return { line };
    const from = releases.find((r) => r.name === fromName);
    if (from === undefined) {
      return { line, broken: { kind: "unknown", release: release.name, predecessor: fromName } };
    }
    release = from;
  }
}

/**
 * The releases `top` stands on, oldest first ({@link predecessorLine}), each with the upgrade that enters it.
 * Throws a ReleaseLineError naming the release when a predecessor is unknown, when the predecessors loop, or when a
 * release that upgrades from another names no `upgrade`.
 *
 * @example
 * releaseSteps(referenceChain, v2); // [{ release: v1 }, { release: v2, enteredBy: upgradeV2 }]
 */
export function releaseSteps(chain: ChainDefinition, top: Release): ReleaseStep[] {
  const { line, broken } = predecessorLine(chain.releases, top);
  if (broken?.kind === "loop") {
    throw new ReleaseLineError(
      `chain "${chain.name}": the predecessors (upgradesFrom) of release "${top.name}" loop back to "${broken.at}"`,
    );
  }
  if (broken?.kind === "unknown") {
    throw new ReleaseLineError(
      `chain "${chain.name}": release "${broken.release}" upgrades from "${broken.predecessor}", which is not one of its releases`,
    );
  }
  for (const release of line) {
    const fromName = release.upgradesFrom?.at(-1);
    if (fromName !== undefined && release.upgrade === undefined) {
      throw new ReleaseLineError(
        `chain "${chain.name}": release "${release.name}" upgrades from "${fromName}" but names no \`upgrade\`: expected the upgrade that enters "${release.name}"`,
      );
    }
  }
  return line.map((release) => ({ release, enteredBy: release.upgrade }));
}

/**
 * Every upgrade `release` must still have the handler of, oldest first: its own and those of the releases before
 * it on its line ({@link releaseSteps}). A release missing the handler of the chain's last applied upgrade halts
 * with `wrong app version …` (exit 21), so this is what buildChainApp hands to `installUpgrades`.
 *
 * @example
 * upgradeHistory(referenceChain, v2).map((u) => u.name); // ["v2"]
 */
export function upgradeHistory(chain: ChainDefinition, release: Release): Upgrade[] {
  return releaseSteps(chain, release).flatMap((step) => (step.enteredBy === undefined ? [] : [step.enteredBy]));
}
