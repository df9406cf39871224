// The block store's reads served by a LevelDB directory's files read where they lie (src/store/level-files.ts):
// `BlockStore.readFiles`. The store calls get and getMany for its point reads, which is all such a reader serves;
// writes and range reads (tx search, pruning) throw, so a store read this way is for a reader of a few records.
import type { ClassicLevel } from "classic-level";
import type { LevelFiles } from "../store/level-files.ts";

function readOnly(): never {
  throw new Error("a block store read from its files serves point reads only");
}

/** `files` as the database a BlockStore reads through (get, getMany and close; nothing else). */
export function levelFilesDb(files: LevelFiles): ClassicLevel<Uint8Array, Uint8Array> {
  const db = {
    get: async (key: Uint8Array) => files.get(key),
    getMany: async (keys: Uint8Array[]) => keys.map((key) => files.get(key)),
    close: async () => files.close(),
    batch: readOnly,
    keys: readOnly,
    iterator: readOnly,
  };
  // Only the calls above are made on such a store (see the file comment): the rest of LevelDB's surface is absent.
  return db as unknown as ClassicLevel<Uint8Array, Uint8Array>;
}
