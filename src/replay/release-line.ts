// A release line: the releases one binary can run, oldest first, each entered from the one before by a named
// upgrade. It is all the replay mode knows about a chain: which rules to run (the release active on chain) and
// where the next rules begin (the plan of the upgrade that enters the next release). Generic over the App type;
// chain-line.ts builds the line of any ChainDefinition from its releases and their predecessors (`upgradesFrom`).

import type { AbciApp } from "../engine/abci-app.ts";
import type { RequestFinalizeBlock } from "../gen/tendermint/abci/types_pb.js";
import { ReleaseLineError } from "../runtime/release-history.ts";
import type { CommitMultiStore } from "../store/types.ts";

/** What the replay mode needs from an App beyond ABCI: its committed store (to read the plan) and a way to close it. */
export interface SwitchableApp extends AbciApp {
  /** The opened multistore (its latest committed version is what the next block starts from). */
  readonly store: CommitMultiStore;
  /** Closes the App's store. */
  close(): Promise<void>;
  /** Optional: whether the readiness gate keeps the block's due plan from being applied (see App.holdsDuePlan). */
  holdsDuePlan?(request: RequestFinalizeBlock): Promise<boolean>;
}

/** How a release opens its App in replay mode. */
export interface ReleaseOpenOptions {
  /**
   * Apply the store upgrades of the upgrade that enters this release while opening the store, for the block at
   * this height (the state must be committed at `upgradeHeight − 1`). Absent: open the state as it is. In
   * either case upgrade-info.json is not read: the line decides.
   */
  upgradeHeight?: bigint;
}

/** One release of a line. */
export interface LineRelease<A extends SwitchableApp> {
  /** The release's name, e.g. "v2". */
  name: string;
  /** The plan name of the upgrade that enters this release from the one before; absent for the first release. */
  enteredBy?: string;
  /** Builds this release's App and opens its store. */
  open(options: ReleaseOpenOptions): Promise<A>;
}

/** The releases a binary carries, oldest first, and how to read the chain's upgrade records. */
export interface ReleaseLine<A extends SwitchableApp> {
  releases: readonly LineRelease<A>[];
  /** The upgrade module's store key ("upgrade"). */
  upgradeStoreKey: string;
  /** `--unsafe-skip-upgrades`: a plan due at a skipped height does not switch releases. */
  isSkipHeight(height: bigint): boolean;
}

/**
 * Checks that a line is usable: at least one release, the first entered by nothing, every later one by a distinct
 * upgrade.
 */
export function checkReleaseLine<A extends SwitchableApp>(line: ReleaseLine<A>): void {
  const [first, ...rest] = line.releases;
  if (first === undefined) throw new ReleaseLineError("the release line is empty: expected at least one release");
  if (first.enteredBy !== undefined) {
    throw new ReleaseLineError(
      `the first release of the line ("${first.name}") must run from genesis, but it names the upgrade "${first.enteredBy}" as entering it`,
    );
  }
  const seen = new Set<string>();
  for (const release of rest) {
    if (release.enteredBy === undefined || release.enteredBy === "") {
      throw new ReleaseLineError(`release "${release.name}" of the line does not name the upgrade that enters it`);
    }
    if (seen.has(release.enteredBy)) {
      throw new ReleaseLineError(`two releases of the line are entered by the same upgrade "${release.enteredBy}"`);
    }
    seen.add(release.enteredBy);
  }
}

/** The names of a line's releases with the upgrades between them, e.g. `v1 → (v2) → v2`. */
export function describeLine<A extends SwitchableApp>(line: ReleaseLine<A>): string {
  return line.releases.map((r) => (r.enteredBy === undefined ? r.name : `(${r.enteredBy}) → ${r.name}`)).join(" → ");
}

/**
 * The index of the release active on chain after the last completed upgrade `lastCompleted` (undefined: no upgrade
 * completed yet, so the first release). An upgrade the line does not know means the chain has moved beyond this
 * binary: a ReleaseLineError with the wrong-binary status.
 */
export function activeReleaseIndex<A extends SwitchableApp>(
  line: ReleaseLine<A>,
  lastCompleted: { name: string; protocolVersion: bigint } | undefined,
): number {
  if (lastCompleted === undefined) return 0;
  const index = line.releases.findIndex((r) => r.enteredBy === lastCompleted.name);
  if (index < 0) {
    throw new ReleaseLineError(
      `the chain's last completed upgrade is "${lastCompleted.name}" (protocol version ${lastCompleted.protocolVersion}), which this binary's release line (${describeLine(line)}) does not know: run a release that carries it`,
      { exitCode: 21 },
    );
  }
  return index;
}
