// A queue of chunks between ApplySnapshotChunk calls (the producer) and the import reading them as a stream (the
// consumer), so a restore imports as chunks arrive instead of holding the whole snapshot in memory.

/** An async iterable fed by push(); end() finishes it, fail() makes the reader throw. */
export class ChunkFeed implements AsyncIterable<Uint8Array> {
  private readonly queue: Uint8Array[] = [];
  private ended = false;
  private failure: Error | undefined;
  private wake: (() => void) | undefined;
  private drainWaiters: (() => void)[] = [];

  /** Adds a chunk for the reader. */
  push(chunk: Uint8Array): void {
    this.queue.push(chunk);
    this.signal();
  }

  /** No more chunks: the reader finishes once it has taken the queued ones. */
  end(): void {
    this.ended = true;
    this.signal();
  }

  /** The reader throws `error` at its next read. */
  fail(error: Error): void {
    this.failure = error;
    this.signal();
    this.releaseDrainWaiters();
  }

  /** Resolves once the reader has taken every queued chunk (or the feed failed). */
  drained(): Promise<void> {
    if (this.queue.length === 0 || this.failure !== undefined) return Promise.resolve();
    return new Promise((resolve) => this.drainWaiters.push(resolve));
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Uint8Array> {
    for (;;) {
      if (this.failure !== undefined) throw this.failure;
      const next = this.queue.shift();
      if (next !== undefined) {
        if (this.queue.length === 0) this.releaseDrainWaiters();
        yield next;
        continue;
      }
      if (this.ended) return;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
    }
  }

  private signal(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  private releaseDrainWaiters(): void {
    const waiters = this.drainWaiters;
    this.drainWaiters = [];
    for (const w of waiters) w();
  }
}
