// The reference chain without its modules: its name, its releases' names and versions, the default release and
// the release variable. The entry point (cmd/chaind.ts) hands it to the CLI with a loader of app.ts, so commands
// that need no module (`version`, `keys`, `query`, `status`) start without importing one. The loader checks
// that app.ts agrees with this file.
import type { ChainManifest } from "chaind/cli";

/** The names of the releases this tree can run as. */
export const RELEASE_NAMES = ["v1", "v2", "v3"] as const;
export type ReleaseName = (typeof RELEASE_NAMES)[number];

/** The release a process runs as when CHAIND_RELEASE is unset. */
export const DEFAULT_RELEASE: ReleaseName = "v1";

/** The reference chain `chaind`, as `chaind version` sees it. */
export const referenceManifest: ChainManifest = {
  name: "chaind",
  releases: [
    { name: "v1", version: "1.0.0" },
    { name: "v2", version: "2.0.0" },
    { name: "v3", version: "3.0.0" },
  ],
  defaultRelease: DEFAULT_RELEASE,
  releaseEnv: "CHAIND_RELEASE",
};
