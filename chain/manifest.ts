// The reference chain without its modules: its name, its releases' names and versions, the default release and the
// release variable — the one place each release's name and version is declared (releases.ts takes them from here
// with `declaredRelease`). The entry point (cmd/chaind.ts) hands it to the CLI with a loader of app.ts, so commands
// that need no module (`version`, `keys`, `query`, `status`) start without importing one; the loader checks that
// app.ts lists the same releases in the same order.
import type { ChainManifest, ReleaseManifest } from "chaind/runtime";

/** The reference chain `chaind`, as `chaind version` sees it. */
export const referenceManifest = {
  name: "chaind",
  releases: [
    { name: "v1", version: "1.0.0" },
    { name: "v2", version: "2.0.0", upgradesFrom: ["v1"] },
    { name: "v3", version: "3.0.0", upgradesFrom: ["v2"] },
  ],
  defaultRelease: "v1",
  releaseEnv: "CHAIND_RELEASE",
} as const satisfies ChainManifest;

/** The name of a release this tree can run as. */
export type ReleaseName = (typeof referenceManifest.releases)[number]["name"];

/** The names of the releases this tree can run as, in the chain's order. */
export const RELEASE_NAMES: readonly ReleaseName[] = referenceManifest.releases.map((r) => r.name);

/** The release a process runs as when CHAIND_RELEASE is unset. */
export const DEFAULT_RELEASE: ReleaseName = referenceManifest.defaultRelease;

/**
 * The name and version the manifest declares for release `name`, for the release's definition to spread.
 *
 * @example export const v2: Release = { ...declaredRelease("v2"), upgradesFrom: ["v1"], modules, upgrade };
 */
export function declaredRelease(name: ReleaseName): ReleaseManifest {
  const declared = referenceManifest.releases.find((r) => r.name === name) as ReleaseManifest;
  return { name: declared.name, version: declared.version };
}
