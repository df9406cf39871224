// Whether a process holds a LevelDB directory's lock, asked without taking it. LevelDB locks its LOCK file with
// fcntl (a POSIX advisory lock); taking it to find out would mean opening the store, which writes (level-view.ts)
// and, for that moment, keeps the owner out. Linux lists every such lock in /proc/locks by device and inode.
import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";

/** `major:minor:inode` in /proc/locks (device numbers in hex, the inode in decimal). */
const LOCKED_FILE = /\s([0-9a-f]+):([0-9a-f]+):(\d+)\s/;

/**
 * True when some process holds the lock of the LevelDB store at `dir`, false when none does (or there is no LOCK
 * file), undefined when this system cannot tell (no /proc/locks).
 * @example if (await levelLockHeld(path)) throw new Error(`${path} is in use`);
 */
export async function levelLockHeld(dir: string): Promise<boolean | undefined> {
  let file: { dev: bigint; ino: bigint };
  try {
    file = await stat(join(dir, "LOCK"), { bigint: true });
  } catch {
    return false;
  }
  let locks: string;
  try {
    locks = await readFile("/proc/locks", "utf8");
  } catch {
    return undefined;
  }
  // glibc's gnu_dev_major/gnu_dev_minor: how Linux packs a device number into st_dev.
  const major = ((file.dev >> 8n) & 0xfffn) | ((file.dev >> 32n) & ~0xfffn);
  const minor = (file.dev & 0xffn) | ((file.dev >> 12n) & ~0xffn);
  for (const line of locks.split("\n")) {
    const m = LOCKED_FILE.exec(line);
    if (m === null) continue;
    if (BigInt(m[3]) === file.ino && BigInt(`0x${m[1]}`) === major && BigInt(`0x${m[2]}`) === minor) return true;
  }
  return false;
}
