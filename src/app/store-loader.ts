// Store loaders (docs/CONTRACT.md §2.6): before the app opens its store, a loader sees the last committed height
// and may ask for store upgrades (added, renamed, deleted stores) to be applied with the next commit.
import type { CommitMultiStore, StoreUpgrades } from "../store/types.ts";

/** What the app asks its store opener for. */
export interface StoreOpenOptions {
  /** The stores the app's modules declare. */
  storeNames: string[];
  /** Store upgrades to apply atomically with the next commit. */
  upgrades?: StoreUpgrades;
}

/**
 * Opens the app's multistore. The driver supplies it, e.g.
 * `(o) => openMultiStore({ path, storeNames: o.storeNames, upgrades: o.upgrades, pruning, initialVersion })`.
 */
export type StoreOpener = (options: StoreOpenOptions) => Promise<CommitMultiStore>;

/** Parameters a store loader decides on. */
export interface StoreLoaderParameters {
  lastCommittedHeight: bigint;
  options: StoreOpenOptions;
}

/** Decides the store upgrades to open with (undefined: none). */
export type StoreLoader = (parameters: StoreLoaderParameters) => StoreUpgrades | undefined;

/** The default loader: no upgrades. */
export const defaultStoreLoader: StoreLoader = () => undefined;

/** True when the upgrades change anything. */
export function hasStoreUpgrades(upgrades: StoreUpgrades | undefined): upgrades is StoreUpgrades {
  return (
    upgrades !== undefined && (upgrades.added.length > 0 || upgrades.renamed.length > 0 || upgrades.deleted.length > 0)
  );
}

/**
 * Upstream's UpgradeStoreLoader: applies `upgrades` only when the store is opened with
 * `lastCommittedHeight + 1 == upgradeHeight` (the new binary starting to execute the upgrade block),
 * so later restarts never apply them again.
 */
export function upgradeStoreLoader(upgradeHeight: bigint, upgrades: StoreUpgrades): StoreLoader {
  return ({ lastCommittedHeight }) =>
    lastCommittedHeight + 1n === upgradeHeight && hasStoreUpgrades(upgrades) ? upgrades : undefined;
}

/** Reads the last committed height without opening the stores (see store-height.ts for LevelDB). */
export type CommittedHeightReader = () => Promise<bigint>;

/**
 * Opens the store through `opener`, letting `loader` choose upgrades from the last committed height.
 * The height comes from `readHeight` when given (needed when the upgrades change the set of stores,
 * since the store refuses to open with stores it does not have); otherwise from a probe open with
 * the declared stores. With the default loader there is no probe.
 */
export async function loadStore(
  opener: StoreOpener,
  storeNames: string[],
  loader: StoreLoader,
  readHeight?: CommittedHeightReader,
): Promise<{ store: CommitMultiStore; upgrades: StoreUpgrades | undefined }> {
  if (loader === defaultStoreLoader) return { store: await opener({ storeNames }), upgrades: undefined };
  let lastCommittedHeight: bigint;
  if (readHeight !== undefined) {
    lastCommittedHeight = await readHeight();
  } else {
    const probe = await opener({ storeNames });
    lastCommittedHeight = probe.lastCommit().version;
    const upgrades = loader({ lastCommittedHeight, options: { storeNames } });
    if (!hasStoreUpgrades(upgrades)) return { store: probe, upgrades: undefined };
    await probe.close();
  }
  const upgrades = loader({ lastCommittedHeight, options: { storeNames } });
  const applied = hasStoreUpgrades(upgrades) ? upgrades : undefined;
  const store = await opener(applied === undefined ? { storeNames } : { storeNames, upgrades: applied });
  return { store, upgrades: applied };
}
