// Writes that never leave a half-written key file behind: write a private temp file next to the target,
// flush it to disk, then rename it over the target (rename is atomic within a directory).
import { randomBytes } from "node:crypto";
import { mkdir, open, rename, unlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

/** Mode of every keyring file: readable and writable by the owner only. */
export const KEY_FILE_MODE = 0o600;
/** Mode of keyring directories. */
export const KEY_DIR_MODE = 0o700;

/** Atomically replaces `path` with `data` (mode 0600), creating the directory if needed. */
export async function writeFileAtomic(path: string, data: string | Uint8Array): Promise<void> {
  const directory = dirname(path);
  await mkdir(directory, { recursive: true, mode: KEY_DIR_MODE });
  const temp = join(directory, `.${basename(path)}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`);
  const handle = await open(temp, "wx", KEY_FILE_MODE);
  try {
    await handle.writeFile(data);
    await handle.sync();
    await handle.close();
    await rename(temp, path);
  } catch (error) {
    await handle.close().catch(() => undefined);
    await unlink(temp).catch(() => undefined);
    throw error;
  }
}
