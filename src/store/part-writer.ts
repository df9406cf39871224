// Rows written in parts of a bounded size, each synced, while the caller goes on filling the next: a large version's
// history rows and tree pages, written before its commit point (multistore.ts, README "A large version's memory").
// Two batches take turns, one being written while the other fills, so at most two parts are alive; with
// classic-level each is one native batch kept across parts (KVBatch.writePart keeps its buffer), where a new batch
// per part would stay resident until V8 collected its small wrapper. A backend without writePart (memory-level, in
// tests) writes each part as a batch of its own.
import type { KVBackend, KVBatch } from "./kv-backend.ts";

/** Where rows go: what putChangeRows and PageBatch need of a batch. */
export type RowSink = Pick<KVBatch, "put">;

/** A sink that drops what it is given (a retried commit's history rows, already on disk). */
export const DROPPED_ROWS: RowSink = { put: () => {} };

export class PartWriter implements RowSink {
  private readonly backend: KVBackend;
  private readonly partBytes: number;
  private readonly sync: boolean;
  /** The part filling now. */
  private current: KVBatch;
  /** The other batch: the part being written, or written and empty again. */
  private other: KVBatch | undefined;
  /** The last part's write, started and not yet awaited (its failure is seen at the next rotate or finish). */
  private inFlight: Promise<void> | undefined;
  /** Bytes (keys and values) put into the current part. */
  bytes = 0;
  /** Parts whose write was started. */
  partsStarted = 0;

  constructor(backend: KVBackend, partBytes: number, sync: boolean) {
    this.backend = backend;
    this.partBytes = Math.max(1, partBytes);
    this.sync = sync;
    this.current = backend.batch();
  }

  put(key: Uint8Array, value: Uint8Array): void {
    this.current.put(key, value);
    this.bytes += key.length + value.length;
  }

  /** Whether the current part is full: the caller then awaits {@link rotate} before putting more. */
  get full(): boolean {
    return this.bytes >= this.partBytes;
  }

  /**
   * Starts the current part's write and switches to the other batch, once the part before it is written (so at most
   * two are alive). Rejects when that earlier part's write failed.
   */
  async rotate(): Promise<void> {
    if (this.bytes === 0) return;
    await this.settle();
    const part = this.current;
    this.current = this.other ?? this.backend.batch();
    this.other = part.writePart === undefined ? undefined : part;
    this.bytes = 0;
    this.partsStarted++;
    const written = this.writePart(part);
    // Seen by the next rotate or finish; until then a failure must not be reported as unhandled.
    written.catch(() => {});
    this.inFlight = written;
  }

  /** Writes the last part and waits until every part is durable; releases both batches. Rejects if a write failed. */
  async finish(): Promise<void> {
    await this.rotate();
    await this.settle();
    await this.release();
  }

  /** Drops what is not written yet (a failed or abandoned stage), once a write in flight is over; never rejects. */
  async abandon(): Promise<void> {
    await this.settle().catch(() => {});
    await this.release().catch(() => {});
  }

  private async settle(): Promise<void> {
    const inFlight = this.inFlight;
    this.inFlight = undefined;
    if (inFlight !== undefined) await inFlight;
  }

  private async writePart(batch: KVBatch): Promise<void> {
    if (batch.writePart !== undefined) await batch.writePart(this.sync);
    else await batch.write(this.sync);
  }

  private async release(): Promise<void> {
    const batches = [this.current, this.other];
    this.other = undefined;
    for (const batch of batches) if (batch !== undefined) await batch.close();
  }
}
