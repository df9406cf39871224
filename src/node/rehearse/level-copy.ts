// A work copy of a LevelDB directory that shares the source's table files. LevelDB writes a table file (*.ldb,
// *.sst) once, reads it only through read-only handles, and on compaction writes new ones and unlinks old names:
// so a hard link to a source table is never written through, and the copy's compactions remove only the copy's
// names. Everything else (CURRENT, MANIFEST-*, the write-ahead *.log, LOG, LOCK) is appended to or replaced, and is
// copied. Copying a million-record store's tables took longer than the upgrade itself (issue 33's bench); linking
// them is a few system calls. Where links are refused (another file system, a file system without them) the table
// is copied.
import { copyFile, cp, link, mkdir, readdir } from "node:fs/promises";
import { join } from "node:path";

const TABLE = /\.(ldb|sst)$/;

/** Copies the LevelDB directory `from` to `to` (created), hard-linking its immutable table files. */
export async function copyLevelDb(from: string, to: string): Promise<void> {
  await mkdir(to, { recursive: true });
  for (const entry of await readdir(from, { withFileTypes: true })) {
    const source = join(from, entry.name);
    const target = join(to, entry.name);
    if (entry.isDirectory()) await cp(source, target, { recursive: true });
    else if (entry.isFile() && TABLE.test(entry.name)) await link(source, target).catch(() => copyFile(source, target));
    else await copyFile(source, target);
  }
}
