// What `chaind version` prints, on its own so the early path (version-early.ts) and the command
// (version.ts) print the same text by construction.

import type { ChainManifest, ReleaseManifest } from "../../runtime/release.ts";
import { currentRelease } from "../../runtime/release.ts";
import { predecessorLine } from "../../runtime/release-history.ts";

/** One release of a binary's release line, as `version --long -o json` lists it. */
export interface ReleaseLineEntry {
  release: string;
  version: string;
}

/**
 * The releases a binary running `release` carries, oldest first, ending with `release`: its predecessors walked
 * back through `upgradesFrom` (the last one named, as the in-place mode's line in src/replay/chain-line.ts does).
 * A predecessor the chain does not know, or a loop, ends the walk there: `version` reports, it never fails.
 */
export function releaseLineOf(chain: ChainManifest, release: ReleaseManifest): ReleaseLineEntry[] {
  return predecessorLine(chain.releases, release).line.map((r) => ({ release: r.name, version: r.version }));
}

/** The flags `version` reads: its own `--long` and the global `-o`. */
export interface VersionFlags {
  long?: boolean;
  output: string;
}

/**
 * The text `chaind version` prints for `chain` (the release from the chain's release variable in `env`);
 * throws ReleaseSelectionError when that variable names no release of the chain.
 */
export function versionText(chain: ChainManifest, flags: VersionFlags, env: NodeJS.ProcessEnv = process.env): string {
  const release = currentRelease(chain, env);
  const info = { name: chain.name, release: release.name, version: release.version, node: process.version };
  if (flags.output === "json") {
    // The long form adds the release line: what a supervisor asks a staged binary before switching to it ahead of
    // an upgrade's height (chainvisor's DAEMON_SWITCH_AHEAD, src/visor/switch-ahead.ts).
    const long = { ...info, release_line: releaseLineOf(chain, release) };
    return `${JSON.stringify(flags.long ? long : { version: release.version })}\n`;
  }
  if (flags.long)
    return `name: ${chain.name}\nrelease: ${info.release}\nversion: ${info.version}\nnode: ${info.node}\n`;
  return `${release.version}\n`;
}
