// A work copy of a LevelDB directory that shares the source's files wherever LevelDB never writes through them.
// The LevelDB under classic-level (1.20, `reuse_logs` off, which classic-level does not set) never writes a file it
// did not create in this open: a table (*.ldb, *.sst) is written once and then only read; on open the write-ahead
// log (*.log) and the MANIFEST-* are only read — recovery turns the log into a new table, a new log and a new
// manifest take their place, CURRENT is replaced by renaming a new file over it, and the old names are unlinked.
// So a hard link to any of them is never written through, and the copy's unlinks remove only the copy's names
// (level-copy.test.ts checks it, the log's case included). CURRENT and the diagnostic LOG files are tiny and
// copied; LOCK is left out (LevelDB creates its own: a link would share the source's lock). Copying a
// million-record store's tables took longer than the upgrade itself (issue 33's bench), and its tens of MiB of log
// a noticeable part of what was left. Where links are refused (another file system, one without them) the file is
// copied. The calls are synchronous on purpose: a few hundred system calls of microseconds each, where awaiting
// each one through the thread pool cost tens of milliseconds on a busy machine.
//
// All of that holds for a store at rest. A source still open in a running node (the docs ask to stop it; a user
// may not) appends to its log and manifest after the copy is made, and through a link the copy would see those
// writes: the determinism run's copy, opened a moment after the first run's, then held later blocks than the
// first and the rehearsal reported a false failure. So when the source is in use (src/store/level-lock-probe.ts)
// its logs and manifests are copied, first, and the tables linked after them: the copy is the store as it was at
// that moment.
import { copyFileSync, cpSync, linkSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { unlink } from "node:fs/promises";
import { join } from "node:path";
import { levelLockHeldAsync } from "../../store/level-lock-probe.ts";

/** Files LevelDB only reads once written (see above): shared by hard link. */
const READ_ONLY = /^(\d+\.(ldb|sst|log)|MANIFEST-\d+)$/;
/** The ones an open LevelDB still appends to (the newest of them). */
const APPENDED = /^(\d+\.log|MANIFEST-\d+)$/;

/**
 * Copies the LevelDB directory `from` to `to` (created), hard-linking the files LevelDB never writes again. `held`
 * is `levelLockHeldAsync(from)` when the caller asked it earlier (so that its wait runs beside the caller's work too).
 */
export async function copyLevelDb(
  from: string,
  to: string,
  held: Promise<boolean | undefined> = levelLockHeldAsync(from),
): Promise<void> {
  // Whether the source is in use is answered while the copy at rest is made: the lock table's read waits
  // milliseconds off the CPU (level-lock-probe.ts), the links take milliseconds on it. A source in use, the rare
  // case, gets that copy replaced by one made the live way below.
  let failed: { error: unknown } | undefined;
  try {
    copyOnce(from, to, false);
  } catch (error) {
    failed = { error }; // thrown as before when the source is at rest; a live source is copied again below
  }
  if ((await held) !== true) {
    if (failed !== undefined) throw failed.error;
    return;
  }
  rmSync(to, { recursive: true, force: true });
  // A live source's compaction or manifest roll-over may remove a file between the listing and its copy: the
  // copy would then miss what its manifest names, so it is taken again (a compaction is milliseconds).
  for (let attempt = 1; ; attempt++) {
    try {
      copyOnce(from, to, true);
      return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT" || attempt === LIVE_ATTEMPTS) throw err;
      rmSync(to, { recursive: true, force: true });
    }
  }
}

const LIVE_ATTEMPTS = 5;

function copyOnce(from: string, to: string, live: boolean): void {
  mkdirSync(to, { recursive: true });
  const entries = readdirSync(from, { withFileTypes: true });
  // For a live source, what names the tables (CURRENT, manifest, log) is taken before the tables themselves.
  if (live) entries.sort((a, b) => Number(isTable(a.name)) - Number(isTable(b.name)));
  for (const entry of entries) {
    const source = join(from, entry.name);
    const target = join(to, entry.name);
    if (entry.isDirectory()) cpSync(source, target, { recursive: true });
    else if (entry.name === "LOCK") continue;
    else if (live && APPENDED.test(entry.name)) copyFileSync(source, target);
    else if (entry.isFile() && READ_ONLY.test(entry.name)) linkOrCopy(source, target);
    else copyFileSync(source, target);
  }
}

function isTable(name: string): boolean {
  return READ_ONLY.test(name) && !APPENDED.test(name);
}

function linkOrCopy(source: string, target: string): void {
  try {
    linkSync(source, target);
  } catch {
    copyFileSync(source, target); // throws ENOENT when the file is gone
  }
}

/**
 * Removes `folder` with the LevelDB copies `levelDbs` inside it (any that exist). Unlike the links, their unlinks
 * wait off the CPU (~40 µs each on the busy 2-core machine, against ~5 µs of CPU): one synchronous call for the
 * whole folder took 14 ms for a million-record copy's ~270 files where unlinking them through the thread pool at
 * once takes 5 ms, and the promise-based recursive removal (an lstat and an unlink per file) 9 ms and twice the CPU.
 * The rest of the folder is a few small files and is removed in one synchronous call.
 */
export async function removeWithLevelCopies(folder: string, levelDbs: string[]): Promise<void> {
  const files = levelDbs.flatMap((dir) => {
    try {
      return readdirSync(dir).map((name) => join(dir, name));
    } catch {
      return []; // not made: the rehearsal stopped before that copy
    }
  });
  // A file that cannot be unlinked here is left to the removal below, which reports it.
  await Promise.all(files.map((file) => unlink(file).catch(() => undefined)));
  rmSync(folder, { recursive: true, force: true });
}
