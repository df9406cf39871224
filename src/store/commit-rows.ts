// A commit's flat-state rows (latest, deleted, history; layout in flat-state.ts and keys.ts),
// encoded straight into the LevelDB batch. LevelDB copies each row into its native batch when it
// is put, so every row is assembled in one reused buffer: a 10k-write commit allocates no row
// keys or values at all, where it used to keep ~40k small arrays alive until the batch was
// written (most of the young-generation GC time of a commit).
import { putUvarint } from "../bytes/varint.ts";
import { TABLE } from "./keys.ts";
import type { KVBatch } from "./kv-backend.ts";
import type { RowSink } from "./part-writer.ts";
import type { ChangelogWriter } from "./records.ts";

/**
 * Larger than 64 bytes, so it lives outside V8's heap and LevelDB reads it in place. A row's key
 * is assembled at offset 0 and its value at valueAt, so both are views from a fixed offset with
 * a length, kept per length: a commit puts two views per row, and making two subarrays per row
 * was a fair share of what it allocates.
 */
let scratch = new Uint8Array(1 << 16);
/** Where values start in the scratch buffer (moved up for a longer key). */
let valueAt = 1 << 12;
let keyViews: Uint8Array[] = [];
let valueViews: Uint8Array[] = [];

function room(keyLength: number, valueLength: number): Uint8Array {
  if (keyLength > valueAt || scratch.length < valueAt + valueLength) {
    while (keyLength > valueAt) valueAt *= 2;
    scratch = new Uint8Array(Math.max(valueAt + valueLength, scratch.length * 2));
    keyViews = [];
    valueViews = [];
  }
  return scratch;
}

/** Puts the key in [0, keyLength) and the value in [valueAt, valueEnd) of the scratch buffer. */
function putRow(batch: RowSink, keyLength: number, valueEnd: number): void {
  let key = keyViews[keyLength];
  if (key === undefined) {
    key = scratch.subarray(0, keyLength);
    keyViews[keyLength] = key;
  }
  const valueLength = valueEnd - valueAt;
  let value = valueViews[valueLength];
  if (value === undefined) {
    value = scratch.subarray(valueAt, valueEnd);
    valueViews[valueLength] = value;
  }
  batch.put(key, value);
}

/** Writes t‖sid‖key at offset 0 of `buf`; returns the key's length. */
function putStoreKey(buf: Uint8Array, table: number, sid: number, key: Uint8Array): number {
  buf[0] = table;
  buf[1] = sid >>> 24;
  buf[2] = (sid >>> 16) & 0xff;
  buf[3] = (sid >>> 8) & 0xff;
  buf[4] = sid & 0xff;
  buf.set(key, 5);
  return 5 + key.length;
}

/** l‖sid‖key → uvarint(writeNo) uvarint(version) uvarint(prevVersion) value. */
export function putLatestRow(
  batch: RowSink,
  sid: number,
  key: Uint8Array,
  writeNo: number,
  version: number,
  prevVersion: number,
  value: Uint8Array,
): void {
  const buf = room(5 + key.length, 30 + value.length);
  const k = putStoreKey(buf, TABLE.latest, sid, key);
  let o = putUvarint(buf, valueAt, writeNo);
  o = putUvarint(buf, o, version);
  o = putUvarint(buf, o, prevVersion);
  buf.set(value, o);
  putRow(batch, k, o + value.length);
}

/** d‖sid‖key → uvarint(writeNo) uvarint(version) uvarint(prevVersion). */
export function putDeletedRow(
  batch: KVBatch,
  sid: number,
  key: Uint8Array,
  writeNo: number,
  version: number,
  prevVersion: number,
): void {
  const buf = room(5 + key.length, 30);
  const k = putStoreKey(buf, TABLE.deleted, sid, key);
  let o = putUvarint(buf, valueAt, writeNo);
  o = putUvarint(buf, o, version);
  o = putUvarint(buf, o, prevVersion);
  putRow(batch, k, o);
}

/** Deletes t‖sid‖key (a latest or deleted row). */
export function deleteStoreRow(batch: KVBatch, table: number, sid: number, key: Uint8Array): void {
  const buf = room(5 + key.length, 0);
  batch.del(buf.subarray(0, putStoreKey(buf, table, sid, key)));
}

/** h‖sid‖key‖writeNo(6) → uvarint(version) uvarint(prevVersion) u8(1 set / 0 delete) value. */
export function putHistoryRow(
  batch: RowSink,
  sid: number,
  key: Uint8Array,
  writeNo: number,
  version: number,
  prevVersion: number,
  value: Uint8Array | null,
): void {
  const buf = room(11 + key.length, 21 + (value?.length ?? 0));
  let k = putStoreKey(buf, TABLE.history, sid, key);
  const high = Math.floor(writeNo / 0x100000000);
  const low = writeNo >>> 0;
  buf[k] = (high >>> 8) & 0xff;
  buf[k + 1] = high & 0xff;
  buf[k + 2] = low >>> 24;
  buf[k + 3] = (low >>> 16) & 0xff;
  buf[k + 4] = (low >>> 8) & 0xff;
  buf[k + 5] = low & 0xff;
  k += 6;
  let o = putUvarint(buf, valueAt, version);
  o = putUvarint(buf, o, prevVersion);
  buf[o++] = value === null ? 0 : 1;
  if (value !== null) {
    buf.set(value, o);
    o += value.length;
  }
  putRow(batch, k, o);
}

/**
 * An imported key: its latest row alone, write number 1 and no previous version (an imported state writes no history
 * rows; the commit that supersedes the key's write 1 writes its history row, FlatChange.firstValue).
 */
export function putImportedRow(batch: KVBatch, sid: number, key: Uint8Array, version: number, value: Uint8Array): void {
  const buf = room(5 + key.length, 21 + value.length);
  const k = putStoreKey(buf, TABLE.latest, sid, key);
  buf[valueAt] = 1; // uvarint(writeNo 1)
  let o = putUvarint(buf, valueAt + 1, version);
  buf[o++] = 0; // uvarint(prevVersion 0)
  buf.set(value, o);
  putRow(batch, k, o + value.length);
}

/**
 * Puts one change's flat rows (latest or deleted, history; an imported write 1's history row when it supersedes one)
 * into the batch and notes it for pruning: the superseded write's history row goes when `v` leaves retention.
 * `value` null: the change deletes the key. `prevVersion`: the version of the key's previous write (0 for the first).
 * `clearsDeleted`: the key had a deleted row (it was deleted before and is set again). `firstValue`: the value of the
 * key's write 1 when this change (write 2) supersedes an imported write 1, which has no history row yet: it is written
 * here, at write 1's version (`prevVersion`), in the same batch as the new latest or deleted row; undefined otherwise
 * (write 1 of a committed key has its history row from its own commit). `history`: where the history rows go — the
 * same batch, or for a large version the parts written before its commit point (part-writer.ts; DROPPED_ROWS when a
 * retried commit puts its rows again and those are on disk already). `updates`: where an update's latest row goes (a
 * set of a key whose latest row it replaces: write ≥ 2, no deleted row cleared) — the batch, or for a large version
 * the early parts beside its history rows (lost-latest-rows.ts says why that is safe and how it is undone). Arguments
 * rather than an object per change: a staged version keeps its changes as columns (staged-changes.ts).
 */
export function putChangeRows(
  batch: KVBatch,
  history: RowSink,
  sid: number,
  v: number,
  key: Uint8Array,
  value: Uint8Array | null,
  writeNo: number,
  prevVersion: number,
  clearsDeleted: boolean,
  firstValue: Uint8Array | undefined,
  changelog: ChangelogWriter,
  updates: RowSink,
): void {
  if (value !== null) {
    putLatestRow(!clearsDeleted && writeNo > 1 ? updates : batch, sid, key, writeNo, v, prevVersion, value);
    if (clearsDeleted) deleteStoreRow(batch, TABLE.deleted, sid, key);
  } else {
    deleteStoreRow(batch, TABLE.latest, sid, key);
    putDeletedRow(batch, sid, key, writeNo, v, prevVersion);
    changelog.tombstone(key, writeNo);
  }
  putHistoryRow(history, sid, key, writeNo, v, prevVersion, value);
  if (firstValue !== undefined) putHistoryRow(history, sid, key, 1, prevVersion, 0, firstValue);
  if (writeNo > 1) changelog.supersede(key, writeNo - 1);
}
