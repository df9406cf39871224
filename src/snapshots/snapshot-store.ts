// The node's local snapshots under `data/snapshots/`: one folder per snapshot,
// `<height>/<format>/` holding `snapshot.json` (height, format, chunk count, hash, chunk hashes)
// and the chunks as files `0`, `1`, .... A snapshot is written in a hidden temporary folder and
// renamed into place, so a crash never leaves a partial snapshot that looks complete.
import { createHash } from "node:crypto";
import { mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { SnapshotError, SnapshotFormatError, SnapshotNotFoundError } from "./errors.ts";
import { encodeMetadata } from "./metadata.ts";

/** A snapshot as CometBFT's ABCI `Snapshot` describes it, plus the chunk hashes its metadata carries. */
export interface SnapshotInfo {
  height: bigint;
  format: number;
  chunks: number;
  /** sha256 of the whole chunk stream. */
  hash: Uint8Array;
  chunkHashes: Uint8Array[];
}

/** The ABCI `Snapshot.metadata` bytes of a snapshot. */
export function metadataOf(info: SnapshotInfo): Uint8Array {
  return encodeMetadata(info.chunkHashes);
}

const DESCRIPTOR = "snapshot.json";

/** The snapshots of one home (`<home>/data/snapshots`). */
export class SnapshotStore {
  readonly dir: string;

  constructor(dir: string) {
    this.dir = dir;
  }

  /** Every complete snapshot, newest first (by height, then format). */
  async list(): Promise<SnapshotInfo[]> {
    const out: SnapshotInfo[] = [];
    for (const h of await entriesOf(this.dir)) {
      if (!/^\d+$/.test(h)) continue;
      for (const f of await entriesOf(join(this.dir, h))) {
        if (!/^\d+$/.test(f)) continue;
        const info = await this.read(BigInt(h), Number(f)).catch(() => undefined);
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
    const text = await readFile(path, "utf8");
    try {
      const json = JSON.parse(text) as {
        height: string;
        format: number;
        chunks: number;
        hash: string;
        chunk_hashes: string[];
      };
      const info: SnapshotInfo = {
        height: BigInt(json.height),
        format: json.format,
        chunks: json.chunks,
        hash: Buffer.from(json.hash, "hex"),
        chunkHashes: json.chunk_hashes.map((h) => new Uint8Array(Buffer.from(h, "hex"))),
      };
      if (info.height !== height || info.format !== format || info.chunkHashes.length !== info.chunks) {
        throw new Error("its fields disagree with its place");
      }
      return info;
    } catch (err) {
      throw new SnapshotFormatError(`${path} is not a valid snapshot descriptor: ${(err as Error).message}`, {
        cause: err,
      });
    }
  }

  /** Chunk `index` of a snapshot, or undefined when there is no such snapshot or chunk. */
  async loadChunk(height: bigint, format: number, index: number): Promise<Uint8Array | undefined> {
    if (!Number.isSafeInteger(index) || index < 0) return undefined;
    try {
      return new Uint8Array(await readFile(join(this.folder(height, format), String(index))));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw err;
    }
  }

  /** Every chunk of a snapshot in order, each checked against its hash. */
  async *chunks(info: SnapshotInfo): AsyncGenerator<Uint8Array> {
    for (let i = 0; i < info.chunks; i++) {
      const chunk = await this.loadChunk(info.height, info.format, i);
      if (chunk === undefined)
        throw new SnapshotError(`chunk ${i} of snapshot ${info.height}/${info.format} is missing`);
      if (!sha256(chunk).equals(Buffer.from(info.chunkHashes[i]))) {
        throw new SnapshotError(`chunk ${i} of snapshot ${info.height}/${info.format} does not match its hash`);
      }
      yield chunk;
    }
  }

  /**
   * Writes a snapshot from its chunks (hashing them on the way) and returns its descriptor. An
   * existing snapshot of the same height and format is replaced only once the new one is complete.
   */
  async save(height: bigint, format: number, chunks: AsyncIterable<Uint8Array>): Promise<SnapshotInfo> {
    await mkdir(this.dir, { recursive: true });
    const tmp = join(this.dir, `.tmp-${height}-${format}-${process.pid}-${Date.now()}`);
    await rm(tmp, { recursive: true, force: true });
    await mkdir(tmp);
    try {
      const whole = createHash("sha256");
      const chunkHashes: Uint8Array[] = [];
      for await (const chunk of chunks) {
        whole.update(chunk);
        chunkHashes.push(new Uint8Array(sha256(chunk)));
        await writeFile(join(tmp, String(chunkHashes.length - 1)), chunk);
      }
      const info: SnapshotInfo = {
        height,
        format,
        chunks: chunkHashes.length,
        hash: new Uint8Array(whole.digest()),
        chunkHashes,
      };
      await writeFile(join(tmp, DESCRIPTOR), `${JSON.stringify(describe(info), null, 2)}\n`);
      const target = this.folder(height, format);
      await mkdir(join(this.dir, String(height)), { recursive: true });
      await rm(target, { recursive: true, force: true });
      await rename(tmp, target);
      return info;
    } catch (err) {
      await rm(tmp, { recursive: true, force: true });
      throw err;
    }
  }

  /** Deletes a snapshot; throws SnapshotNotFoundError when there is none. */
  async delete(height: bigint, format: number): Promise<void> {
    if ((await this.get(height, format)) === undefined) throw new SnapshotNotFoundError(height, format);
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

  /** The path of a file kept beside a snapshot's chunks (e.g. `engine-state.json`); the snapshot must exist. */
  sidecar(height: bigint, format: number, name: string): string {
    return join(this.folder(height, format), name);
  }

  /** The folder of a snapshot (its descriptor, chunks and sidecar files). */
  folder(height: bigint, format: number): string {
    return join(this.dir, String(height), String(format));
  }
}

/** The JSON form of a descriptor (also what `snapshots list -o json` prints). */
export function describe(info: SnapshotInfo): {
  height: string;
  format: number;
  chunks: number;
  hash: string;
  chunk_hashes: string[];
} {
  return {
    height: info.height.toString(),
    format: info.format,
    chunks: info.chunks,
    hash: Buffer.from(info.hash).toString("hex").toUpperCase(),
    chunk_hashes: info.chunkHashes.map((h) => Buffer.from(h).toString("hex").toUpperCase()),
  };
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
