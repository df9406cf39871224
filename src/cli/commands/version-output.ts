// What `chaind version` prints, on its own so the early path (version-early.ts) and the command
// (version.ts) print the same text by construction.

import type { ChainManifest } from "../../runtime/release.ts";
import { currentRelease } from "../../runtime/release.ts";

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
  if (flags.output === "json") return `${JSON.stringify(flags.long ? info : { version: release.version })}\n`;
  if (flags.long)
    return `name: ${chain.name}\nrelease: ${info.release}\nversion: ${info.version}\nnode: ${info.node}\n`;
  return `${release.version}\n`;
}
