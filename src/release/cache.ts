// The single-file release's cache of unpacked files (docs/RELEASES.md, "The cache and its checks"). The launcher
// imports the application from this directory on every start, so what is there is code that runs as the user:
//
// - a cache root must be a directory owned by the user and not writable by group or others — otherwise another user
//   could put code there (a planted /tmp/chaind-cache-<uid>) — and is refused, with a warning, for the next root;
// - the unpacked files are checked against the file list baked into the executable (release.json: path, size and
//   sha256 of each). A full check hashes ~8 MB, too slow for every `chaind version`, so after a full check passes
//   the launcher writes a stamp of each file's (size, inode, mtime, ctime); a start whose stat()s match the stamp
//   skips the hashing. ctime cannot be set back by the user, so no write to a file since the check (nor a
//   replacement of it) goes unnoticed; anything that differs sends the start to the full check;
// - a file that fails the full check (changed, truncated, missing, replaced by a link) is written again from the
//   payload, each through a temporary name and a rename, so a run that has the directory open never sees a file
//   disappear; a directory that is not the user's or is group/other-writable is moved aside and unpacked afresh.
//
// It may import only Node's built-ins: it runs before anything is unpacked. node:crypto is taken only when a file is
// hashed or a temporary name made, never on a start whose stamp matches: loading it costs a `chaind` start ~6 ms of
// CPU (it is not in Node's start-up snapshot), a tenth of a `query bank balances`.
import {
  type BigIntStats,
  chmodSync,
  closeSync,
  fchmodSync,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  type Stats,
  statSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { type PayloadFile, unpackPayload } from "./payload.ts";

/** One file of the payload as release.json lists it (written at build time by scripts/single-file.ts). */
export interface PayloadFileDigest {
  /** '/'-separated, relative to the unpacked directory. */
  path: string;
  size: number;
  /** Lower-case hex sha256 of the file's bytes. */
  sha256: string;
}

/** What {@link prepareCache} needs. */
export interface CacheRequest {
  /** Candidate cache roots, best first. */
  roots: readonly string[];
  /** The unpacked directory's name inside a root: `<release>-<first 16 hex of the payload's sha256>`. */
  name: string;
  /** Every file of the payload, as the executable lists them. */
  files: readonly PayloadFileDigest[];
  /** The compressed payload; read only when something has to be written. */
  payload: () => Uint8Array;
  /** The user's id (process.getuid()). */
  uid: number;
}

/** Where the application is, and the roots refused on the way (the launcher prints those as warnings). */
export interface PreparedCache {
  dir: string;
  refused: string[];
}

/** No cache root could be used; `problems` has one line per root. */
export class CacheUnusableError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(
      `cannot unpack the release into any cache directory (set CHAIND_CACHE_DIR to a directory of yours that only you can write):\n  ${problems.join("\n  ")}`,
    );
    this.name = "CacheUnusableError";
    this.problems = problems;
  }
}

/** A root or an unpacked directory that another user could write into. */
class UnsafeDirectoryError extends Error {}

/** The stamp of the last full check, inside the unpacked directory. */
const STAMP = ".verified";
const STAMP_HEADER = "chaind cache stamp 1";

/** The unpacked application's directory: found checked, repaired, or unpacked afresh, in the first usable root. */
export function prepareCache(request: CacheRequest): PreparedCache {
  const problems: string[] = [];
  const refused: string[] = [];
  let payloadFiles: Map<string, PayloadFile> | undefined;
  const payload = (): Map<string, PayloadFile> => {
    payloadFiles ??= new Map(unpackPayload(request.payload()).map((file) => [file.path, file]));
    return payloadFiles;
  };
  for (const root of request.roots) {
    try {
      makeDirectories(root, 0o700);
      const reason = unsafeReason(root, request.uid);
      if (reason !== undefined) {
        throw new UnsafeDirectoryError(`refused, since another user could change the code it runs: ${reason}`);
      }
      return { dir: prepareIn(root, request, payload), refused };
    } catch (error) {
      const line = `${root}: ${(error as Error).message}`;
      problems.push(line);
      if (error instanceof UnsafeDirectoryError) refused.push(line);
    }
  }
  throw new CacheUnusableError(problems);
}

function prepareIn(root: string, request: CacheRequest, payload: () => Map<string, PayloadFile>): string {
  const target = join(root, request.name);
  const directories = directoriesOf(request.files);
  if (lstatOrUndefined(target) !== undefined) {
    // A missing subdirectory is damage, repaired below with its files; one that is not the user's, or that others
    // can write (an older launcher's unpacking under a loose umask, or tampering), makes nothing in it trusted.
    const unsafe = directories.some(
      (dir) => lstatOrUndefined(join(target, dir)) !== undefined && unsafeReason(join(target, dir), request.uid),
    );
    if (unsafe) {
      const aside = join(root, `.${request.name}.unsafe-${process.pid}-${randomHex()}`);
      renameSync(target, aside);
      rmSync(aside, { recursive: true, force: true });
    }
  }
  if (lstatOrUndefined(target) === undefined) {
    if (unpackFresh(root, request, payload)) return target;
  }
  const expected = stampText(target, request);
  if (readOrUndefined(join(target, STAMP)) === expected) return target;
  // The stamp is missing or something changed since the last full check: hash every file.
  const damaged = request.files.filter((file) => !fileMatches(join(target, file.path), file));
  for (const file of damaged) repairFile(target, file, payload());
  writeStamp(target, request);
  return target;
}

/** Unpacks into a temporary directory renamed into place; false when another run's directory got there first. */
function unpackFresh(root: string, request: CacheRequest, payload: () => Map<string, PayloadFile>): boolean {
  const target = join(root, request.name);
  const temporary = join(root, `.${request.name}.${process.pid}-${randomHex()}`);
  try {
    mkdirSync(temporary, { mode: 0o755 });
    const files = payload();
    const made = new Set<string>([temporary]);
    const written = new Map<string, BigIntStats>();
    for (const digest of request.files) {
      const file = files.get(digest.path);
      if (file === undefined) throw new Error(`the payload has no ${digest.path}`);
      const path = join(temporary, file.path);
      const parent = dirname(path);
      if (!made.has(parent)) {
        makeDirectories(parent, 0o755);
        made.add(parent);
      }
      written.set(file.path, writeNewFile(path, file));
    }
    // The stamp is made here: a directory's rename changes neither the inodes nor the times of what it holds.
    writeStamp(temporary, request, written);
    try {
      renameSync(temporary, target);
      return true;
    } catch (error) {
      // Another run unpacked the same files first: theirs are checked like any existing directory.
      if (lstatOrUndefined(target) === undefined) throw error;
      return false;
    }
  } finally {
    rmSync(temporary, { recursive: true, force: true });
  }
}

/**
 * Creates `path` with the file's bytes and mode and returns what stat() says of it now, for the stamp. Everything
 * goes through the one descriptor: a first start writes ~190 files, and each path lookup, chmod and later lstat was a
 * system call more per file (the umask is checked from the result: fchmod only when it took a bit of the mode).
 */
function writeNewFile(path: string, file: PayloadFile): BigIntStats {
  const fd = openSync(path, "wx", file.mode);
  try {
    for (let at = 0; at < file.data.length; ) at += writeSync(fd, file.data, at);
    let stats = fstatSync(fd, { bigint: true });
    if (Number(stats.mode & 0o7777n) !== file.mode) {
      fchmodSync(fd, file.mode);
      stats = fstatSync(fd, { bigint: true });
    }
    return stats;
  } finally {
    closeSync(fd);
  }
}

function crypto(): typeof import("node:crypto") {
  return process.getBuiltinModule("node:crypto");
}

/** Eight random hex digits: the part of a temporary name that keeps two starts at once apart. */
function randomHex(): string {
  return crypto().randomBytes(4).toString("hex");
}

/** Writes one file again from the payload, through a temporary name and a rename (never a missing file). */
function repairFile(target: string, digest: PayloadFileDigest, files: Map<string, PayloadFile>): void {
  const file = files.get(digest.path);
  if (file === undefined) throw new Error(`the payload has no ${digest.path}`);
  const path = join(target, file.path);
  makeDirectories(dirname(path), 0o755);
  const temporary = `${path}.${process.pid}-${randomHex()}.repair`;
  try {
    writeFileSync(temporary, file.data, { mode: file.mode });
    chmodSync(temporary, file.mode);
    rmSync(path, { recursive: true, force: true, maxRetries: 0 });
    renameSync(temporary, path);
  } finally {
    rmSync(temporary, { force: true });
  }
}

function fileMatches(path: string, digest: PayloadFileDigest): boolean {
  const stats = lstatOrUndefined(path);
  if (stats === undefined || !stats.isFile() || stats.size !== digest.size) return false;
  return crypto().createHash("sha256").update(readFileSync(path)).digest("hex") === digest.sha256;
}

/** Best effort: a directory the user made read-only still runs, it just gets the full check on every start. */
function writeStamp(dir: string, request: CacheRequest, known?: ReadonlyMap<string, BigIntStats>): void {
  const path = join(dir, STAMP);
  const temporary = `${path}.${process.pid}-${randomHex()}`;
  try {
    writeFileSync(temporary, stampText(dir, request, known), { mode: 0o644 });
    renameSync(temporary, path);
  } catch {
    rmSync(temporary, { force: true });
  }
}

/**
 * One line per file: path, size, inode, mtime and ctime (ns), as stat() sees them now ("-" for a missing file), or
 * as `known` has them (the files this process has just written and closed).
 */
function stampText(dir: string, request: CacheRequest, known?: ReadonlyMap<string, BigIntStats>): string {
  const lines = [`${STAMP_HEADER} ${request.name}`];
  for (const file of request.files) {
    let stats = known?.get(file.path);
    if (stats === undefined) {
      try {
        // Concatenated, not path.join: every warm start runs this for each of the ~230 files, and join's
        // normalizing was a third of the loop (~1 ms); the kernel resolves the path to the same file either way
        // (payload paths are relative, without "..": payload.ts refuses any other).
        stats = lstatSync(`${dir}/${file.path}`, { bigint: true });
      } catch {
        stats = undefined;
      }
    }
    lines.push(
      stats === undefined || !stats.isFile()
        ? `${file.path}\t-`
        : `${file.path}\t${stats.size}\t${stats.ino}\t${stats.mtimeNs}\t${stats.ctimeNs}`,
    );
  }
  return `${lines.join("\n")}\n`;
}

/** "" (the unpacked directory itself) and every directory a payload file sits in, parents first. */
function directoriesOf(files: readonly PayloadFileDigest[]): string[] {
  const dirs = new Set<string>([""]);
  for (const file of files) {
    const parts = file.path.split("/").slice(0, -1);
    for (let depth = 1; depth <= parts.length; depth++) dirs.add(parts.slice(0, depth).join("/"));
  }
  return [...dirs].sort();
}

/**
 * Why another user could write into the directory at `path`, or undefined when only the user can: it must be a
 * directory (a symbolic link to one only when the link is the user's own), owned by the user, and not writable by
 * group or others. Throws what lstat/stat throw (ENOENT for a missing one).
 */
function unsafeReason(path: string, uid: number): string | undefined {
  const link = lstatSync(path);
  if (link.isSymbolicLink() && link.uid !== uid) {
    return `it is a symbolic link owned by uid ${link.uid}, not by this user (uid ${uid})`;
  }
  const stats: Stats = link.isSymbolicLink() ? statSync(path) : link;
  if (!stats.isDirectory()) return "it is not a directory";
  if (stats.uid !== uid) return `it is owned by uid ${stats.uid}, not by this user (uid ${uid})`;
  if ((stats.mode & 0o022) !== 0) {
    const mode = (stats.mode & 0o7777).toString(8).padStart(4, "0");
    return `it is writable by group or others (mode ${mode}); remove that permission (chmod go-w) to use it`;
  }
  return undefined;
}

/**
 * mkdir -p without Node's recursive mkdir, whose retry loop never ends on file systems where mkdir fails with ENOENT
 * under an existing parent (procfs): each missing component is made once, and the first failure is the answer.
 */
export function makeDirectories(path: string, mode: number): void {
  const missing: string[] = [];
  let current = path;
  while (lstatOrUndefined(current) === undefined) {
    missing.push(current);
    const parent = dirname(current);
    if (parent === current) break;
    current = parent;
  }
  for (const dir of missing.reverse()) {
    try {
      mkdirSync(dir, { mode });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
  }
  if (!statSync(path).isDirectory()) throw new Error(`${path} is not a directory`);
}

/** lstat, or undefined when nothing is there (ENOENT, or a file where a parent directory should be). */
function lstatOrUndefined(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    throw error;
  }
}

function readOrUndefined(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}
