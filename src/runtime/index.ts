// Public entry point of the runtime: chain definitions, releases and the app builder (`chaind/runtime`).
export { buildChainApp, type ChainApp, type ChainAppOptions } from "./build-app.ts";
export {
  type ChainIdentity,
  ChainIdentityError,
  type ChainIdentityOptions,
  chainIdentity,
  REFERENCE_IDENTITY,
} from "./chain-identity.ts";
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
  type ChainManifest,
  currentRelease,
  DEFAULT_RELEASE_ENV,
  defineChain,
  type Release,
  type ReleaseManifest,
  ReleaseSelectionError,
  releaseNamed,
} from "./release.ts";
export { type ModuleMigration, withMigrations } from "./with-migrations.ts";
