// The reference chain: its name, its releases and how a process picks one (CHAIND_RELEASE). The framework builds
// the App of the chosen release (standard modules plus the release's own) and wires the upgrade module; this is what
// a chain developer writes for their own chain (docs/BUILD-A-CHAIN.md).
import { type ChainDefinition, defineChain } from "chaind/runtime";
import { DEFAULT_RELEASE, v1, v2, v3 } from "./releases.ts";

/** The reference chain `chaind`: releases v1, v2 and v3. */
export const referenceChain: ChainDefinition = defineChain({
  name: "chaind",
  releases: [v1, v2, v3],
  defaultRelease: DEFAULT_RELEASE,
  releaseEnv: "CHAIND_RELEASE",
});
