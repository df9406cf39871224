// Recognising and unpacking a downloaded release: a plain executable, a gzip-compressed executable, a tar (plain or
// gzip) or a zip archive. Archives are checked before anything is written: no absolute paths, no `..`, no links
// leading outside, no device files.
import { closeSync, createReadStream, createWriteStream, mkdirSync, openSync, writeSync } from "node:fs";
import { mkdir, open, readdir, rename, rm, stat } from "node:fs/promises";
import { dirname, join, posix } from "node:path";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createGunzip, gunzipSync, constants as zlibConstants } from "node:zlib";
import { errorCode, errorMessage, VisorError } from "./errors.ts";

/** What a downloaded artefact turned out to be. */
export type ArtifactKind = "plain" | "gzip" | "tar" | "tar.gz" | "zip";

const PEEK_BYTES = 64 * 1024;

/**
 * Looks at the first bytes of a downloaded file to tell an archive from a plain executable (the URL's suffix is not
 * trusted: release servers often hide it behind redirects and query strings).
 */
export async function detectArtifact(path: string): Promise<ArtifactKind> {
  const head = await readHead(path, PEEK_BYTES);
  if (head[0] === 0x1f && head[1] === 0x8b) {
    let inner: Buffer;
    try {
      inner = gunzipSync(head, { finishFlush: zlibConstants.Z_SYNC_FLUSH });
    } catch (error) {
      throw new VisorError("the download looks like gzip data but cannot be decompressed", { cause: error });
    }
    return isTar(inner) ? "tar.gz" : "gzip";
  }
  if (
    head[0] === 0x50 &&
    head[1] === 0x4b &&
    (head[2] === 0x03 || head[2] === 0x05) &&
    (head[3] === 0x04 || head[3] === 0x06)
  ) {
    return "zip";
  }
  if (isTar(head)) return "tar";
  if (head.subarray(0, 3).toString("latin1") === "BZh") {
    throw new VisorError("bzip2 archives are not supported", { details: ["publish a .tar.gz or .zip instead"] });
  }
  if (head.subarray(0, 6).equals(Buffer.from([0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00]))) {
    throw new VisorError("xz archives are not supported", { details: ["publish a .tar.gz or .zip instead"] });
  }
  return "plain";
}

function isTar(block: Buffer): boolean {
  return block.length >= 262 && block.subarray(257, 262).toString("latin1") === "ustar";
}

async function readHead(path: string, size: number): Promise<Buffer> {
  const handle = await open(path, "r");
  try {
    const buffer = Buffer.alloc(size);
    const { bytesRead } = await handle.read(buffer, 0, size, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/**
 * Unpacks (or, for a plain file, moves) the artefact into `destination`, which must not exist yet. A plain or gzip
 * file becomes `destination/bin/<name>`; archives are unpacked as they are and located with {@link locateRelease}.
 */
export async function unpackArtifact(
  kind: ArtifactKind,
  artifact: string,
  destination: string,
  name: string,
  maxBytes: number = Number.MAX_SAFE_INTEGER,
): Promise<void> {
  await mkdir(destination, { recursive: true });
  try {
    if (kind === "plain" || kind === "gzip") {
      const target = join(destination, "bin", name);
      await mkdir(dirname(target), { recursive: true });
      if (kind === "plain") await rename(artifact, target);
      else {
        const input = createReadStream(artifact, { highWaterMark: INFLATE_READ_CHUNK });
        await pipeline(input, createGunzip(), limitBytes(maxBytes), createWriteStream(target));
      }
      return;
    }
    if (kind === "zip") return await unpackZip(artifact, destination, maxBytes);
    const tarFile = kind === "tar.gz" ? `${destination}.tar` : artifact;
    try {
      if (kind === "tar.gz") {
        // node-tar inflates each read chunk at once (a 256 KB bomb of zeros held ~280 MB before its ratio check
        // stopped it); Node's gunzip streams, so the tar is first decompressed to a file beside the destination,
        // bounded by the limit (plus room for headers), and node-tar reads that plain tar.
        await pipeline(
          createReadStream(artifact, { highWaterMark: INFLATE_READ_CHUNK }),
          createGunzip(),
          limitBytes(maxBytes + TAR_HEADER_ROOM, maxBytes),
          createWriteStream(tarFile),
        );
      }
      await checkTarEntries(tarFile, maxBytes);
      // Loaded on demand: chainvisor starts often (every command) and unpacks rarely.
      const { extract: extractTar } = await import("tar");
      await extractTar({ file: tarFile, cwd: destination, strict: true, preserveOwner: false });
    } finally {
      if (tarFile !== artifact) await rm(tarFile, { force: true });
    }
  } catch (error) {
    // A damaged or hostile download is the operator's input: one line saying so (node-tar's TAR_BAD_ARCHIVE, its
    // decompression-ratio abort, zlib's "incorrect header check", ...), not an internal fault.
    if (error instanceof VisorError) throw error;
    throw new VisorError(`the ${kind} download cannot be unpacked: ${errorMessage(error)}`, { cause: error });
  }
}

// Archive member names are untrusted: refuse anything that would land outside the release directory.
function unsafeMemberPath(path: string): boolean {
  const normalised = path.replace(/\\/g, "/");
  if (normalised.startsWith("/") || /^[A-Za-z]:/.test(normalised)) return true;
  return normalised.split("/").includes("..");
}

// A link target that is absolute in any form node-tar recognises ("/x", "C:/x", "\\x") is refused here: node-tar
// would strip the root and, in strict mode, fail — and it failed that way without ever settling its promise when an
// earlier link was still being made (found by fuzzing), which hung the unpacking.
function escapesRoot(member: string, linkTarget: string): boolean {
  if (linkTarget.startsWith("/") || linkTarget.startsWith("\\") || /^[A-Za-z]:/.test(linkTarget)) return true;
  const resolved = posix.normalize(posix.join(posix.dirname(member), linkTarget));
  return resolved === ".." || resolved.startsWith("../");
}

/** Room for a tar's headers and padding beyond its members' bytes (8 MiB: 16,384 headers). */
const TAR_HEADER_ROOM = 8 * 1024 * 1024;

// A pass-through that fails once more than `maxBytes` have gone through it; the message names `shownLimit`.
function limitBytes(maxBytes: number, shownLimit: number = maxBytes): Transform {
  let total = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      total += chunk.length;
      if (total > maxBytes) {
        done(
          new VisorError(
            `the download unpacks to more than the limit of ${shownLimit} bytes (DAEMON_DOWNLOAD_MAX_SIZE); unpacking stopped`,
          ),
        );
      } else done(null, chunk);
    },
  });
}

// The headers are read first (tar states every member's size), so an oversized archive is refused before any write.
async function checkTarEntries(file: string, maxBytes: number): Promise<void> {
  const problems: string[] = [];
  let total = 0;
  // Regular files seen so far: a hard link may only name one of them, as tar itself writes them. node-tar never
  // settled its extraction for a hard link to a directory (`a/x` -> `a`, found by fuzzing), whatever its mode.
  const files = new Set<string>();
  const { list: listTar } = await import("tar");
  await listTar({
    file,
    strict: true,
    onReadEntry: (entry) => {
      const path = entry.path;
      if (unsafeMemberPath(path)) problems.push(`${path}: path leaves the release directory`);
      else if (entry.type === "SymbolicLink" && escapesRoot(path, entry.linkpath ?? "")) {
        problems.push(`${path}: symbolic link to ${entry.linkpath} leaves the release directory`);
      } else if (entry.type === "Link" && unsafeMemberPath(entry.linkpath ?? "")) {
        problems.push(`${path}: hard link to ${entry.linkpath} leaves the release directory`);
      } else if ((entry.type === "Link" || entry.type === "SymbolicLink") && linkNests(path, entry.linkpath ?? "")) {
        problems.push(`${path}: link to ${entry.linkpath}, a path inside the link or around it`);
      } else if (entry.type === "Link" && !files.has(memberKey(entry.linkpath ?? ""))) {
        problems.push(`${path}: hard link to ${entry.linkpath}, which is not a file earlier in the archive`);
      } else if (!["File", "OldFile", "ContiguousFile", "Directory", "SymbolicLink", "Link"].includes(entry.type)) {
        problems.push(`${path}: ${entry.type} entries are not allowed`);
      }
      if (["File", "OldFile", "ContiguousFile"].includes(entry.type)) files.add(memberKey(path));
      else files.delete(memberKey(path));
      total += entry.size ?? 0;
      entry.resume();
    },
  });
  if (problems.length > 0) {
    throw new VisorError("the archive holds unsafe entries", { details: problems.slice(0, 10) });
  }
  if (total > maxBytes) {
    throw new VisorError(
      `the archive unpacks to ${total} bytes, more than the limit of ${maxBytes} bytes (DAEMON_DOWNLOAD_MAX_SIZE)`,
    );
  }
}

/**
 * Whether a link and its target (taken, as node-tar takes it when it locks the paths an entry touches, relative to
 * the archive's root, Unicode-normalised and case-folded) lie one inside the other: `s -> s/lib`, `a/x -> a`.
 * node-tar's extraction then waits on its own lock and never settles (found by fuzzing); no release needs such a link.
 */
function linkNests(path: string, linkpath: string): boolean {
  const fold = (text: string) => memberKey(text).normalize("NFD").toLowerCase();
  const member = fold(path);
  const target = fold(linkpath);
  return target.startsWith(`${member}/`) || member.startsWith(`${target}/`);
}

/** A member path as a key: `./a//b/` and `a/b` name the same file. */
function memberKey(path: string): string {
  return posix.normalize(path).replace(/\/+$/, "");
}

/** Compressed bytes handed to the inflater at once: deflate's ~1000:1 ceiling keeps one step's output near 16 MB. */
const INFLATE_READ_CHUNK = 16 * 1024;

// Streams the zip: entries are checked as they come and inflated straight into their files with a running total,
// so neither a large release nor a zip bomb is ever held in memory, and the total is bounded on disk too.
async function unpackZip(file: string, destination: string, maxBytes: number): Promise<void> {
  const { Unzip, UnzipInflate } = await import("fflate");
  let failure: VisorError | undefined;
  let total = 0;
  const unzip = new Unzip((entry) => {
    if (failure !== undefined) return;
    if (unsafeMemberPath(entry.name)) {
      failure = new VisorError("the archive holds unsafe entries", {
        details: [`${entry.name}: path leaves the release directory`],
      });
      return;
    }
    const target = join(destination, entry.name);
    if (entry.name.endsWith("/")) {
      mkdirSync(target, { recursive: true });
      return;
    }
    mkdirSync(dirname(target), { recursive: true });
    const fd = openSync(target, "w", 0o644);
    let open = true;
    const close = () => {
      if (open) closeSync(fd);
      open = false;
    };
    entry.ondata = (error, data, final) => {
      if (failure !== undefined) return close();
      if (error !== null) {
        failure = new VisorError(`the zip archive cannot be read: ${error.message}`, { cause: error });
        return close();
      }
      total += data.length;
      if (total > maxBytes) {
        failure = new VisorError(
          `the archive unpacks to more than the limit of ${maxBytes} bytes (DAEMON_DOWNLOAD_MAX_SIZE); unpacking stopped`,
        );
        entry.terminate();
        return close();
      }
      writeSync(fd, data);
      if (final) close();
    };
    try {
      entry.start();
    } catch (error) {
      close();
      failure = new VisorError(`the zip archive cannot be read: ${entry.name}: ${errorMessage(error)}`, {
        cause: error,
      });
    }
  });
  unzip.register(UnzipInflate);
  try {
    for await (const chunk of createReadStream(file, { highWaterMark: INFLATE_READ_CHUNK })) {
      unzip.push(chunk as Buffer, false);
      if (failure !== undefined) break;
    }
    if (failure === undefined) unzip.push(new Uint8Array(0), true);
  } catch (error) {
    if (failure === undefined) failure = new VisorError(`the zip archive cannot be read: ${errorMessage(error)}`);
  }
  if (failure !== undefined) throw failure;
}

/**
 * Finds the executable in an unpacked release and puts it at `bin/<name>`. Looks for, in order: `bin/<name>`,
 * `<name>`, `bin/<name>.exe`, `<name>.exe`; then the same inside a single top-level directory (archives made with
 * `tar czf x.tar.gz release-1.0/`); then, if the archive holds exactly one file, that file. Returns the release
 * directory (the content directory itself, or its single top-level directory).
 */
export async function locateRelease(contentDir: string, name: string, url: string): Promise<string> {
  const candidates = [join("bin", name), name, join("bin", `${name}.exe`), `${name}.exe`];
  const tryIn = async (dir: string): Promise<string | undefined> => {
    for (const candidate of candidates) {
      if (await isRegularFile(join(dir, candidate))) {
        await placeBinary(dir, candidate, name);
        return dir;
      }
    }
    return undefined;
  };
  const direct = await tryIn(contentDir);
  if (direct !== undefined) return direct;
  const top = await readdir(contentDir, { withFileTypes: true });
  if (top.length === 1 && top[0].isDirectory()) {
    const nested = await tryIn(join(contentDir, top[0].name));
    if (nested !== undefined) return nested;
  }
  const files = await listFiles(contentDir, "");
  if (files.length === 1) {
    await placeBinary(contentDir, files[0], name);
    return contentDir;
  }
  throw new VisorError(`url "${url}" result does not contain a bin/${name} or ${name} file`, {
    details: [
      files.length === 0
        ? "the archive is empty"
        : `the archive holds: ${files.slice(0, 10).join(", ")}${files.length > 10 ? ", ..." : ""}`,
    ],
  });
}

async function placeBinary(releaseDir: string, found: string, name: string): Promise<void> {
  const target = join("bin", name);
  if (found === target) return;
  try {
    await mkdir(join(releaseDir, "bin"), { recursive: true });
    await rename(join(releaseDir, found), join(releaseDir, target));
  } catch (error) {
    // The archive's own layout is in the way (a directory bin/<name>, a file bin): a fault of the download.
    throw new VisorError(`the archive's ${found} cannot be installed as ${target}: ${errorMessage(error)}`, {
      cause: error,
    });
  }
}

// Follows links: `bin/<name>` may be a link to a launcher elsewhere in the release (links were checked on unpacking).
async function isRegularFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch (error) {
    // ELOOP: a link that leads back to itself (`chaind -> chaind/`, found by fuzzing) is no executable either.
    if (["ENOENT", "ENOTDIR", "ELOOP"].includes(errorCode(error) ?? "")) return false;
    throw error;
  }
}

async function listFiles(dir: string, prefix: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const relative = prefix === "" ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isDirectory()) out.push(...(await listFiles(join(dir, entry.name), relative)));
    else if (entry.isFile()) out.push(relative);
  }
  return out;
}
