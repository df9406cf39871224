// Replacing a home's application state with a snapshot's: the snapshot is imported into a fresh
// directory beside `data/application.db`, checked (stores, app hash), and only then moved into
// place, so a failed restore leaves the old state (or none) and never a half-written one.
import { rename, rm } from "node:fs/promises";
import { type CommitInfo, type ExportItem, importState } from "../store/index.ts";

/** Options of {@link installState}. */
export interface InstallStateOptions {
  /** The application database directory (`<home>/data/application.db`). */
  applicationDb: string;
  height: bigint;
  items: AsyncIterable<ExportItem[]>;
  /** The stores the release declares. */
  storeNames: string[];
  /** The app hash the state must have (state sync: the one CometBFT's light client verified). */
  expectedAppHash?: Uint8Array;
  /** Runs after the import succeeded and before the old directory is removed (e.g. close the App's store). */
  beforeSwap?: () => Promise<void>;
}

/** Imports and swaps in the state; resolves with its version and app hash. */
export async function installState(options: InstallStateOptions): Promise<CommitInfo> {
  const fresh = `${options.applicationDb}.restoring`;
  await rm(fresh, { recursive: true, force: true });
  let info: CommitInfo;
  try {
    info = await importState({
      path: fresh,
      version: options.height,
      items: options.items,
      storeNames: options.storeNames,
      expectedAppHash: options.expectedAppHash,
    });
  } catch (err) {
    await rm(fresh, { recursive: true, force: true });
    throw err;
  }
  await options.beforeSwap?.();
  const old = `${options.applicationDb}.replaced`;
  await rm(old, { recursive: true, force: true });
  await rename(options.applicationDb, old).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== "ENOENT") throw err;
  });
  await rename(fresh, options.applicationDb);
  await rm(old, { recursive: true, force: true });
  return info;
}
