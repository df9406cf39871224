// Flushing a LevelDB store written without synced writes. `chaind replay` writes every height of the new home
// unsynced (its block store and its state store) and flushes both stores every so many heights and at the end,
// instead of waiting for the disk three times a height. What an unsynced write leaves to be flushed is only the
// store's write-ahead log (`NNNNNN.log`): LevelDB syncs every table file it builds and its MANIFEST and CURRENT
// itself. fsync(2) flushes a file whichever descriptor it is called on, so the logs can be flushed from here while
// the store stays open; the directory is synced too, for a log created since the last flush.
import { open, readdir } from "node:fs/promises";
import { join } from "node:path";

/**
 * Makes every write made so far to the LevelDB store at `path` durable (see the file comment). A log that LevelDB
 * removes meanwhile is skipped: its content was moved into a table file that LevelDB synced before removing it.
 * A directory that does not exist (nothing was written there) is nothing to flush.
 *
 * @example
 * await flushLevelLogs(homePaths(home).blocksDb);
 */
export async function flushLevelLogs(path: string): Promise<void> {
  let entries: string[];
  try {
    entries = await readdir(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return;
    throw err;
  }
  for (const name of entries.filter((entry) => entry.endsWith(".log"))) {
    await syncFile(join(path, name));
  }
  await syncFile(path);
}

async function syncFile(path: string): Promise<void> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, "r");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return;
    throw err;
  }
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
