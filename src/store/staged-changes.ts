// One store's changes in a staged version, kept from stage to the commit: for a commit whose write failed (its rows
// are put again into a fresh batch) and for the latest-value cache, which drops the written keys at the commit.
//
// Columns beside the stage's own list of writes, not an object per change: the list (the block's sorted pending
// writes: the small form's objects, or a compact layer's walk, which makes write i again when asked) lives until
// the commit anyway, so a change adds only its
// write number, previous version and kind — 17 bytes in three typed arrays, where an object per change took ~80
// bytes of V8's heap with its slot in an array: a 1,000,000-key version kept ~76 MiB of them alive through its stage
// and commit (docs/PERFORMANCE.md, "The one handler's stage and commit, measured").
import { bytesToBinaryString } from "../bytes/text.ts";
import { type SortedWrites, writeAt } from "./cache-layer.ts";
import { putChangeRows } from "./commit-rows.ts";
import type { KVBatch } from "./kv-backend.ts";
import type { RowSink } from "./part-writer.ts";
import type { ChangelogWriter } from "./records.ts";

/** What write i did to the store. */
const SKIPPED = 0; // a delete of a key the tree does not hold: no rows
const SET = 1;
const SET_CLEARING_DELETED = 2; // a set of a key whose last write was a delete: its deleted row goes
const DELETE = 3;

/** The changes of one store's writes at one version, indexed as the writes. */
export class StagedChanges {
  private readonly writes: SortedWrites;
  private readonly kinds: Uint8Array;
  private readonly writeNos: Float64Array;
  private readonly prevVersions: Float64Array;
  /** Write 1's value where a change supersedes an imported write 1 (commit-rows.ts, putChangeRows). */
  private firstValues: Map<number, Uint8Array> | undefined;

  /** `writes` must not change until the commit (the working set refuses writes while a version is staged). */
  constructor(writes: SortedWrites) {
    this.writes = writes;
    this.kinds = new Uint8Array(writes.length);
    this.writeNos = new Float64Array(writes.length);
    this.prevVersions = new Float64Array(writes.length);
  }

  /** Write i set its key, as write `writeNo` of it; `clearsDeleted`: the key had a deleted row. */
  set(i: number, writeNo: number, prevVersion: number, clearsDeleted: boolean): void {
    this.kinds[i] = clearsDeleted ? SET_CLEARING_DELETED : SET;
    this.writeNos[i] = writeNo;
    this.prevVersions[i] = prevVersion;
  }

  /** Write i deleted its key, as write `writeNo` of it. */
  delete(i: number, writeNo: number, prevVersion: number): void {
    this.kinds[i] = DELETE;
    this.writeNos[i] = writeNo;
    this.prevVersions[i] = prevVersion;
  }

  /** Write i's write number when it set its key (0 when it deleted or did nothing). */
  setWriteNo(i: number): number {
    const kind = this.kinds[i];
    return kind === SET || kind === SET_CLEARING_DELETED ? this.writeNos[i] : 0;
  }

  /** Write i supersedes an imported write 1 whose value was `value` (undefined: its history row is on disk already). */
  setFirstValue(i: number, value: Uint8Array | undefined): void {
    if (value === undefined) return;
    this.firstValues ??= new Map();
    this.firstValues.set(i, value);
  }

  /**
   * Puts change i's rows into `batch`, its history rows into `history` (nothing for a skipped write); an update's
   * latest row into `updates` (commit-rows.ts, putChangeRows).
   */
  putRows(
    i: number,
    batch: KVBatch,
    history: RowSink,
    sid: number,
    version: number,
    changelog: ChangelogWriter,
    updates: RowSink = batch,
  ): void {
    const kind = this.kinds[i];
    if (kind === SKIPPED) return;
    const w = writeAt(this.writes, i);
    putChangeRows(
      batch,
      history,
      sid,
      version,
      w.key,
      kind === DELETE ? null : w.value,
      this.writeNos[i],
      this.prevVersions[i],
      kind === SET_CLEARING_DELETED,
      this.firstValues?.get(i),
      changelog,
      updates,
    );
  }

  /** Puts every change's rows into `batch` and its history rows into `history` (a retried commit's fresh batch). */
  putAllRows(batch: KVBatch, history: RowSink, sid: number, version: number, changelog: ChangelogWriter): void {
    for (let i = 0; i < this.writes.length; i++) this.putRows(i, batch, history, sid, version, changelog);
  }

  /** The changed keys as binary strings (what the latest-value cache drops at the commit). */
  *changedKeys(): Iterable<string> {
    const kinds = this.kinds;
    const writes = this.writes;
    for (let i = 0; i < writes.length; i++) {
      if (kinds[i] === SKIPPED) continue;
      const w = writeAt(writes, i);
      yield w.sk ?? bytesToBinaryString(w.key);
    }
  }
}
