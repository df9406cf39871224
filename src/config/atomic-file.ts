// Writes that never leave a half-written file behind: a crash or a full disk at any moment leaves
// either the old content or the new one under the final name. Used for every file under the home
// directory (config, genesis, keys, upgrade-info.json, the signing state).
import { randomBytes } from "node:crypto";
import { closeSync, fchmodSync, fsyncSync, openSync, renameSync, unlinkSync, writeSync } from "node:fs";
import { open, rename, unlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

/** Content accepted by the atomic writers: text is written as UTF-8. */
export type AtomicFileData = string | Uint8Array;

function tempPathFor(path: string): string {
  // A dot-prefixed name in the same directory: same filesystem (so rename is atomic) and hidden from
  // tools that list the directory. The random part keeps concurrent writers from sharing a temp file.
  return join(dirname(path), `.${basename(path)}.tmp-${process.pid}-${randomBytes(6).toString("hex")}`);
}

/**
 * Names the target file in a system error raised on the temporary's descriptor: Node words a failed write on a
 * descriptor without a path ("ENOSPC: no space left on device, write"), which would leave the operator of a full
 * disk guessing which file the node could not save.
 */
export function withTargetPath(error: unknown, path: string): unknown {
  const err = error as NodeJS.ErrnoException;
  // Only a system error (it has a syscall): chaind's own errors carry string codes too (STORE_VERSION_PRUNED), and
  // their messages already say what was wrong without a path tacked on.
  const systemError = typeof err.code === "string" && typeof err.syscall === "string";
  if (error instanceof Error && systemError && err.path === undefined && !err.message.includes(path)) {
    err.message = `${err.message} '${path}'`;
    err.path = path;
  }
  return error;
}

function toBytes(data: AtomicFileData): Uint8Array {
  return typeof data === "string" ? Buffer.from(data, "utf8") : data;
}

/**
 * Replaces `path` atomically with `data`: temp file in the same directory, fsync, rename over the
 * target, fsync of the directory. On any failure the temp file is removed and the target is untouched.
 * `mode` is applied exactly (not filtered by the umask).
 *
 * @example await writeFileAtomic(join(home, "data", "upgrade-info.json"), JSON.stringify(info), 0o600)
 */
export async function writeFileAtomic(path: string, data: AtomicFileData, mode = 0o644): Promise<void> {
  const temp = tempPathFor(path);
  const bytes = toBytes(data);
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(temp, "wx", mode);
    await handle.chmod(mode);
    let offset = 0;
    while (offset < bytes.length) {
      const { bytesWritten } = await handle.write(bytes, offset, bytes.length - offset);
      offset += bytesWritten;
    }
    await handle.sync();
    await handle.close();
    handle = undefined;
    await rename(temp, path);
  } catch (error) {
    if (handle !== undefined) await handle.close().catch(() => {});
    await unlink(temp).catch(() => {});
    throw withTargetPath(error, path);
  }
  await syncDirectory(dirname(path));
}

/** The synchronous twin of {@link writeFileAtomic}, for code paths that must not yield (e.g. a halt). */
export function writeFileAtomicSync(path: string, data: AtomicFileData, mode = 0o644): void {
  const temp = tempPathFor(path);
  const bytes = toBytes(data);
  let fd: number | undefined;
  try {
    fd = openSync(temp, "wx", mode);
    fchmodSync(fd, mode);
    let offset = 0;
    while (offset < bytes.length) offset += writeSync(fd, bytes, offset, bytes.length - offset);
    fsyncSync(fd);
    closeSync(fd);
    fd = undefined;
    renameSync(temp, path);
  } catch (error) {
    if (fd !== undefined) {
      try {
        closeSync(fd);
      } catch {}
    }
    try {
      unlinkSync(temp);
    } catch {}
    throw withTargetPath(error, path);
  }
  syncDirectorySync(dirname(path));
}

async function syncDirectory(dir: string): Promise<void> {
  // Makes the rename itself durable. Some filesystems refuse fsync on a directory; the rename has
  // still happened then, so those errors are not worth failing the write for.
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(dir, "r");
    await handle.sync();
  } catch {
    // best effort
  } finally {
    await handle?.close().catch(() => {});
  }
}

function syncDirectorySync(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, "r");
    fsyncSync(fd);
  } catch {
    // best effort, as above
  } finally {
    if (fd !== undefined) {
      try {
        closeSync(fd);
      } catch {}
    }
  }
}
