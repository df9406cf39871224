// Reads, from a state store on disk, what the replay mode starts from: the last committed height, the last
// completed upgrade (its done record) and the protocol version (key 0x03). The store can only be opened with the
// exact set of stores the state has, which depends on the upgrades already applied, so it is opened with the set
// the state itself records (never with a release's); nothing is staged or committed, and it is closed again.

import { ReleaseLineError } from "../runtime/release-history.ts";
import { openMultiStore, readCommittedStoreNames, readLastCommittedVersion } from "../store/index.ts";
import { readLastCompletedUpgrade, readProtocolVersion } from "../x/upgrade/keeper.ts";

/** The upgrade records of a committed state. */
export interface UpgradeRecords {
  /** The last committed height (0 for a fresh state). */
  height: bigint;
  /** The done record with the highest height, if any upgrade completed. */
  lastCompleted?: { name: string; height: bigint };
  /** The protocol version (key 0x03; 0 at genesis). */
  protocolVersion: bigint;
}

/**
 * The upgrade records of the LevelDB state at `storePath`, read from its `upgradeStoreKey` store.
 *
 * @example
 * const records = await readUpgradeRecords(homePaths(home).applicationDb, "upgrade");
 * records.lastCompleted?.name; // "v2" once upgrade v2 has run
 */
export async function readUpgradeRecords(storePath: string, upgradeStoreKey: string): Promise<UpgradeRecords> {
  const height = await readLastCommittedVersion(storePath);
  if (height === 0n) return { height, protocolVersion: 0n };
  const storeNames = await readCommittedStoreNames(storePath);
  if (!storeNames.includes(upgradeStoreKey)) {
    throw new ReleaseLineError(
      `the state at ${storePath} (height ${height}) has no "${upgradeStoreKey}" store (it has ${storeNames.join(", ")}): the replay mode reads the upgrade module's records from it`,
    );
  }
  const store = await openMultiStore({ path: storePath, storeNames, createIfMissing: false });
  try {
    const upgrade = (await store.view()).store(upgradeStoreKey);
    const lastCompleted = await readLastCompletedUpgrade(upgrade);
    const protocolVersion = await readProtocolVersion(upgrade);
    return lastCompleted === undefined ? { height, protocolVersion } : { height, lastCompleted, protocolVersion };
  } finally {
    await store.close();
  }
}
