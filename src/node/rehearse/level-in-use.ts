// Whether a LevelDB directory is open in a running process (a node rehearsed or dry-run without being stopped).
// LevelDB holds a POSIX (fcntl) lock on its LOCK file while it is open. Taking that lock to test it would mean
// opening the source, which writes its log, so the lock is looked up instead: Linux lists every lock held on the
// machine in /proc/locks as `<major>:<minor>:<inode>`. Only the inode number is compared: on overlay file systems
// the lock names the underlying device, not the one stat reports, and a false match merely makes the copy copy a
// few files it could have linked. Elsewhere (no /proc/locks) the answer is false, the copy as before.
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";

/** `/proc/locks`' `<major>:<minor>:<inode>` field (hex device numbers, decimal inode). */
const LOCKED_FILE = /\s[0-9a-f]+:[0-9a-f]+:(\d+)\s/;

/**
 * True when some process holds a lock on `dir`'s LOCK file, so LevelDB has it open and may append to its log and
 * manifest at any moment.
 *
 * @example if (levelDbInUse(homePaths(home).applicationDb)) copyTheFilesItAppendsTo();
 */
export function levelDbInUse(dir: string, locksFile = "/proc/locks"): boolean {
  let inode: bigint;
  let locks: string;
  try {
    inode = statSync(join(dir, "LOCK"), { bigint: true }).ino;
    locks = readFileSync(locksFile, "utf8");
  } catch {
    return false; // no LOCK file (never opened), or no lock table to read (not Linux)
  }
  for (const line of locks.split("\n")) {
    const match = LOCKED_FILE.exec(line);
    if (match !== null && BigInt(match[1]) === inode) return true;
  }
  return false;
}
