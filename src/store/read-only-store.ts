// The public read-only face of one store at one committed version.
import { collectEntries, type RangeReader } from "./entry-iterators.ts";
import { assertKey, type KVSource, limited, type ScanRange, toScanRange } from "./kv-source.ts";
import type { IterateOptions, ReadableKVStore } from "./types.ts";

type Entry = [Uint8Array, Uint8Array];

/** A source that reads a bounded range in one call (flat-state's sources). */
interface RangeSource extends KVSource {
  readRange(range: ScanRange, limit: number): Promise<Entry[]>;
}

/** Wraps a KVSource as a ReadableKVStore (validating arguments). */
export class ReadOnlyStore implements ReadableKVStore, RangeReader {
  private readonly source: KVSource;

  constructor(source: KVSource) {
    this.source = source;
  }

  // Not async: a source that holds the value's promise already (a cached key at the latest version) hands
  // it out as is — no promise made and resolved per read, no `then` lookup on the value.
  get(key: Uint8Array): Promise<Uint8Array | undefined> {
    try {
      assertKey(key, "get");
      const source = this.source;
      return source.readPromise !== undefined ? source.readPromise(key) : Promise.resolve(source.readSync(key));
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /** `get` at once: committed reads are synchronous (LevelDB's `getSync`). */
  getNow(key: Uint8Array): Uint8Array | undefined {
    assertKey(key, "get");
    return this.source.readSync(key);
  }

  async has(key: Uint8Array): Promise<boolean> {
    assertKey(key, "has");
    return this.source.readSync(key) !== undefined;
  }

  iterate(options?: IterateOptions): AsyncIterable<[Uint8Array, Uint8Array]> {
    const { range, limit } = toScanRange(options);
    const entries = this.source.scan(range);
    // Without a limit, no counting layer (one promise less per entry).
    return limit === Number.POSITIVE_INFINITY ? entries : limited(entries, limit);
  }

  // Not async: the source's promise is handed on as is (one promise tick less per read).
  readRange(options: IterateOptions & { limit: number }): Promise<Entry[]> {
    let scan: { range: ScanRange; limit: number };
    try {
      scan = toScanRange(options);
    } catch (err) {
      return Promise.reject(err);
    }
    const source = this.source as Partial<RangeSource>;
    if (typeof source.readRange === "function") return source.readRange(scan.range, scan.limit);
    return collectEntries(this.source.scan(scan.range), scan.limit);
  }
}
