// Latest rows of a version that never became the latest: a large version writes its updates' latest rows before its
// commit point, in the early parts beside their history rows (multistore.ts; README "A large version's memory",
// Step B), so that the commit's batch and the memtable LevelDB copies it into do not hold a million rows at once.
//
// Only updates go early: a set of a key whose latest row exists (write w ≥ 2 over a set w−1). Such a row replaces a
// row, never removes or adds one, so every reader stays right while it is on disk: a reader at a version checks the
// row's version and searches the history below its write number when the row is newer (flat-state.ts, readAt), and
// history row w−1 is the committed write itself. Inserts, deletes and deleted rows stay in the commit's batch.
//
// A marker (`m‖partial`: the version and its early stores) goes into the first part, so it is durable before any
// such row; the commit's batch deletes it. While it stands, the rows it names can be undone: each latest row of those
// stores whose version is after the latest is put back as its history row w−1 says (the same bytes the previous commit
// wrote). The undo is idempotent (a restored row is at or before the latest), so it goes in bounded batches, the
// marker deleted with the last: a crash inside it repeats it. Opening a store undoes what a crash left; a discarded or
// failed stage undoes its own before anything else is written.
import { ByteReader, ByteWriter, DecodeError } from "./byte-records.ts";
import { putLatestRow } from "./commit-rows.ts";
import { DataDirectoryCorruptError } from "./errors.ts";
import { decodeLatestRow, parseHistory } from "./flat-state.ts";
import { historyKey, META, metaKey, storePrefix, TABLE } from "./keys.ts";
import type { KVBackend, KVBatch } from "./kv-backend.ts";

/** The marker's record: which version's update rows may be on disk ahead of its commit, in which stores. */
export interface PartialVersion {
  version: number;
  sids: number[];
}

/** Encodes the marker: u64 version, uvarint count, uvarint store ids. */
export function encodePartialVersion(partial: PartialVersion): Uint8Array {
  const w = new ByteWriter(16).u64be(partial.version).uvarint(partial.sids.length);
  for (const sid of partial.sids) w.uvarint(sid);
  return w.finish();
}

/** Decodes a marker written by encodePartialVersion; throws DecodeError on a short or over-long record. */
export function decodePartialVersion(bytes: Uint8Array): PartialVersion {
  const r = new ByteReader(bytes);
  const version = r.u64be();
  const sids: number[] = [];
  for (let n = r.uvarint(); n > 0; n--) sids.push(r.uvarint());
  if (!r.done) throw new DecodeError(`${bytes.length - r.offset} bytes after the last store id`);
  return { version, sids };
}

/**
 * The marker read at an undo: refused as a corrupt store when it does not decode, or names a version other than the
 * one after the latest (the only version whose rows can be on disk ahead of their commit: the commit that makes a
 * version the latest deletes its marker in the same batch).
 */
function readMarker(backend: KVBackend, marker: Uint8Array, latest: number): PartialVersion {
  let partial: PartialVersion;
  try {
    partial = decodePartialVersion(marker);
  } catch (err) {
    throw new DataDirectoryCorruptError(
      backend.location,
      `its marker of a version written ahead of its commit is damaged (${(err as Error).message}); expected a ` +
        "version (8 bytes), a count and that many store ids (varints)",
      { cause: err },
    );
  }
  if (partial.version !== latest + 1) {
    throw new DataDirectoryCorruptError(
      backend.location,
      `its marker names version ${partial.version} as written ahead of its commit, but the latest version is ` +
        `${latest}: only version ${latest + 1} can be`,
    );
  }
  return partial;
}

/** The marker's key. */
export function partialVersionKey(): Uint8Array {
  return metaKey(META.partial);
}

/** Rows put back per batch (~50 bytes each): the undo of a million rows holds no million-row batch. */
const UNDO_BATCH_ROWS = 50_000;

/**
 * Puts back every latest row a version after `latest` wrote early, in the stores the marker names, and deletes the
 * marker; nothing when there is no marker. Returns how many rows it put back. `batchRows`: rows per batch (tests).
 */
export async function undoLatestRowsAfter(
  backend: KVBackend,
  latest: number,
  sync: boolean,
  batchRows = UNDO_BATCH_ROWS,
): Promise<number> {
  const marker = backend.getSync(partialVersionKey());
  if (marker === undefined) return 0;
  const { sids } = readMarker(backend, marker, latest);
  let restored = 0;
  let batch: KVBatch = backend.batch();
  let pending = 0;
  let written = false;
  try {
    for (const sid of sids) {
      const lt = storePrefix(TABLE.latest, sid + 1);
      for await (const [rowKey, row] of backend.iterate({ gte: storePrefix(TABLE.latest, sid), lt })) {
        const top = decodeLatestRow(row, true);
        if (top.version <= latest) continue;
        const key = rowKey.subarray(5);
        const previous = top.writeNo >= 2 ? backend.getSync(historyKey(sid, key, top.writeNo - 1)) : undefined;
        const before = previous === undefined ? undefined : parseHistory(previous);
        if (before?.value === undefined || before.version !== top.prevVersion) {
          throw new DataDirectoryCorruptError(
            backend.location,
            `a latest row of store #${sid} from version ${top.version}, after the latest (${latest}), cannot be ` +
              `undone: its history row ${top.writeNo - 1} is ${before === undefined ? "missing" : "not the set it replaced"}`,
          );
        }
        putLatestRow(batch, sid, key, top.writeNo - 1, before.version, before.prevVersion, before.value);
        restored++;
        if (++pending >= batchRows) {
          written = true;
          await batch.write(sync);
          batch = backend.batch();
          written = false;
          pending = 0;
        }
      }
    }
    batch.del(partialVersionKey());
    written = true;
    await batch.write(sync);
  } finally {
    if (!written) await batch.close();
  }
  return restored;
}
