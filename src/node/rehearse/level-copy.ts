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
import { copyFileSync, cpSync, linkSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";

/** Files LevelDB only reads once written (see above): shared by hard link. */
const READ_ONLY = /^(\d+\.(ldb|sst|log)|MANIFEST-\d+)$/;

/** Copies the LevelDB directory `from` to `to` (created), hard-linking the files LevelDB never writes again. */
export async function copyLevelDb(from: string, to: string): Promise<void> {
  mkdirSync(to, { recursive: true });
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const source = join(from, entry.name);
    const target = join(to, entry.name);
    if (entry.isDirectory()) cpSync(source, target, { recursive: true });
    else if (entry.name === "LOCK") continue;
    else if (entry.isFile() && READ_ONLY.test(entry.name)) linkOrCopy(source, target);
    else copyFileSync(source, target);
  }
}

function linkOrCopy(source: string, target: string): void {
  try {
    linkSync(source, target);
  } catch {
    copyFileSync(source, target);
  }
}
