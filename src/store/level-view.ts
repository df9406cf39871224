// A throwaway LevelDB directory that reads like another one, for readers that must leave a store exactly as they
// found it (`chaind status --home` of a stopped node). LevelDB has no read-only open: opening a store replays its
// write-ahead log into a new table, starts a new log, writes a new MANIFEST and CURRENT, rotates its info LOG, takes
// the LOCK and deletes the files it replaced. Opened in a view instead, all of that happens in the view.
//
// Table files (*.ldb, *.sst) never change once written, so the view links to them (symbolic links, which cross file
// systems; LevelDB only ever reads them, or deletes its link); the other files it needs (CURRENT, MANIFEST-*, the
// *.log, all small: the log holds at most one write buffer) are copied. LOCK and the info logs are left out.
import { copyFile, mkdir, mkdtemp, readdir, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { levelDirectoryState } from "./level-directory.ts";

const IMMUTABLE = /\.(ldb|sst)$/;
const NOT_NEEDED = new Set(["LOCK", "LOG", "LOG.old"]);

/**
 * Runs `read` with the path of a view of the LevelDB directory `dir` and removes the view afterwards. The view ends
 * in the same two path components as `dir` (e.g. `data/blocks.db`), so store labels in messages read the same.
 * `dir` must not be written meanwhile (check that no process holds its lock first). A `dir` with files but no
 * `CURRENT` throws NotALevelStoreError (level-directory.ts) before any view is made.
 * @example const height = await withLevelView(path, (view) => readLastCommittedVersion(view));
 */
export async function withLevelView<T>(dir: string, read: (view: string) => Promise<T>): Promise<T> {
  // A directory without CURRENT is refused as it is: judged in the view (which leaves LOCK and the info logs out),
  // the error counted the view's files, not the ones an operator lists in the store.
  levelDirectoryState(dir);
  const root = await mkdtemp(join(tmpdir(), "chaind-level-view-"));
  try {
    const view = join(root, basename(dirname(dir)), basename(dir));
    await mkdir(view, { recursive: true });
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      if (!entry.isFile() || NOT_NEEDED.has(entry.name)) continue;
      const from = join(dir, entry.name);
      if (IMMUTABLE.test(entry.name)) await symlink(from, join(view, entry.name));
      else await copyFile(from, join(view, entry.name));
    }
    return await read(view);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
