// Range reads as plain async iterators rather than async generators. A query's range read passes
// through several layers (engine batches → store rows → values); as generators each layer costs
// several promise ticks per entry and per end, which a paginated REST query (balances) pays on
// every request. These keep the generators' behaviour: nothing starts before the first next(),
// an early return() closes the source, and an error closes what was opened.
import type { AbstractIterator } from "abstract-level";

type Entry = [Uint8Array, Uint8Array];
type LevelIterator = AbstractIterator<unknown, Uint8Array, Uint8Array>;

/**
 * Entries of an abstract-level database within `options`, read in batches that grow from 16 (most
 * scans are paginated queries that stop early) to 1000.
 */
export class LevelEntries implements AsyncIterableIterator<Entry> {
  private readonly open: () => LevelIterator;
  private iterator: LevelIterator | undefined;
  private batch: Entry[] = [];
  private index = 0;
  private size = 16;
  private finished = false;

  constructor(open: () => LevelIterator) {
    this.open = open;
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<Entry> {
    return this;
  }

  async next(): Promise<IteratorResult<Entry>> {
    if (this.index < this.batch.length) return { done: false, value: this.batch[this.index++] };
    if (this.finished) return { done: true, value: undefined };
    this.iterator ??= this.open();
    let entries: Entry[];
    try {
      entries = (await this.iterator.nextv(this.size)) as Entry[];
    } catch (err) {
      await this.return();
      throw err;
    }
    if (entries.length === 0) {
      await this.return();
      return { done: true, value: undefined };
    }
    this.size = Math.min(this.size * 4, 1000);
    this.batch = entries;
    this.index = 1;
    return { done: false, value: entries[0] };
  }

  async return(): Promise<IteratorResult<Entry>> {
    if (!this.finished) {
      this.finished = true;
      this.batch = [];
      await this.iterator?.close();
    }
    return { done: true, value: undefined };
  }
}

/**
 * `source` with each entry passed through `map`; `start` runs at the first next() and gives the
 * source (so checks it makes happen when iteration starts, as in a generator).
 */
export class MappedEntries implements AsyncIterableIterator<Entry> {
  private readonly start: () => AsyncIterable<Entry>;
  private readonly map: (entry: Entry) => Entry;
  private source: AsyncIterator<Entry> | undefined;
  private finished = false;

  constructor(start: () => AsyncIterable<Entry>, map: (entry: Entry) => Entry) {
    this.start = start;
    this.map = map;
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<Entry> {
    return this;
  }

  async next(): Promise<IteratorResult<Entry>> {
    if (this.finished) return { done: true, value: undefined };
    try {
      this.source ??= this.start()[Symbol.asyncIterator]();
      const step = await this.source.next();
      if (step.done) {
        this.finished = true;
        return step;
      }
      return { done: false, value: this.map(step.value) };
    } catch (err) {
      // As a generator's for-await would: the source is closed before the error goes on.
      this.finished = true;
      await this.source?.return?.();
      throw err;
    }
  }

  async return(): Promise<IteratorResult<Entry>> {
    if (!this.finished) {
      this.finished = true;
      await this.source?.return?.();
    }
    return { done: true, value: undefined };
  }
}
