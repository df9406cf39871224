// LevelDB's own repair, for a store that cannot be opened as it is (its CURRENT lost, its MANIFEST damaged): it
// scans the table and log files, writes a new MANIFEST and CURRENT naming every table it could read, and moves
// files it could not read to `lost/`. It recovers what the files hold, no more: whether that is the whole store is
// for the node to check when it starts (the block store verifies its last heights, the state its app hash).
// `chaind repair-store` runs it (src/cli/commands/repair-store-command.ts).
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { ClassicLevel } from "classic-level";
import { DataDirectoryLockedError, StoreError } from "./errors.ts";

/** What {@link repairLevelStore} found after the repair. */
export interface RepairLevelStoreResult {
  /** Table files (`.ldb`, `.sst`) the repaired store holds. */
  tables: number;
  /** Files LevelDB could not read and moved to `lost/` (the directory's total, earlier repairs included). */
  lost: number;
}

const isTable = (name: string) => name.endsWith(".ldb") || name.endsWith(".sst");

/**
 * Runs LevelDB's repair on the store directory at `path`. Refuses a path that is not a directory holding files,
 * and a store another process has open (LevelDB's repair takes no lock of its own).
 * @example const { tables, lost } = await repairLevelStore("/var/lib/chaind/data/application.db");
 */
export async function repairLevelStore(path: string): Promise<RepairLevelStoreResult> {
  if (!existsSync(path) || !statSync(path).isDirectory()) {
    throw new StoreError(
      "STORE_DIR_MISSING",
      `${path} is not a directory; give the store's directory, e.g. <home>/data/application.db`,
    );
  }
  if (!readdirSync(path).some(isTable) && !readdirSync(path).some((name) => name.endsWith(".log"))) {
    throw new StoreError("STORE_NOT_LEVELDB", `${path} holds no LevelDB table or log file: there is nothing to repair`);
  }
  // Probe the lock with an open that cannot create anything: it fails on the lock before it looks for CURRENT.
  const probe = new ClassicLevel(path, { createIfMissing: false });
  try {
    await probe.open();
    await probe.close();
  } catch (err) {
    const code = (err as { cause?: { code?: string } }).cause?.code;
    if (code === "LEVEL_LOCKED") throw new DataDirectoryLockedError(path, { cause: err });
  }
  try {
    await ClassicLevel.repair(path);
  } catch (err) {
    throw new StoreError("STORE_REPAIR_FAILED", `LevelDB could not repair ${path}: ${(err as Error).message}`, {
      cause: err,
    });
  }
  const lostDir = join(path, "lost");
  return {
    tables: readdirSync(path).filter(isTable).length,
    lost: existsSync(lostDir) ? readdirSync(lostDir).length : 0,
  };
}
