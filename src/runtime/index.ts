// Public entry point of the runtime: chain definitions, releases and the app builder (`chaind/runtime`).

export {
  type ChainIdentity,
  ChainIdentityError,
  type ChainIdentityOptions,
  chainIdentity,
  REFERENCE_IDENTITY,
} from "../config/chain-identity.ts";
export { buildChainApp, type ChainApp, type ChainAppOptions } from "./build-app.ts";
export {
  currentChain,
  currentChainIdentity,
  currentChainManifest,
  loadCurrentChain,
  STANDARD_CHAIN,
  useChain,
} from "./current-chain.ts";
export type { StandardKeepers } from "./keepers.ts";
export { isLazyChain, type LazyChain, lazyChain } from "./lazy-chain.ts";
export {
  type ChainDefinition,
  ChainDefinitionError,
  type ChainManifest,
  currentRelease,
  DEFAULT_RELEASE_ENV,
  defineChain,
  type Release,
  type ReleaseManifest,
  ReleaseSelectionError,
  releaseNamed,
} from "./release.ts";
export { ReleaseLineError, type ReleaseStep, releaseSteps, upgradeHistory } from "./release-history.ts";
export { chainModuleClis, STANDARD_MODULE_CLIS } from "./standard-module-clis.ts";
export { type ModuleMigration, withMigrations } from "./with-migrations.ts";
