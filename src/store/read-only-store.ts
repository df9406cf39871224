// The public read-only face of one store at one committed version.
import { assertKey, type KVSource, limited, toScanRange } from "./kv-source.ts";
import type { IterateOptions, ReadableKVStore } from "./types.ts";

/** Wraps a KVSource as a ReadableKVStore (validating arguments). */
export class ReadOnlyStore implements ReadableKVStore {
  private readonly source: KVSource;

  constructor(source: KVSource) {
    this.source = source;
  }

  async get(key: Uint8Array): Promise<Uint8Array | undefined> {
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
}
