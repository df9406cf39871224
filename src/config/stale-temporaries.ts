// Temporaries that a kill in the middle of an atomic write leaves behind (`.<name>.tmp-<pid>-<hex>`
// from atomic-file.ts, `<name>.tmp-<pid>-<hex>` from chainvisor's writers). The target file is
// always whole (old or new content), so a temporary whose writer is gone is garbage: the node
// removes them from config/ and data/ when it starts, before anything writes there again.
import { readdir, unlink } from "node:fs/promises";
import { join } from "node:path";

const TEMPORARY = /^\.?[^/]+\.tmp-(\d+)-[0-9a-f]+$/;

/** True when a process with this pid exists (this one included). */
export function processRunning(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * True when the writer `pid` of a temporary is gone. This process counts as gone: the cleaners run at start,
 * before this process has written anything, so a temporary with its pid is from an earlier process.
 */
export function processGone(pid: number): boolean {
  return pid === process.pid || !processRunning(pid);
}

/**
 * Removes the atomic-write temporaries in `dir` whose writing process no longer runs; returns the
 * names removed. A missing directory has none. Entries of running writers are left alone.
 */
export async function removeStaleTemporaries(dir: string): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw err;
  }
  const removed: string[] = [];
  for (const name of names) {
    const match = TEMPORARY.exec(name);
    if (match === null || !processGone(Number(match[1]))) continue;
    try {
      await unlink(join(dir, name));
      removed.push(name);
    } catch (err) {
      // Gone already (another cleaner), or a directory by that name: not ours to remove.
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== "ENOENT" && code !== "EISDIR" && code !== "EPERM") throw err;
    }
  }
  return removed;
}
