// Range reads as plain async iterators rather than async generators. A query's range read passes
// through several layers (engine batches → store rows → values); as generators each layer costs
// several promise ticks per entry and per end, which a paginated REST query (balances) pays on
// every request. These keep the generators' behaviour: nothing starts before the first next(),
// an early return() closes the source, and an error closes what was opened.
import type { AbstractIterator } from "abstract-level";
import type { IterateOptions } from "./types.ts";

type Entry = [Uint8Array, Uint8Array];
type LevelIterator = AbstractIterator<unknown, Uint8Array, Uint8Array>;

/**
 * Entries of an abstract-level database within `options`, read in batches that grow from 16 (most
 * scans are paginated queries that stop early) to 1000.
 */
export class LevelEntries implements AsyncIterableIterator<Entry> {
  private readonly open: () => LevelIterator;
  private readonly map: ((entry: Entry) => Entry) | undefined;
  private iterator: LevelIterator | undefined;
  private batch: Entry[] = [];
  private index = 0;
  private size = 16;
  private finished = false;

  /** `map`, when given, turns each raw entry into the one handed out (no extra iterator layer). */
  constructor(open: () => LevelIterator, map?: (entry: Entry) => Entry) {
    this.open = open;
    this.map = map;
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<Entry> {
    return this;
  }

  async next(): Promise<IteratorResult<Entry>> {
    if (this.index < this.batch.length) return { done: false, value: this.entry(this.batch[this.index++]) };
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
    return { done: false, value: this.entry(entries[0]) };
  }

  private entry(raw: Entry): Entry {
    if (this.map === undefined) return raw;
    try {
      return this.map(raw);
    } catch (err) {
      // As a generator's for-await would: the engine iterator is closed before the error goes on.
      void this.return().catch(() => undefined);
      throw err;
    }
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
 * The iteration `start` gives, started at the first next() (so checks it makes happen when
 * iteration starts, as in a generator). next() hands the source's own promise on: no extra layer.
 */
export class LazyEntries implements AsyncIterableIterator<Entry> {
  private readonly start: () => AsyncIterable<Entry>;
  private source: AsyncIterator<Entry> | undefined;
  private finished = false;

  constructor(start: () => AsyncIterable<Entry>) {
    this.start = start;
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<Entry> {
    return this;
  }

  next(): Promise<IteratorResult<Entry>> {
    if (this.source === undefined) {
      if (this.finished) return Promise.resolve({ done: true, value: undefined });
      try {
        this.source = this.start()[Symbol.asyncIterator]();
      } catch (err) {
        this.finished = true;
        return Promise.reject(err);
      }
    }
    return this.source.next();
  }

  async return(): Promise<IteratorResult<Entry>> {
    this.finished = true;
    await this.source?.return?.();
    return { done: true, value: undefined };
  }
}

/**
 * A store that reads a bounded range in one call, without an iterator per layer. Paginated queries
 * (balances) read a handful of entries; stepping them through every layer's async iterator cost
 * more than the reads (a promise per layer per entry, and a second engine call to find the end).
 */
export interface RangeReader {
  /**
   * The entries `options` names, in order, at most `options.limit` of them (required here): fewer
   * than the limit means the range has no more.
   */
  readRange(options: IterateOptions & { limit: number }): Promise<Entry[]>;
}

/** True when `store` can read a range in one call. */
export function isRangeReader(store: object): store is RangeReader {
  return typeof (store as Partial<RangeReader>).readRange === "function";
}

/**
 * The entries `options` names through `store`'s one-call read when it has one, else by iterating
 * (at most `options.limit` entries; the iteration is closed when it stops early).
 */
export function readRangeOf(
  store: { iterate(options?: IterateOptions): AsyncIterable<Entry> },
  options: IterateOptions & { limit: number },
): Promise<Entry[]> {
  if (isRangeReader(store)) return store.readRange(options);
  return collectEntries(store.iterate(options), options.limit);
}

/** At most `count` entries of `entries` (closing it when it has more). */
export async function collectEntries(entries: AsyncIterable<Entry>, count: number): Promise<Entry[]> {
  const out: Entry[] = [];
  if (count <= 0) return out;
  for await (const entry of entries) {
    out.push(entry);
    if (out.length >= count) break;
  }
  return out;
}
