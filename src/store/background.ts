// Pruning and reclamation of deleted stores, done in small batches between commits. Each batch
// is one exclusive step (commits wait for at most one batch, never for all the work), and nothing a
// batch deletes is readable any more: pruned versions are refused before their rows go, and a
// deleted store's history is refused from the commit that deleted it.
import { setImmediate as nextTick } from "node:timers/promises";
import { bytesToBinaryString } from "../bytes/text.ts";
import { ByteReader, ByteWriter } from "./byte-records.ts";
import { decodeLatestRow } from "./flat-state.ts";
import {
  changelogVersionPrefix,
  commitKey,
  historyKey,
  META,
  metaKey,
  nodeKey,
  pageDeadKey,
  readU32,
  readU64,
  storeKey,
  storePrefix,
  TABLE,
} from "./keys.ts";
import type { BatchOp, KVBackend } from "./kv-backend.ts";
import { type Changelog, changelogSize, decodeChangelog, encodeSidList } from "./records.ts";
import { pageOf, pageSize, refSeq, refVersion } from "./tree-node.ts";

/** What the background worker reads from and writes back to the multistore. */
export interface BackgroundHost {
  /** Versions below this are no longer readable (their rows may go). */
  earliest(): number;
  /** Store ids whose rows are still to be reclaimed. */
  reclaimList(): number[];
  setReclaimList(sids: number[]): void;
  /**
   * The latest version's tree pages are not on disk yet (their write failed). Nothing is deleted then:
   * rebuilding those pages after a crash needs the previous version's tree, which pruning may free.
   */
  pagesPending(): boolean;
  /**
   * Whether the version being staged, or staged and not yet committed or discarded, writes `key` of store `sid`.
   * Such a key's deleted row stays: the stage numbered a set over it after that row, and the commit then needs the
   * history row below it (pruned first, the committed write would be numbered after a history row that is gone).
   */
  stagedWrites(sid: number, key: Uint8Array): boolean;
}

const RECLAIM_TABLES = [TABLE.latest, TABLE.deleted, TABLE.history, TABLE.node, TABLE.pageDead];

/** Runs pruning and reclamation batches; also the lock that keeps them apart from commits. */
export class BackgroundWork {
  private readonly backend: KVBackend;
  private readonly batchSize: number;
  private readonly host: BackgroundHost;
  private tail: Promise<unknown> = Promise.resolve();
  private loop: Promise<void> | undefined;
  private stopped = false;
  /** True once a pruning pass found nothing below the earliest version. */
  private pruneIdle = true;
  private lastError: unknown;
  /** Batches begun, and whether one is running ({@link rowsMark}). */
  private stepsStarted = 0;
  private stepRunning = false;
  /** Resolves when the running batch ends (undefined between batches). */
  private stepEnd: Promise<void> | undefined;
  private decoded: { rowKey: string; changelog: Changelog } | undefined;

  constructor(backend: KVBackend, batchSize: number, host: BackgroundHost) {
    this.backend = backend;
    this.batchSize = Math.max(1, batchSize);
    this.host = host;
  }

  /**
   * Runs `fn` when no other exclusive step (commit or batch) is running. `fn` may hand `after` a
   * write it started and does not wait for (a commit's tree pages): the next exclusive step then
   * waits for that write too, though `fn`'s caller does not.
   */
  exclusive<T>(fn: (after: (trailing: Promise<unknown>) => void) => Promise<T>): Promise<T> {
    let trailing: Promise<unknown> | undefined;
    const result = this.tail.then(() =>
      fn((p) => {
        trailing = p;
      }),
    );
    // `trailing` is read once `fn` has settled, so a step queued while `fn` ran still waits for it.
    this.tail = result
      .then(
        () => trailing,
        () => trailing,
      )
      .catch(() => undefined);
    return result;
  }

  /** Waits for every exclusive step queued so far, and what they left trailing. */
  async settled(): Promise<void> {
    await this.tail;
  }

  /** Starts work left over from a previous run (an interrupted prune or reclamation). */
  start(hasCommits: boolean): void {
    this.pruneIdle = !hasCommits;
    this.kick();
  }

  /** The earliest version went up: there may be rows to prune. */
  pruneTargetRaised(): void {
    this.pruneIdle = false;
  }

  private hasWork(): boolean {
    if (this.host.pagesPending()) return false;
    return !this.pruneIdle || this.host.reclaimList().length > 0;
  }

  /** Starts the batch loop if there is work and it is not running. */
  kick(): void {
    if (this.stopped || this.loop !== undefined || !this.hasWork()) return;
    this.lastError = undefined;
    this.loop = this.run().finally(() => {
      this.loop = undefined;
    });
  }

  private async run(): Promise<void> {
    try {
      while (!this.stopped) {
        const more = await this.exclusive(() => this.step());
        if (!more) return;
        // Let commits and queries in between batches.
        await nextTick();
      }
    } catch (err) {
      this.lastError = err;
    }
  }

  /** Waits until no work is left (or the loop failed; then throws its error). */
  async idle(): Promise<void> {
    for (;;) {
      if (this.loop === undefined) this.kick();
      if (this.loop === undefined) break;
      await this.loop;
      if (this.lastError !== undefined) throw this.lastError;
    }
  }

  /** Finishes the current batch and stops. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.loop !== undefined) await this.loop;
    await this.tail;
  }

  /**
   * A mark of the rows this work may change, or undefined while a batch is running: work that read rows (a commit
   * staged ahead of its block reads deleted rows, which pruning removes) still stands when
   * {@link rowsUnchangedSince} its mark.
   */
  rowsMark(): number | undefined {
    return this.stepRunning ? undefined : this.stepsStarted;
  }

  /** True when no batch has begun since `mark` was taken. */
  rowsUnchangedSince(mark: number): boolean {
    return !this.stepRunning && this.stepsStarted === mark;
  }

  /** Waits for the batch running now, if one is: a stage about to read rows waits for it (see stagedWrites). */
  async batchEnded(): Promise<void> {
    await this.stepEnd;
  }

  /** One bounded batch. Returns false when there was nothing to do. */
  private async step(): Promise<boolean> {
    if (this.stopped || this.host.pagesPending()) return false;
    this.stepsStarted++;
    this.stepRunning = true;
    let ended = (): void => {};
    this.stepEnd = new Promise<void>((resolve) => {
      ended = resolve;
    });
    try {
      return await this.rowStep();
    } finally {
      this.stepRunning = false;
      this.stepEnd = undefined;
      ended();
    }
  }

  private async rowStep(): Promise<boolean> {
    if (this.host.reclaimList().length > 0) return this.reclaimStep();
    if (!this.pruneIdle) {
      if (await this.pruneStep()) return true;
      this.pruneIdle = true;
    }
    return false;
  }

  private async firstRow(gte: Uint8Array, lt: Uint8Array): Promise<[Uint8Array, Uint8Array] | undefined> {
    for await (const entry of this.backend.iterate({ gte, lt, limit: 1 })) return entry;
    return undefined;
  }

  private async pruneStep(): Promise<boolean> {
    const earliest = this.host.earliest();
    const row = await this.firstRow(new Uint8Array([TABLE.changelog]), changelogVersionPrefix(earliest + 1));
    if (row !== undefined) {
      await this.pruneChangelog(row[0], row[1]);
      return true;
    }
    const ops: BatchOp[] = [];
    for await (const [key] of this.backend.iterate({
      gte: new Uint8Array([TABLE.commit]),
      lt: commitKey(earliest),
      limit: this.batchSize,
    })) {
      ops.push({ key, value: undefined });
    }
    if (ops.length === 0) return false;
    await this.backend.write(ops, false);
    return true;
  }

  /** Deletes the next batch of what one changelog row lists; the row goes when it is done. */
  private async pruneChangelog(rowKey: Uint8Array, row: Uint8Array): Promise<void> {
    const version = readU64(rowKey, 1);
    const sid = readU32(rowKey, 9);
    const id = bytesToBinaryString(rowKey);
    if (this.decoded?.rowKey !== id) this.decoded = { rowKey: id, changelog: decodeChangelog(row) };
    const log = this.decoded.changelog;
    const offsetBytes = this.backend.getSync(metaKey(META.pruneOffset));
    const start = offsetBytes === undefined ? 0 : readU64(offsetBytes, 0);
    const total = changelogSize(log);
    const end = Math.min(total, start + this.batchSize);
    const ops: BatchOp[] = [];
    const deadPerPage = new Map<string, { version: number; page: number; dead: number }>();
    const nSup = log.superseded.length;
    const nTomb = log.tombstones.length;
    for (let i = start; i < end; i++) {
      if (i < nSup) {
        const s = log.superseded[i];
        ops.push({ key: historyKey(sid, s.key, s.writeNo), value: undefined });
      } else if (i < nSup + nTomb) {
        const t = log.tombstones[i - nSup];
        // The key may have been set again since (or be set by the staged version); then its deleted row and
        // tombstone are still needed. (A staged version that is discarded leaves them: harmless, a deleted row
        // below the earliest version reads as absent at every retained one.)
        const delKey = storeKey(TABLE.deleted, sid, t.key);
        const del = this.backend.getSync(delKey);
        if (del !== undefined && !this.host.stagedWrites(sid, t.key)) {
          const parsed = decodeLatestRow(del, false);
          if (parsed.writeNo === t.writeNo && parsed.version === version) {
            ops.push({ key: delKey, value: undefined });
            ops.push({ key: historyKey(sid, t.key, t.writeNo), value: undefined });
          }
        }
      } else {
        const ref = log.orphans[i - nSup - nTomb];
        const version = refVersion(ref);
        const { page } = pageOf(refSeq(ref));
        const id = `${version}/${page}`;
        const entry = deadPerPage.get(id);
        if (entry === undefined) deadPerPage.set(id, { version, page, dead: 1 });
        else entry.dead++;
      }
    }
    // A page goes once every node on it is dead; until then its dead count is kept.
    for (const { version, page, dead } of deadPerPage.values()) {
      const counterKey = pageDeadKey(sid, version, page);
      const counter = this.backend.getSync(counterKey);
      const total = (counter === undefined ? 0 : new ByteReader(counter).uvarint()) + dead;
      const pageKey = nodeKey(sid, version, page);
      const record = this.backend.getSync(pageKey);
      if (record === undefined || total >= pageSize(record)) {
        ops.push({ key: pageKey, value: undefined });
        ops.push({ key: counterKey, value: undefined });
      } else {
        ops.push({ key: counterKey, value: new ByteWriter(4).uvarint(total).finish() });
      }
    }
    if (end >= total) {
      ops.push({ key: rowKey, value: undefined });
      ops.push({ key: metaKey(META.pruneOffset), value: undefined });
      this.decoded = undefined;
    } else {
      ops.push({ key: metaKey(META.pruneOffset), value: new ByteWriter(8).u64be(end).finish() });
    }
    await this.backend.write(ops, false);
  }

  /** Clears one batch of a deleted store's rows; drops the store from the list once it is empty. */
  private async reclaimStep(): Promise<boolean> {
    const list = this.host.reclaimList();
    const sid = list[0];
    for (const table of RECLAIM_TABLES) {
      const gte = storePrefix(table, sid);
      const lt = storePrefix(table, sid + 1);
      if ((await this.firstRow(gte, lt)) !== undefined) {
        await this.backend.clear({ gte, lt, limit: this.batchSize });
        return true;
      }
    }
    const rest = list.slice(1);
    await this.backend.write(
      [{ key: metaKey(META.reclaim), value: rest.length === 0 ? undefined : encodeSidList(rest) }],
      false,
    );
    this.host.setReclaimList(rest);
    return true;
  }
}
