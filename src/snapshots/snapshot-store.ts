// The node's local snapshots under `data/snapshots/`: one folder per snapshot,
// `<height>/<format>/` holding `snapshot.json` (height, format, chunk count, hash, chunk hashes)
// and the chunks as files `0`, `1`, .... A snapshot is written in a hidden temporary folder and
// renamed into place, so a crash never leaves a partial snapshot that looks complete.
import { createHash, randomBytes, webcrypto } from "node:crypto";
import { lstat, mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { isAbsolute, join, relative, resolve } from "node:path";
import { equalBytes } from "../bytes/compare.ts";
import { withTargetPath } from "../config/atomic-file.ts";
import { currentBinaryName } from "../config/home.ts";
import { processGone } from "../config/stale-temporaries.ts";
import {
  describe,
  isSnapshotFormat,
  isSnapshotHeight,
  parseDescriptorText,
  parseFormatText,
  parseHeightText,
  type SnapshotInfo,
} from "./descriptor.ts";
import { SnapshotError, SnapshotFormatError, SnapshotNotFoundError } from "./errors.ts";
import { encodeMetadata } from "./metadata.ts";

export { describe, type SnapshotInfo } from "./descriptor.ts";

/** The ABCI `Snapshot.metadata` bytes of a snapshot. */
export function metadataOf(info: SnapshotInfo): Uint8Array {
  return encodeMetadata(info.chunkHashes);
}

const DESCRIPTOR = "snapshot.json";
/** The file beside a snapshot's chunks that carries the embedded engine's state at its height. */
export const ENGINE_STATE_FILE = "engine-state.json";
/**
 * Hidden work folders: `.tmp-<height>-<format>-<pid>-<ms>` while a snapshot is saved, `.tmp-load-<pid>-<ms>-<hex>`
 * while an archive is unpacked. A kill leaves them behind; the writer's pid says when they are garbage.
 */
const TEMPORARY = /^\.tmp-(?:\d+-\d+|load)-(\d+)-\d+(?:-[0-9a-f]+)?$/;

/** The snapshots of one home (`<home>/data/snapshots`). Nothing it writes or deletes lies outside that folder. */
export class SnapshotStore {
  readonly dir: string;

  constructor(dir: string) {
    this.dir = resolve(dir);
  }

  /** Every complete snapshot, newest first (by height, then format). Folders not named by valid numbers are skipped. */
  async list(): Promise<SnapshotInfo[]> {
    const out: SnapshotInfo[] = [];
    for (const h of await entriesOf(this.dir)) {
      const height = parseHeightText(h);
      if (height === undefined) continue;
      for (const f of await entriesOf(join(this.dir, h))) {
        const format = parseFormatText(f);
        if (format === undefined) continue;
        const info = await this.read(height, format).catch(() => undefined);
        if (info !== undefined) out.push(info);
      }
    }
    return out.sort((a, b) => (a.height === b.height ? b.format - a.format : a.height > b.height ? -1 : 1));
  }

  /** The snapshot at `height` in `format`, or undefined. Throws SnapshotFormatError for a damaged descriptor. */
  async get(height: bigint, format: number): Promise<SnapshotInfo | undefined> {
    try {
      return await this.read(height, format);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw err;
    }
  }

  private async read(height: bigint, format: number): Promise<SnapshotInfo> {
    const path = join(this.folder(height, format), DESCRIPTOR);
    const info = parseDescriptorText(await readFile(path, "utf8"), path);
    if (info.height !== height || info.format !== format) {
      throw new SnapshotFormatError(
        `${path} is not a valid snapshot descriptor: it describes ${info.height}/${info.format}, not ${height}/${format}`,
      );
    }
    return info;
  }

  /** Chunk `index` of a snapshot, or undefined when there is no such snapshot or chunk (or the numbers are invalid). */
  async loadChunk(height: bigint, format: number, index: number): Promise<Uint8Array | undefined> {
    if (!Number.isSafeInteger(index) || index < 0) return undefined;
    if (!isSnapshotHeight(height) || !isSnapshotFormat(format)) return undefined;
    try {
      const bytes = await readFile(join(this.folder(height, format), String(index)));
      // A plain Uint8Array over the file's own memory: new Uint8Array(buffer) copied each 4 MiB chunk once more.
      return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw err;
    }
  }

  /**
   * Every chunk of a snapshot in order, each checked against its hash; after the last one the whole stream is
   * checked against the snapshot hash, so a reader that consumes it all has read exactly what the descriptor says.
   * The next chunk is read and checked while the reader works on this one: the read and its hash run on libuv's
   * threads, where a restore's main thread (its bound) used to wait for the one and compute the other.
   */
  async *chunks(info: SnapshotInfo): AsyncGenerator<Uint8Array> {
    const whole = createHash("sha256");
    let next = info.chunks > 0 ? this.checkedChunk(info, 0) : undefined;
    for (let i = 0; i < info.chunks; i++) {
      const chunk = await (next as Promise<Uint8Array>);
      next = i + 1 < info.chunks ? this.checkedChunk(info, i + 1) : undefined;
      // Awaited at the next step; a reader that stops before it must not leave its failure unhandled.
      next?.catch(() => {});
      whole.update(chunk);
      yield chunk;
    }
    if (!whole.digest().equals(Buffer.from(info.hash))) {
      throw new SnapshotError(
        `the chunks of snapshot ${info.height}/${info.format} do not add up to the snapshot hash its descriptor declares`,
      );
    }
  }

  /** Chunk `i` of the snapshot, checked against its hash (computed on libuv's thread pool). */
  private async checkedChunk(info: SnapshotInfo, i: number): Promise<Uint8Array> {
    const chunk = await this.loadChunk(info.height, info.format, i);
    if (chunk === undefined) throw new SnapshotError(`chunk ${i} of snapshot ${info.height}/${info.format} is missing`);
    const digest = new Uint8Array(await webcrypto.subtle.digest("SHA-256", chunk));
    if (!equalBytes(digest, info.chunkHashes[i])) {
      throw new SnapshotError(`chunk ${i} of snapshot ${info.height}/${info.format} does not match its hash`);
    }
    return chunk;
  }

  /**
   * Writes a snapshot from its chunks (hashing them on the way) and returns its descriptor. An existing snapshot of
   * the same height and format is replaced only once the new one is complete. A folder at that height and format that
   * is not a snapshot this store wrote ({@link checkReplaceable}) is refused before anything is written, and checked
   * again before the swap: nothing of it is deleted. `signal` cancels the write: the temporary folder is removed and
   * the signal's reason thrown.
   */
  async save(
    height: bigint,
    format: number,
    chunks: AsyncIterable<Uint8Array>,
    options: { signal?: AbortSignal } = {},
  ): Promise<SnapshotInfo> {
    const target = this.folder(height, format); // validates the numbers before any path is built from them
    await this.checkReplaceable(height, format);
    await mkdir(this.dir, { recursive: true });
    const tmp = join(this.dir, `.tmp-${height}-${format}-${process.pid}-${Date.now()}`);
    await rm(tmp, { recursive: true, force: true });
    await mkdir(tmp);
    try {
      const whole = createHash("sha256");
      const chunkHashes: Uint8Array[] = [];
      for await (const chunk of chunks) {
        options.signal?.throwIfAborted();
        whole.update(chunk);
        chunkHashes.push(new Uint8Array(sha256(chunk)));
        await writeFile(join(tmp, String(chunkHashes.length - 1)), chunk);
      }
      options.signal?.throwIfAborted();
      const info: SnapshotInfo = {
        height,
        format,
        chunks: chunkHashes.length,
        hash: new Uint8Array(whole.digest()),
        chunkHashes,
      };
      await writeFile(join(tmp, DESCRIPTOR), descriptorText(info));
      await mkdir(join(this.dir, String(height)), { recursive: true });
      await this.checkReplaceable(height, format);
      await rm(target, { recursive: true, force: true });
      await rename(tmp, target);
      return info;
    } catch (err) {
      await rm(tmp, { recursive: true, force: true });
      // A full disk fails a chunk's write with Node's pathless "ENOSPC: …, write": say which snapshot it was.
      throw withTargetPath(err, target);
    }
  }

  /**
   * Throws SnapshotError unless the folder of `height`/`format` is absent or holds a snapshot this store wrote: a
   * folder whose snapshot.json describes this height and format (what {@link get} and {@link list} count as a
   * snapshot) and that holds nothing but the files the store writes there (snapshot.json, chunks `0` to `chunks-1`,
   * engine-state.json and their temporaries). Anything else there (a file of the operator's, a damaged descriptor,
   * a file or link in place of the folder) is not the store's to delete.
   */
  async checkReplaceable(height: bigint, format: number): Promise<void> {
    const target = this.folder(height, format);
    const refuse = (why: string) =>
      new SnapshotError(
        `${target} already exists and is not a snapshot ${currentBinaryName()} wrote (${why}); left untouched: move it away or remove it first`,
      );
    await this.refuseLinks(height, format);
    let entries: string[];
    try {
      if (!(await lstat(target)).isDirectory()) throw refuse("it is not a folder");
      entries = await readdir(target);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return;
      throw err;
    }
    let info: SnapshotInfo | undefined;
    try {
      info = await this.get(height, format);
    } catch {
      throw refuse(`its ${DESCRIPTOR} is not a valid descriptor of snapshot ${height}/${format}`);
    }
    if (info === undefined) throw refuse(`it holds no ${DESCRIPTOR}`);
    const chunks = info.chunks;
    const foreign = entries.filter((name) => !isStoreFile(name, chunks));
    if (foreign.length > 0) {
      const named = foreign
        .sort()
        .slice(0, 3)
        .map((name) => JSON.stringify(name));
      throw refuse(`it also holds ${named.join(", ")}${foreign.length > 3 ? ` and ${foreign.length - 3} more` : ""}`);
    }
  }

  /** Deletes a snapshot; throws SnapshotNotFoundError when there is none. */
  async delete(height: bigint, format: number): Promise<void> {
    if ((await this.get(height, format)) === undefined) throw new SnapshotNotFoundError(height, format);
    await this.refuseLinks(height, format);
    await rm(this.folder(height, format), { recursive: true, force: true });
    if ((await entriesOf(join(this.dir, String(height)))).length === 0) {
      await rm(join(this.dir, String(height)), { recursive: true, force: true });
    }
  }

  /** Keeps the `keepRecent` newest snapshots (0 keeps all, as upstream) and deletes the rest; returns what went. */
  async prune(keepRecent: number): Promise<SnapshotInfo[]> {
    if (keepRecent <= 0) return [];
    const all = await this.list();
    const gone = all.slice(keepRecent);
    for (const info of gone) await this.delete(info.height, info.format);
    return gone;
  }

  /**
   * Stores `bytes` as the snapshot's engine-state.json and records their sha256 in its descriptor (each file is
   * written beside and renamed into place), so the file is covered by the descriptor as the chunks are.
   */
  async writeEngineState(info: SnapshotInfo, bytes: Uint8Array): Promise<SnapshotInfo> {
    const folder = this.folder(info.height, info.format);
    await this.refuseLinks(info.height, info.format, true);
    const covered: SnapshotInfo = { ...info, engineStateHash: new Uint8Array(sha256(bytes)) };
    await replaceFile(join(folder, ENGINE_STATE_FILE), bytes);
    await replaceFile(join(folder, DESCRIPTOR), descriptorText(covered));
    return covered;
  }

  /** Removes the snapshot's engine-state.json and its hash from the descriptor (a file that cannot be trusted). */
  async dropEngineState(info: SnapshotInfo): Promise<SnapshotInfo> {
    const folder = this.folder(info.height, info.format);
    await this.refuseLinks(info.height, info.format, true);
    const bare: SnapshotInfo = { ...info };
    delete bare.engineStateHash;
    await replaceFile(join(folder, DESCRIPTOR), descriptorText(bare));
    await rm(join(folder, ENGINE_STATE_FILE), { force: true });
    return bare;
  }

  /**
   * The snapshot's engine-state.json, checked against the hash its descriptor records; undefined when the
   * snapshot carries none. A file that its descriptor does not cover, or that does not match, is refused.
   */
  async readEngineState(info: SnapshotInfo): Promise<Uint8Array | undefined> {
    const where = `${ENGINE_STATE_FILE} of snapshot ${info.height}/${info.format}`;
    let bytes: Buffer;
    try {
      bytes = await readFile(join(this.folder(info.height, info.format), ENGINE_STATE_FILE));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
      if (info.engineStateHash !== undefined) {
        throw new SnapshotError(`the ${where} is missing, though its descriptor records one`);
      }
      return undefined;
    }
    if (info.engineStateHash === undefined) {
      throw new SnapshotError(
        `the ${where} is not covered by its descriptor (no "engine_state_hash"); take the snapshot again with \`${currentBinaryName()} snapshots export\` and dump it`,
      );
    }
    if (!sha256(bytes).equals(Buffer.from(info.engineStateHash))) {
      throw new SnapshotError(`the ${where} does not match the hash its descriptor records (the file is damaged)`);
    }
    return new Uint8Array(bytes);
  }

  /**
   * A new empty work folder inside this store (hidden, named with this process's pid so the start-up cleaner
   * knows when it is garbage), for unpacking an archive on the same file system as the snapshots.
   */
  async workFolder(): Promise<string> {
    await mkdir(this.dir, { recursive: true });
    const path = join(this.dir, `.tmp-load-${process.pid}-${Date.now()}-${randomBytes(4).toString("hex")}`);
    await mkdir(path);
    return path;
  }

  /** Removes the work folders whose writing process no longer runs (a kill mid-snapshot); returns their names. */
  async removeStaleTemporaries(): Promise<string[]> {
    const removed: string[] = [];
    for (const name of await entriesOf(this.dir)) {
      const match = TEMPORARY.exec(name);
      if (match === null || !processGone(Number(match[1]))) continue;
      await rm(join(this.dir, name), { recursive: true, force: true });
      removed.push(name);
    }
    return removed;
  }

  /**
   * Throws SnapshotError when the height folder of a snapshot (or, with `formatToo`, its format folder) is a symbolic
   * link. The path is inside this store by name only: writing through such a link, or deleting what it points at,
   * would touch files outside data/snapshots, so the store refuses and leaves the link alone. (A link in place of the
   * format folder is already refused as "not a folder" by {@link checkReplaceable}, and deleting one removes the link
   * only. data/snapshots itself may be a link: an operator putting snapshots on another disk chose that place.)
   */
  private async refuseLinks(height: bigint, format: number, formatToo = false): Promise<void> {
    const folder = this.folder(height, format);
    const paths = [join(this.dir, height.toString())];
    if (formatToo) paths.push(folder);
    for (const path of paths) {
      let link: boolean;
      try {
        link = (await lstat(path)).isSymbolicLink();
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === "ENOENT") return;
        throw err;
      }
      if (link) {
        throw new SnapshotError(
          `${path} is a symbolic link; snapshots are written and deleted only in real folders inside ${this.dir}, so it is left untouched: replace it with a folder or remove it`,
        );
      }
    }
  }

  /** The path of a file kept beside a snapshot's chunks (a plain file name); the snapshot must exist. */
  sidecar(height: bigint, format: number, name: string): string {
    if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name)) throw new SnapshotError(`"${name}" is not a snapshot file name`);
    return join(this.folder(height, format), name);
  }

  /**
   * The folder of a snapshot (its descriptor, chunks and sidecar files). Throws SnapshotError unless the height is
   * a uint64 above 0 and the format a uint32, and checks that the path stays inside this store's folder.
   */
  folder(height: bigint, format: number): string {
    if (!isSnapshotHeight(height)) {
      throw new SnapshotError(`${String(height)} is not a snapshot height; expected a whole number from 1 to 2^64-1`);
    }
    if (!isSnapshotFormat(format)) {
      throw new SnapshotError(
        `${JSON.stringify(format) ?? String(format)} is not a snapshot format; expected a whole number from 0 to 4294967295`,
      );
    }
    const path = join(this.dir, height.toString(), format.toString());
    const inside = relative(this.dir, path);
    if (inside === "" || inside.startsWith("..") || isAbsolute(inside)) {
      throw new SnapshotError(`snapshot ${height}/${format} would lie outside ${this.dir}`);
    }
    return path;
  }
}

/** A file the store writes in a snapshot's folder: the descriptor, a chunk, the engine state, or a temporary of theirs. */
function isStoreFile(name: string, chunks: number): boolean {
  if (name === DESCRIPTOR || name === ENGINE_STATE_FILE) return true;
  if (/^(?:0|[1-9]\d*)$/.test(name)) return Number(name) < chunks;
  // replaceFile's temporary beside a descriptor or engine state, left by a kill mid-write.
  return /^(?:snapshot|engine-state)\.json\.tmp-\d+-[0-9a-f]+$/.test(name);
}

function descriptorText(info: SnapshotInfo): string {
  return `${JSON.stringify(describe(info), null, 2)}\n`;
}

/** Writes `path` whole or not at all: a temporary beside it, then a rename. */
async function replaceFile(path: string, data: Uint8Array | string): Promise<void> {
  const tmp = `${path}.tmp-${process.pid}-${randomBytes(6).toString("hex")}`;
  try {
    await writeFile(tmp, data);
    await rename(tmp, path);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
}

function sha256(bytes: Uint8Array): Buffer {
  return createHash("sha256").update(bytes).digest();
}

async function entriesOf(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw err;
  }
}
