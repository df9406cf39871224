// Temporaries that a kill in the middle of an atomic write leaves behind (`.<name>.tmp-<pid>-<hex>`
// from atomic-file.ts, `<name>.tmp-<pid>-<hex>` from chainvisor's writers). The target file is
// always whole (old or new content), so a temporary whose writer is gone is garbage: the node
// removes them from config/ and data/ when it starts, before anything writes there again.
import { readdir, unlink } from "node:fs/promises";
import { join } from "node:path";

const TEMPORARY = /^\.?[^/]+\.tmp-(\d+)-[0-9a-f]+$/;

/** True when process `pid` exists (and is not this one: at start this process has written nothing yet). */
function writerAlive(pid: number): boolean {
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
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
    if (match === null || writerAlive(Number(match[1]))) continue;
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
