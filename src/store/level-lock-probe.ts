// Whether a process holds a LevelDB directory's lock, asked without taking it. LevelDB locks its LOCK file with
// fcntl (a POSIX advisory lock) while the store is open; taking that lock to find out would mean opening the store,
// which writes (its log is replayed into a table) and, for that moment, keeps the owner out. Linux lists every such
// lock in /proc/locks as `<major>:<minor>:<inode>`. Only the inode is compared: on overlay file systems the line
// names the underlying device, not the one stat reports, and a match on another device's file of the same inode
// number is far less likely than an overlay home.
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";

/** `/proc/locks`' `<major>:<minor>:<inode>` field (device numbers in hex, the inode in decimal). */
const LOCKED_FILE = /\s[0-9a-f]+:[0-9a-f]+:(\d+)\s/;

/**
 * True when some process holds the lock of the LevelDB store at `dir`, false when none does (or it has no LOCK
 * file: never opened), undefined when this system cannot tell (no lock table to read).
 * @example if (levelLockHeld(path) === true) throw new Error(`${path} is in use`);
 */
export function levelLockHeld(dir: string, locksFile = "/proc/locks"): boolean | undefined {
  let inode: bigint;
  try {
    inode = statSync(join(dir, "LOCK"), { bigint: true }).ino;
  } catch {
    return false;
  }
  let locks: string;
  try {
    locks = readFileSync(locksFile, "utf8");
  } catch {
    return undefined;
  }
  for (const line of locks.split("\n")) {
    const match = LOCKED_FILE.exec(line);
    if (match !== null && BigInt(match[1]) === inode) return true;
  }
  return false;
}
