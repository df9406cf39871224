// Unpacking a snapshot archive (`chaind snapshots dump`'s .tar.gz) as untrusted input: only the files a snapshot
// has (snapshot.json, engine-state.json, chunks named 0, 1, ...) as plain files, each at most its size limit, each
// once. Every entry is judged by its tar header before its body is inflated, so a small archive that declares a
// 1 GiB chunk is refused without inflating it; the file is read in small pieces so that one read cannot inflate
// more than a few MB either. Entries are streamed to files in `into` (never held whole in memory).
import { createReadStream, createWriteStream, type WriteStream } from "node:fs";
import { join } from "node:path";
import { Parser, type ReadEntry } from "tar";
import { currentBinaryName } from "../config/home.ts";
import { MAX_CHUNK_BYTES, MAX_CHUNKS } from "./descriptor.ts";
import { SnapshotError } from "./errors.ts";

/** The descriptor's and the engine state's size limit: above what either holds (the hash list is ~70 B/chunk). */
const MAX_META_BYTES = 16 * 1024 * 1024;
/** Read size: deflate inflates at most ~1,000×, so one read inflates at most ~16 MB. */
const READ_BYTES = 16 * 1024;

/** What {@link unpackSnapshotArchive} found: the chunk indexes present and whether engine-state.json is there. */
export interface UnpackedArchive {
  chunkIndexes: Set<number>;
  descriptor: boolean;
  engineState: boolean;
}

/**
 * Unpacks `archive` into the empty folder `into`; throws SnapshotError for anything that is not a snapshot archive
 * (the caller removes `into`). `label` names the archive in messages.
 */
export async function unpackSnapshotArchive(archive: string, into: string, label: string): Promise<UnpackedArchive> {
  const found: UnpackedArchive = { chunkIndexes: new Set(), descriptor: false, engineState: false };
  const seen = new Set<string>();
  let failure: Error | undefined;
  // A write that the file system refused (a full disk, no permission): the machine's problem, not the archive's.
  let writeFailure: { path: string; err: Error } | undefined;
  const writes: Promise<void>[] = [];
  const outputs: WriteStream[] = [];
  const parser = new Parser({
    strict: true,
    // Judged on the header, before any of the body is inflated.
    filter: (path, entry) => {
      const problem = entryProblem(path, entry as ReadEntry, seen);
      if (problem !== undefined) {
        failure ??= new SnapshotError(`${label} is not a snapshot archive: ${problem}`);
        parser.abort(failure);
        return false;
      }
      return true;
    },
  });
  parser.on("entry", (entry: ReadEntry) => {
    const name = plainName(entry.path);
    if (name === undefined || entry.type === "Directory") {
      entry.resume();
      return;
    }
    if (name === "snapshot.json") found.descriptor = true;
    else if (name === "engine-state.json") found.engineState = true;
    else found.chunkIndexes.add(Number(name));
    const write = new Promise<void>((resolve, reject) => {
      const path = join(into, name);
      const out = createWriteStream(path, { flags: "wx" });
      outputs.push(out);
      out.on("error", (err: Error) => {
        writeFailure ??= { path, err };
        reject(err);
      });
      out.on("close", resolve);
      entry.on("error", reject);
      entry.pipe(out);
    });
    // Awaited once the parse is over; a write that fails before then must not count as an unhandled rejection.
    write.catch(() => {});
    writes.push(write);
  });
  const source = createReadStream(archive, { highWaterMark: READ_BYTES });
  try {
    await new Promise<void>((resolve, reject) => {
      parser.on("error", (err: Error) => reject(failure ?? err));
      parser.on("abort", (err: Error) => reject(failure ?? err));
      parser.on("end", () => resolve());
      source.on("error", reject);
      source.pipe(parser);
    });
    await Promise.all(writes);
  } catch (err) {
    // Taken before the outputs are destroyed below: a destroyed stream's own complaint is not the cause.
    const refusedWrite = writeFailure;
    source.destroy();
    // An aborted parse never ends the entry being written: close its file so its write settles.
    for (const out of outputs) out.destroy();
    await Promise.allSettled(writes);
    if (err instanceof SnapshotError) throw err;
    if (refusedWrite !== undefined) {
      throw new SnapshotError(
        `cannot unpack ${label}: the file system refused writing ${refusedWrite.path} (${refusedWrite.err.message})`,
        { cause: refusedWrite.err },
      );
    }
    throw new SnapshotError(
      `${label} is not a snapshot archive (a .tar.gz from \`${currentBinaryName()} snapshots dump\`): ${(err as Error).message}`,
      { cause: err },
    );
  }
  if (failure !== undefined) throw failure;
  return found;
}

/** Why an entry may not be unpacked, or undefined when it may. */
function entryProblem(path: string, entry: ReadEntry, seen: Set<string>): string | undefined {
  const name = plainName(path);
  if (name === undefined) return `it holds "${cut(path)}"; expected only snapshot.json, engine-state.json and chunks`;
  if (name === ".") return entry.type === "Directory" ? undefined : `it holds "${cut(path)}"`;
  if (entry.type === "Directory") return `it holds a folder "${cut(path)}"`;
  if (entry.type !== "File" && entry.type !== "OldFile" && entry.type !== "ContiguousFile") {
    return `"${cut(path)}" is a ${entry.type}, not a plain file`;
  }
  if (seen.has(name)) return `it holds "${name}" twice`;
  seen.add(name);
  const size = entry.size ?? 0;
  const limit = /^\d+$/.test(name) ? MAX_CHUNK_BYTES : MAX_META_BYTES;
  if (size > limit) return `"${name}" is ${size} bytes, more than the ${limit} a snapshot's ${kind(name)} may have`;
  return undefined;
}

/** The file name an archive path stands for ("./0" and "0" alike), or undefined for a name a snapshot never has. */
function plainName(path: string): string | undefined {
  const name = path.startsWith("./") ? path.slice(2) : path;
  if (name === "" || name === "." || name === "./") return ".";
  if (name === "snapshot.json" || name === "engine-state.json") return name;
  if (/^(0|[1-9][0-9]{0,5})$/.test(name) && Number(name) < MAX_CHUNKS) return name;
  return undefined;
}

function kind(name: string): string {
  return /^\d+$/.test(name) ? "chunk" : name;
}

function cut(text: string): string {
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
