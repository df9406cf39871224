// One restore at a time per home: two `chaind snapshots restore` runs on the same home would each delete the
// other's `application.db.restoring` and both fail with raw I/O errors. The lock is a file holding the
// holder's pid, created exclusively; a lock whose holder no longer runs (a killed restore) is taken over.
import { open, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { currentBinaryName } from "../config/home.ts";
import { processRunning } from "../config/stale-temporaries.ts";
import { SnapshotError } from "./errors.ts";

const LOCK_FILE = ".restore.lock";

/** Takes the restore lock of the snapshot folder `dir`; resolves with its release. Throws SnapshotError when held. */
export async function lockRestore(dir: string): Promise<() => Promise<void>> {
  const path = join(dir, LOCK_FILE);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const handle = await open(path, "wx");
      try {
        await handle.writeFile(`${process.pid}\n`);
      } finally {
        await handle.close();
      }
      return async () => {
        await rm(path, { force: true });
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
    const text = (await readFile(path, "utf8").catch(() => "")).trim();
    const holder = Number(text);
    // An empty lock: its holder has just created it and not yet written its pid.
    if (text === "" || processRunning(holder)) {
      throw new SnapshotError(
        `another \`${currentBinaryName()} snapshots restore\` (${text === "" ? "starting" : `process ${holder}`}) is restoring into this home; wait for it to finish`,
      );
    }
    // The holder was killed mid-restore: its lock is stale (installState starts from a clean directory anyway).
    await rm(path, { force: true });
  }
  throw new SnapshotError(
    `another \`${currentBinaryName()} snapshots restore\` is starting on this home; wait for it to finish`,
  );
}
