// Reads, from a state store on disk, what the replay mode starts from: the last committed height, the last
// completed upgrade (its done record) and the protocol version (key 0x03). The store can only be opened with the
// exact set of stores the state has, which depends on the upgrades already applied, so each release's store set
// is tried in turn; the store is opened read-only in effect (nothing is staged or committed) and closed again.
import { openMultiStore, readLastCommittedVersion, StoreUpgradeError } from "../store/index.ts";
import { readLastCompletedUpgrade, readProtocolVersion } from "../x/upgrade/keeper.ts";
import { ReleaseLineError } from "./release-line.ts";

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
 * The upgrade records of the LevelDB state at `storePath`, opening it with the first of `storeSets` that matches
 * the stores the state has (try the newest release's first: it is the likeliest on a long chain).
 */
export async function readUpgradeRecords(
  storePath: string,
  storeSets: readonly string[][],
  upgradeStoreKey: string,
): Promise<UpgradeRecords> {
  const height = await readLastCommittedVersion(storePath);
  if (height === 0n) return { height, protocolVersion: 0n };
  const mismatches: string[] = [];
  for (const storeNames of storeSets) {
    let store: Awaited<ReturnType<typeof openMultiStore>>;
    try {
      store = await openMultiStore({ path: storePath, storeNames, createIfMissing: false });
    } catch (err) {
      if (err instanceof StoreUpgradeError) {
        mismatches.push(err.message);
        continue;
      }
      throw err;
    }
    try {
      const upgrade = (await store.view()).store(upgradeStoreKey);
      const lastCompleted = await readLastCompletedUpgrade(upgrade);
      const protocolVersion = await readProtocolVersion(upgrade);
      return lastCompleted === undefined ? { height, protocolVersion } : { height, lastCompleted, protocolVersion };
    } finally {
      await store.close();
    }
  }
  throw new ReleaseLineError(
    `the state at ${storePath} (height ${height}) has stores that no release of this binary declares: ${mismatches.join("; ")}`,
    { exitCode: 21 },
  );
}
