// Store upgrades at an upgrade (docs/CONTRACT.md §2.6). The framework's loader (src/app/store-loader.ts) applies a release's
// StoreUpgrades only when the node opens its store with lastCommittedHeight + 1 == upgradeHeight; this file adds
// the usual wiring: read upgrade-info.json at start and install that loader for this release's upgrade.
import { type StoreLoader, upgradeStoreLoader } from "../../app/store-loader.ts";
import type { StoreUpgrades } from "../../store/types.ts";
import type { UpgradeKeeper } from "./keeper.ts";

export { hasStoreUpgrades, type StoreLoader, upgradeStoreLoader } from "../../app/store-loader.ts";

/** Parameters of {@link releaseStoreLoader}. */
export interface ReleaseStoreLoaderParameters {
  /** The keeper (its home locates upgrade-info.json; its skip heights are honoured). */
  keeper: Pick<UpgradeKeeper, "readUpgradeInfoFromDisk" | "isSkipHeight">;
  /** The upgrade this release performs (the plan name its handler is registered under). */
  upgradeName: string;
  /** The store changes of that upgrade. */
  storeUpgrades: StoreUpgrades;
}

/**
 * The usual wiring at start: reads upgrade-info.json and returns `upgradeStoreLoader(info.height, storeUpgrades)`
 * when the file names this release's upgrade at a height that is not skipped; undefined otherwise (no file, another
 * upgrade, a skipped height). An unreadable or invalid file is an error naming it.
 *
 * @example
 * const loader = await releaseStoreLoader({ keeper, upgradeName: "v2", storeUpgrades: { added: ["feegrant"], renamed: [], deleted: [] } });
 * if (loader !== undefined) app.setStoreLoader(loader);
 */
export async function releaseStoreLoader(parameters: ReleaseStoreLoaderParameters): Promise<StoreLoader | undefined> {
  const info = await parameters.keeper.readUpgradeInfoFromDisk();
  if (info === undefined || info.name !== parameters.upgradeName) return undefined;
  if (parameters.keeper.isSkipHeight(info.height)) return undefined;
  return upgradeStoreLoader(info.height, parameters.storeUpgrades);
}
