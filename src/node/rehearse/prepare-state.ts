// Where the rehearsed (and the dry run's) state comes from, always put in a work home of its own so the source is
// never written (`upgrade dry-run` uses stateFromHome too):
// - a home's latest height: its data/application.db copied;
// - an older height the home still holds: that version exported from a copy and imported alone into the work
//   home (the state-sync path: same trees, same app hash), so the store opens with H as its latest version;
// - a snapshot archive (`chaind snapshots dump`): loaded by the snapshot module's validated loader into a scratch
//   home (chunk, stream and engine-state hashes checked) and restored there (chain id and app hash checked).
import { existsSync, mkdirSync } from "node:fs";
import { cp, mkdir, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import { currentBinaryName } from "../../config/home.ts";
import { homePaths } from "../../config/index.ts";
import type { ChainDefinition, Release } from "../../runtime/release.ts";
import { PrunedVersionError } from "../../store/errors.ts";
import {
  exportState,
  importState,
  openMultiStore,
  readCommittedStoreNames,
  readLastCommittedVersion,
} from "../../store/index.ts";
import { loadHomeSnapshot, restoreHomeSnapshot } from "../snapshot-home.ts";
import { RehearsalError } from "./errors.ts";
import { copyLevelDb } from "./level-copy.ts";

/**
 * Copies (or exports) the state at `height` (default: the latest) of `sourceHome` into `workHome`, as the work home's
 * latest committed version. Its height and whether it has the upgrade applied already are read later, through the
 * upgrade run's own open of it (upgrade-run.ts): each open of a large store costs tens of milliseconds.
 */
export async function stateFromHome(
  sourceHome: string,
  workHome: string,
  height?: bigint,
  /** Whether a process holds the source's state, when the caller asked already (`levelLockHeldAsync`). */
  sourceHeld?: Promise<boolean | undefined>,
): Promise<void> {
  const source = homePaths(sourceHome);
  // Synchronous, like the copy below: on a busy machine each awaited call waits for a core to come back to.
  if (!existsSync(source.applicationDb)) {
    throw new RehearsalError(
      `there is no state to rehearse on: ${source.applicationDb} does not exist (has the node run?)`,
    );
  }
  const work = homePaths(workHome);
  mkdirSync(work.dataDir, { recursive: true });
  // Everything is read from a copy: opening LevelDB, even to read one record, takes its lock and writes its log.
  // Its files are shared by hard link where LevelDB never writes them again (level-copy.ts).
  if (height === undefined) {
    await copyLevelDb(source.applicationDb, work.applicationDb, sourceHeld);
    return;
  }
  const copy = join(workHome, "source-application.db");
  await copyLevelDb(source.applicationDb, copy, sourceHeld);
  const latest = await readLastCommittedVersion(copy);
  if (latest === 0n) throw new RehearsalError(`${source.applicationDb} holds no committed state yet`);
  if (height > latest) {
    throw new RehearsalError(`--height ${height} is in the future: the latest committed height is ${latest}`);
  }
  if (height === latest) {
    await rename(copy, work.applicationDb);
    return;
  }
  // An older version: exported from the copy and imported alone (the copy keeps every version it held).
  const store = await openMultiStore({ path: copy, storeNames: await readCommittedStoreNames(copy) });
  try {
    await importState({ path: work.applicationDb, version: height, items: exportState(store, height) });
  } catch (err) {
    if (err instanceof PrunedVersionError) {
      throw new RehearsalError(
        `--height ${height}: the home no longer holds that state (earliest available height ${err.earliest}, latest ${err.latest})`,
        { cause: err },
      );
    }
    throw err;
  } finally {
    await store.close();
    await rm(copy, { recursive: true, force: true });
  }
  // The upgrade may have been applied after `height`: what counts is the exported state's own record, which the
  // upgrade run reads.
}

/**
 * Loads the snapshot `archive` into `workHome` (which gets `configHome`'s config: genesis for the chain id) and
 * restores it there with the release the upgrade starts from. Every check is the snapshot module's.
 */
export async function stateFromSnapshot(options: {
  archive: string;
  configHome: string;
  workHome: string;
  chain: ChainDefinition;
  /** The release that runs before the upgrade: the snapshot must hold its stores. */
  previous: Release;
}): Promise<void> {
  const config = homePaths(options.configHome);
  if (!existsSync(config.genesis)) {
    throw new RehearsalError(
      `--snapshot needs the chain's home for its genesis.json: ${config.genesis} does not exist (give --home of a node of that chain, or \`${currentBinaryName()} init\` one with the chain's genesis)`,
    );
  }
  const work = homePaths(options.workHome);
  await mkdir(work.dataDir, { recursive: true });
  await cp(config.configDir, work.configDir, { recursive: true });
  const info = await loadHomeSnapshot({ home: options.workHome, archive: options.archive });
  await restoreHomeSnapshot({
    home: options.workHome,
    height: info.height,
    format: info.format,
    chain: options.chain,
    release: options.previous,
  });
}
