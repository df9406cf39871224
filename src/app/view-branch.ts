// A writable branch over a read-only committed version, for query contexts. Queries may write (a
// query that creates a module account on the fly, a tally that deletes votes as it counts): the
// writes land in this overlay, are visible to the same query, and vanish with it.

import { compareBytes, hasPrefix } from "../bytes/compare.ts";
import { bytesToBinaryString } from "../bytes/text.ts";
import { collectEntries, type RangeReader, readRangeOf } from "../store/entry-iterators.ts";
import type { BranchMultiStore, IterateOptions, KVStore, ReadableKVStore, VersionView } from "../store/types.ts";

/** Thrown by `write()` on the top level of a view branch: a committed version cannot change. */
export class ReadOnlyViewError extends Error {
  constructor() {
    super("cannot write a query branch back into a committed version");
    this.name = "ReadOnlyViewError";
  }
}

interface Pending {
  key: Uint8Array;
  value: Uint8Array | null;
}

// Most query branches write nothing: their overlays' maps are made on the first write.
const NOTHING_PENDING: ReadonlyMap<string, Pending> = new Map();

class OverlayStore implements KVStore, RangeReader {
  pending: ReadonlyMap<string, Pending> = NOTHING_PENDING;
  private readonly parent: ReadableKVStore;

  constructor(parent: ReadableKVStore) {
    this.parent = parent;
    // Synchronous reads only over a parent that has them (every committed view's store does).
    if (parent.getNow === undefined) this.getNow = undefined;
  }

  async get(key: Uint8Array): Promise<Uint8Array | undefined> {
    if (this.pending.size === 0) return this.parent.get(key);
    const entry = this.pending.get(bytesToBinaryString(key));
    if (entry !== undefined) return entry.value ?? undefined;
    return this.parent.get(key);
  }

  /** `get` at once (the gas store's fast path: no promise per layer for a query's point reads). */
  getNow?(key: Uint8Array): Uint8Array | undefined {
    if (this.pending.size > 0) {
      const entry = this.pending.get(bytesToBinaryString(key));
      if (entry !== undefined) return entry.value ?? undefined;
    }
    return (this.parent.getNow as (key: Uint8Array) => Uint8Array | undefined).call(this.parent, key);
  }

  async has(key: Uint8Array): Promise<boolean> {
    return (await this.get(key)) !== undefined;
  }

  set(key: Uint8Array, value: Uint8Array): void {
    this.writable().set(bytesToBinaryString(key), { key: key.slice(), value: value.slice() });
  }

  delete(key: Uint8Array): void {
    this.writable().set(bytesToBinaryString(key), { key: key.slice(), value: null });
  }

  /** Drops what is pending (after it was written to the parent). */
  clear(): void {
    this.pending = NOTHING_PENDING;
  }

  private writable(): Map<string, Pending> {
    if (this.pending === NOTHING_PENDING) this.pending = new Map();
    return this.pending as Map<string, Pending>;
  }

  iterate(options: IterateOptions = {}): AsyncIterable<[Uint8Array, Uint8Array]> {
    // Nothing written here (every query that only reads): the parent's iteration as is, without
    // a merging layer that would cost a promise per entry.
    if (this.pending.size === 0) return this.parent.iterate(options);
    return this.merged(options);
  }

  readRange(options: IterateOptions & { limit: number }): Promise<[Uint8Array, Uint8Array][]> {
    // As iterate(): nothing written here, the parent's own one-call read.
    if (this.pending.size === 0) return readRangeOf(this.parent, options);
    return collectEntries(this.merged(options), options.limit);
  }

  private async *merged(options: IterateOptions): AsyncIterable<[Uint8Array, Uint8Array]> {
    const reverse = options.reverse ?? false;
    const inRange = (key: Uint8Array): boolean =>
      (options.prefix === undefined || hasPrefix(key, options.prefix)) &&
      (options.start === undefined || compareBytes(key, options.start) >= 0) &&
      (options.end === undefined || compareBytes(key, options.end) < 0);
    const order = (a: Uint8Array, b: Uint8Array): number => (reverse ? -compareBytes(a, b) : compareBytes(a, b));
    const mine = [...this.pending.values()].filter((p) => inRange(p.key)).sort((a, b) => order(a.key, b.key));
    const limit = options.limit ?? Number.POSITIVE_INFINITY;
    let emitted = 0;
    let i = 0;
    const parentOptions: IterateOptions = { ...options, limit: undefined };
    for await (const [key, value] of this.parent.iterate(parentOptions)) {
      while (i < mine.length && order(mine[i].key, key) < 0) {
        const p = mine[i++];
        if (p.value !== null) {
          if (emitted++ >= limit) return;
          yield [p.key, p.value];
        }
      }
      if (i < mine.length && order(mine[i].key, key) === 0) {
        const p = mine[i++];
        if (p.value === null) continue;
        if (emitted++ >= limit) return;
        yield [p.key, p.value];
        continue;
      }
      if (emitted++ >= limit) return;
      yield [key, value];
    }
    for (; i < mine.length; i++) {
      const p = mine[i];
      if (p.value === null) continue;
      if (emitted++ >= limit) return;
      yield [p.key, p.value];
    }
  }
}

class ViewBranch implements BranchMultiStore {
  private readonly stores = new Map<string, OverlayStore>();
  private readonly source: VersionView | ViewBranch;

  constructor(source: VersionView | ViewBranch) {
    this.source = source;
  }

  store(name: string): KVStore {
    let store = this.stores.get(name);
    if (store === undefined) {
      store = new OverlayStore(this.source.store(name));
      this.stores.set(name, store);
    }
    return store;
  }

  branch(): BranchMultiStore {
    return new ViewBranch(this);
  }

  write(): void {
    if (!(this.source instanceof ViewBranch)) throw new ReadOnlyViewError();
    for (const [name, store] of this.stores) {
      const target = this.source.store(name);
      for (const { key, value } of store.pending.values()) {
        if (value === null) target.delete(key);
        else target.set(key, value);
      }
      store.clear();
    }
  }

  storeNames(): string[] {
    return this.source.storeNames();
  }
}

/** A branch whose reads come from `view` and whose writes stay in memory (see the file comment). */
export function branchOverView(view: VersionView): BranchMultiStore {
  return new ViewBranch(view);
}

/**
 * `view` with each store's read face made once and kept: for a view shared by many queries (the
 * latest version's, see App.createQueryContext), so that a query does not build the store's read
 * objects again. The faces are read-only and hold no per-query state.
 */
export function sharedView(view: VersionView): VersionView {
  const stores = new Map<string, ReadableKVStore>();
  return {
    version: view.version,
    appHash: view.appHash,
    storeNames: () => view.storeNames(),
    store: (name) => {
      let store = stores.get(name);
      if (store === undefined) {
        store = view.store(name);
        stores.set(name, store);
      }
      return store;
    },
  };
}
