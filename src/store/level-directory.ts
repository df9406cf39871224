// What a LevelDB directory holds, looked at before LevelDB opens it. LevelDB's create-if-missing does not ask
// whether the directory is empty: without a `CURRENT` file it starts a new database there and deletes every table
// file it finds as obsolete, wiping a store whose CURRENT was lost (a copy that missed it, a bad disk) before any
// error could be shown. So every opener (the state store's openLevelBackend and the block store's open) asks here
// first and only lets LevelDB create a database in a missing or empty directory.
import { readdirSync } from "node:fs";
import { basename, dirname } from "node:path";
import { NotALevelStoreError } from "./errors.ts";

/** A directory LevelDB may create a store in ("missing", "empty") or a store it can open as it is ("store"). */
export type LevelDirectoryState = "missing" | "empty" | "store";

// Files that hold no data: LevelDB writes its lock and info log before it looks for CURRENT, so an open that was
// refused (a reader's create-if-missing false on an empty directory) leaves them behind; and a new database is
// MANIFEST-000001 (holding no table) written through 000001.dbtmp, renamed to CURRENT last, so a process killed
// while it first created the store leaves those. Data lives in table (.ldb, .sst) and log (.log) files, and a
// store that ever held any also has them: such a directory is never taken for empty.
const HOLDS_NO_DATA = new Set(["LOCK", "LOG", "LOG.old", "MANIFEST-000001", "000001.dbtmp"]);

/** A store's name for messages: its last two path components, e.g. `data/application.db`, never an absolute path. */
export function storeLabel(path: string): string {
  return `${basename(dirname(path))}/${basename(path)}`;
}

/**
 * Classifies the directory at `path`; throws {@link NotALevelStoreError} when it holds files but no `CURRENT`
 * (never to be opened with create-if-missing). Other file-system errors (e.g. ENOTDIR) are thrown as they are.
 * @example if (levelDirectoryState(path) !== "store") await db.open({ createIfMissing: true });
 */
export function levelDirectoryState(path: string): LevelDirectoryState {
  let entries: string[];
  try {
    entries = readdirSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return "missing";
    throw err;
  }
  if (entries.includes("CURRENT")) return "store";
  if (entries.every((name) => HOLDS_NO_DATA.has(name))) return "empty";
  throw new NotALevelStoreError(path, storeLabel(path), entries.length);
}
