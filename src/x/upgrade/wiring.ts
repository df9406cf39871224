// What an App wires for the upgrade module besides registering it: the protocol version as ABCI Info.app_version,
// the full version map stored at InitChain, and the release's store loader read from upgrade-info.json.
import type { Context } from "../../app/context.ts";
import type { VersionMap } from "../../app/module.ts";
import type { StoreLoader } from "../../app/store-loader.ts";
import type { StoreUpgrades } from "../../store/types.ts";
import type { UpgradeKeeper } from "./keeper.ts";
import { releaseStoreLoader } from "./store-loader.ts";

/** The App hooks the upgrade module uses (src/app/base-app.ts `App` has them). */
export interface UpgradeAppHooks {
  setAppVersionProvider(provider: (ctx: Context) => Promise<bigint>): void;
  onInitChainVersionMap(handler: (ctx: Context, versionMap: VersionMap) => Promise<void>): void;
  setStoreLoader(loader: StoreLoader): void;
}

/** The upgrade a release performs: its plan name (its handler's) and its store changes. */
export interface ReleaseUpgrade {
  upgradeName: string;
  storeUpgrades: StoreUpgrades;
}

/**
 * Wires the upgrade module into an App, before `app.load()`:
 * - Info.app_version ← the protocol version (key 0x03) of the state being read;
 * - InitChain → the full version map is stored (docs/CONTRACT.md §2.7);
 * - with `release`: upgrade-info.json is read (an invalid file is an error naming it) and, when it names this
 *   release's upgrade at a height that is not skipped, the upgrade store loader is installed.
 * Resolves with whether a store loader was installed.
 *
 * @example
 * await wireUpgradeModule(app, keeper, { upgradeName: "v2", storeUpgrades: { added: ["feegrant"], renamed: [], deleted: [] } });
 * await app.load();
 */
export async function wireUpgradeModule(
  app: UpgradeAppHooks,
  keeper: UpgradeKeeper,
  release?: ReleaseUpgrade,
): Promise<boolean> {
  app.setAppVersionProvider((ctx) => keeper.getProtocolVersion(ctx));
  app.onInitChainVersionMap((ctx, versionMap) => keeper.setModuleVersionMap(ctx, versionMap));
  if (release === undefined) return false;
  const loader = await releaseStoreLoader({ keeper, ...release });
  if (loader === undefined) return false;
  app.setStoreLoader(loader);
  return true;
}
