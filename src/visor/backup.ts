// The backup of <home>/data taken before an upgrade. LevelDB table files (.ldb, .sst) are never modified once
// written, so on the same file system they are hard-linked instead of copied: the backup of a large store takes
// seconds and almost no space. Everything else (logs, manifests, JSON state) is copied. Free space is checked first.
import { constants, type Stats } from "node:fs";
import { copyFile, link, lstat, mkdir, readdir, readlink, rename, rm, stat, statfs, symlink } from "node:fs/promises";
import { join } from "node:path";
import { errorCode, errorMessage, VisorError } from "./errors.ts";
import type { Logger } from "./log.ts";

/** Parameters of {@link backupData}. */
export interface BackupDataParameters {
  dataDir: string;
  /** DAEMON_DATA_BACKUP_DIR; the backup becomes `<backupDir>/data-backup-<date>`. */
  backupDir: string;
  log: Logger;
  /** Show a progress bar; by default only when stderr is a terminal. */
  progress?: boolean;
  now?: Date;
  /** Free bytes available to us in a directory (statfs by default). */
  freeBytes?: (dir: string) => Promise<number>;
  signal?: AbortSignal;
}

/** What a backup did. */
export interface BackupResult {
  path: string;
  files: number;
  linkedFiles: number;
  copiedBytes: number;
  durationMs: number;
}

/** Files whose content never changes after they are written, so a hard link is as good as a copy. */
export function isImmutableFile(name: string): boolean {
  return /\.(ldb|sst)$/i.test(name);
}

interface Entry {
  relative: string;
  kind: "dir" | "file" | "symlink";
  size: number;
}

/**
 * Backs up the data directory; returns undefined when there is no data directory.
 * @example await backupData({ dataDir: "/home/n/data", backupDir: "/backups", log })
 */
export async function backupData(parameters: BackupDataParameters): Promise<BackupResult | undefined> {
  const { dataDir, backupDir, log } = parameters;
  const started = Date.now();
  let dataStat: Stats;
  try {
    dataStat = await stat(dataDir);
  } catch (error) {
    if (errorCode(error) === "ENOENT") {
      log.warn(`no data directory at ${dataDir}: nothing to back up`);
      return undefined;
    }
    throw error;
  }
  const entries = await walk(dataDir, "", log);
  const sameDevice = dataStat.dev === (await stat(backupDir)).dev;
  const linkable = (entry: Entry) => sameDevice && entry.kind === "file" && isImmutableFile(entry.relative);
  const toCopy = entries
    .filter((entry) => entry.kind === "file" && !linkable(entry))
    .reduce((sum, e) => sum + e.size, 0);
  const free = await (parameters.freeBytes ?? statfsFreeBytes)(backupDir);
  if (toCopy > free) {
    throw new VisorError(
      `not enough free disk space for the data backup in ${backupDir}: it needs ${formatBytes(toCopy)}, ${formatBytes(free)} available`,
      { details: ["free some space, point DAEMON_DATA_BACKUP_DIR at another disk, or set UNSAFE_SKIP_BACKUP=true"] },
    );
  }
  const finalPath = await freeBackupName(backupDir, parameters.now ?? new Date());
  const partial = join(backupDir, `.${finalPath.slice(backupDir.length + 1)}.partial`);
  log.info(`starting to take backup of data directory into ${finalPath}`);
  const total = entries.reduce((sum, e) => sum + e.size, 0);
  const showProgress = parameters.progress ?? process.stderr.isTTY === true;
  const bar = showProgress
    ? new (await import("cli-progress")).SingleBar({
        stream: process.stderr,
        format: "backup [{bar}] {percentage}% | {value}/{total} bytes",
      })
    : undefined;
  bar?.start(total, 0);
  let linkedFiles = 0;
  let copiedBytes = 0;
  let done = 0;
  try {
    await mkdir(partial, { recursive: true });
    for (const entry of entries) {
      if (parameters.signal?.aborted) throw new VisorError("backup cancelled");
      const source = join(dataDir, entry.relative);
      const target = join(partial, entry.relative);
      if (entry.kind === "dir") await mkdir(target, { recursive: true });
      else if (entry.kind === "symlink") await symlink(await readlink(source), target);
      else if (linkable(entry) && (await tryLink(source, target))) linkedFiles++;
      else {
        await copyFile(source, target, constants.COPYFILE_FICLONE);
        copiedBytes += entry.size;
      }
      done += entry.size;
      bar?.update(done);
    }
    await rename(partial, finalPath);
  } catch (error) {
    await rm(partial, { recursive: true, force: true });
    throw new VisorError(`error while taking data backup: ${errorMessage(error)}`, { cause: error });
  } finally {
    bar?.stop();
  }
  const files = entries.filter((e) => e.kind === "file").length;
  const durationMs = Date.now() - started;
  log.info(
    `backup completed: ${finalPath} (${files} files, ${linkedFiles} hard-linked, ${formatBytes(copiedBytes)} copied, ${durationMs} ms)`,
  );
  return { path: finalPath, files, linkedFiles, copiedBytes, durationMs };
}

async function tryLink(source: string, target: string): Promise<boolean> {
  try {
    await link(source, target);
    return true;
  } catch {
    return false; // another file system, no permission, link limit: fall back to a copy
  }
}

async function walk(root: string, relative: string, log: Logger): Promise<Entry[]> {
  const out: Entry[] = [];
  for (const name of (await readdir(join(root, relative))).sort()) {
    const childRelative = relative === "" ? name : join(relative, name);
    const info = await lstat(join(root, childRelative));
    if (info.isDirectory()) {
      out.push({ relative: childRelative, kind: "dir", size: 0 });
      out.push(...(await walk(root, childRelative, log)));
    } else if (info.isFile()) out.push({ relative: childRelative, kind: "file", size: info.size });
    else if (info.isSymbolicLink()) out.push({ relative: childRelative, kind: "symlink", size: 0 });
    else log.warn(`backup skips ${join(root, childRelative)}: not a file, directory or link`);
  }
  return out;
}

async function statfsFreeBytes(dir: string): Promise<number> {
  const info = await statfs(dir);
  return Number(info.bavail) * Number(info.bsize);
}

// Zero-padded UTC date and time, so backups sort by name; a suffix keeps two backups in the same second apart.
async function freeBackupName(backupDir: string, now: Date): Promise<string> {
  const pad = (n: number) => String(n).padStart(2, "0");
  const stamp = `${now.getUTCFullYear()}-${pad(now.getUTCMonth() + 1)}-${pad(now.getUTCDate())}-${pad(now.getUTCHours())}${pad(now.getUTCMinutes())}${pad(now.getUTCSeconds())}`;
  for (let n = 1; ; n++) {
    const candidate = join(backupDir, n === 1 ? `data-backup-${stamp}` : `data-backup-${stamp}-${n}`);
    try {
      await lstat(candidate);
    } catch (error) {
      if (errorCode(error) === "ENOENT") return candidate;
      throw error;
    }
  }
}

/** "1.5 MiB", for log lines. */
export function formatBytes(bytes: number): string {
  const units = ["bytes", "KiB", "MiB", "GiB", "TiB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${bytes} bytes` : `${value.toFixed(1)} ${units[unit]}`;
}
