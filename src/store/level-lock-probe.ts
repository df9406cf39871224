// Whether a process holds a LevelDB directory's lock, asked without taking it. LevelDB locks its LOCK file with
// fcntl (a POSIX advisory lock) while the store is open; taking that lock to find out would mean opening the store,
// which writes (its log is replayed into a table) and, for that moment, keeps the owner out. Linux lists every such
// lock in /proc/locks as `<major>:<minor>:<inode>`. Only the inode is compared: on overlay file systems the line
// names the underlying device, not the one stat reports, and a match on another device's file of the same inode
// number is far less likely than an overlay home.
import { closeSync, openSync, read, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

/** `/proc/locks`' `<major>:<minor>:<inode>` field (device numbers in hex, the inode in decimal). */
const LOCKED_FILE = /\s[0-9a-f]+:[0-9a-f]+:(\d+)\s/;

/**
 * True when some process holds the lock of the LevelDB store at `dir`, false when none does (or it has no LOCK
 * file: never opened), undefined when this system cannot tell (no lock table to read).
 * @example if (levelLockHeld(path) === true) throw new Error(`${path} is in use`);
 */
export function levelLockHeld(dir: string, locksFile = "/proc/locks"): boolean | undefined {
  const inode = lockInode(dir);
  if (inode === undefined) return false;
  let locks: string;
  try {
    locks = readFileSync(locksFile, "utf8");
  } catch {
    return undefined;
  }
  return listsLock(locks, inode);
}

/**
 * {@link levelLockHeld}, with the lock table read in the thread pool. Reading /proc/locks costs almost no CPU but
 * waits several milliseconds off it (the kernel takes its lock list's write lock, which waits for an RCU grace
 * period; 6–14 ms on the busy 2-core machine, ~0.1 ms again for a second read right after): asked this way, the
 * caller's own work goes on meanwhile. The LOCK file's inode is read now, the table when the read gets to it.
 * @example const held = levelLockHeldAsync(path); copyFiles(); if ((await held) === true) copyAgain();
 */
export async function levelLockHeldAsync(dir: string, locksFile = "/proc/locks"): Promise<boolean | undefined> {
  const inode = lockInode(dir);
  if (inode === undefined) return false;
  let locks: string;
  try {
    locks = await readWhole(locksFile);
  } catch {
    return undefined;
  }
  return listsLock(locks, inode);
}

/**
 * `file`'s text, read with as few trips through the thread pool as it takes. `readFile` takes four (open, stat, read,
 * close), and each next one starts only once the event loop gets back to it, which the caller's synchronous work
 * delays: the wait then came after that work instead of beside it. The kernel hands its lock table out at most a
 * page (4 KiB, ~60 locks) a read whatever is asked for, so the reads go on until one returns nothing: a machine with
 * more locks than a page holds lists the store's lock anywhere in the table (level-lock-probe.test.ts holds 150).
 * Only the first read waits for the grace period; the next ones follow it within microseconds.
 */
async function readWhole(file: string): Promise<string> {
  const fd = openSync(file, "r");
  try {
    const chunks: Buffer[] = [];
    for (;;) {
      const chunk = Buffer.allocUnsafe(LOCK_TABLE_READ);
      const bytes = await new Promise<number>((resolve, reject) =>
        read(fd, chunk, 0, chunk.length, null, (err, n) => (err === null ? resolve(n) : reject(err))),
      );
      if (bytes === 0) return Buffer.concat(chunks).toString("utf8");
      chunks.push(chunk.subarray(0, bytes));
    }
  } finally {
    closeSync(fd);
  }
}

/** Bytes asked for at once: the table's lines are ~60 bytes, one per lock on the machine. */
const LOCK_TABLE_READ = 256 * 1024;

/** The inode of `dir`'s LOCK file; undefined when it has none (never opened: nobody holds it). */
function lockInode(dir: string): bigint | undefined {
  try {
    return statSync(join(dir, "LOCK"), { bigint: true }).ino;
  } catch {
    return undefined;
  }
}

function listsLock(locks: string, inode: bigint): boolean {
  for (const line of locks.split("\n")) {
    const match = LOCKED_FILE.exec(line);
    if (match !== null && BigInt(match[1]) === inode) return true;
  }
  return false;
}
