// Public entry point of the upgrade module (`chaind/x/upgrade`): the Upgrade type and `installUpgrades` (the wiring
// every chain needs), the keeper, the module, store loaders and the halt errors with their exit statuses.
export * from "./enable-vote-extensions.ts";
export * from "./errors.ts";
export { binaryUpdatedBeforeTriggerMessage, wrongAppVersionMessage } from "./guard-messages.ts";
export * from "./install.ts";
export * from "./keeper.ts";
export * from "./migration-guard.ts";
export { type MigrationId, migrationLabel } from "./migration-store.ts";
export * from "./module.ts";
export * from "./prefix-migration.ts";
export * from "./stepped-migration.ts";
export { type ReleaseStoreLoaderParameters, releaseStoreLoader, upgradeStoreLoader } from "./store-loader.ts";
