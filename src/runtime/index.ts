// Public entry point of the runtime: chain definitions, releases and the app builder (`chaind/runtime`).
export { buildChainApp, type ChainApp, type ChainAppOptions } from "./build-app.ts";
export { currentChain, STANDARD_CHAIN, useChain } from "./current-chain.ts";
export type { StandardKeepers } from "./keepers.ts";
export {
  type ChainDefinition,
  currentRelease,
  DEFAULT_RELEASE_ENV,
  defineChain,
  type Release,
  ReleaseSelectionError,
  releaseNamed,
} from "./release.ts";
export { type ModuleMigration, withMigrations } from "./with-migrations.ts";
