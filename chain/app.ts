// The reference chain: its name, its releases and how a process picks one (CHAIND_RELEASE). The framework builds
// the App of the chosen release (standard modules plus the release's own) and wires the upgrade module; this is what
// a chain developer writes for their own chain (docs/BUILD-A-CHAIN.md).
import { type ChainDefinition, defineChain, type Release } from "chaind/runtime";
import { type ReleaseName, referenceManifest } from "./manifest.ts";
import { v3 } from "./releases/v3.ts";
import { v1, v2 } from "./releases.ts";

/** Every release the manifest declares, by name (the type makes a release declared there but missing here an error). */
const releases: Record<ReleaseName, Release> = { v1, v2, v3 };

/** The reference chain `chaind`: the manifest (name, default, release variable) with each declared release. */
export const referenceChain: ChainDefinition = defineChain({
  ...referenceManifest,
  releases: referenceManifest.releases.map((declared) => releases[declared.name]),
});
