// Cache-wrapped branches over the multistore: one CacheLayer per store, created on first use,
// nested as deep as needed. A top-level branch writes into the multistore's working set.
import { type CacheLayer, keysOf, type SortedWrites } from "./cache-layer.ts";
import type { KVSource } from "./kv-source.ts";
import type { ReadLog } from "./read-log.ts";
import type { BranchMultiStore, KVStore } from "./types.ts";

/** What a branch needs from the multistore that made it. */
export interface BranchOwner {
  /** Throws when the multistore is closed. */
  assertOpen(): void;
  /** Throws when the working set must not change (a version is staged). */
  assertWritable(): void;
  /** The layer of `name` in the working set; throws StoreNotFoundError for an unknown name. */
  workingLayer(name: string): CacheLayer;
  /** The mounted store names, sorted. */
  storeNames(): string[];
  /** Makes an empty cache layer over `parent`. */
  newLayer(parent: KVSource): CacheLayer;
  /** Loads the committed tree nodes on the paths to `keys` of store `name` into memory (optional: reads only). */
  warmTreePaths?(name: string, keys: Iterable<Uint8Array>): void;
  /** Stages the commit of store `name`'s `writes` (key order) ahead of their block (optional: see MultiStore). */
  stageAhead?(name: string, writes: SortedWrites): void;
}

/** A branch: per-store pending writes over a parent (another branch or the working set). */
export class Branch implements BranchMultiStore {
  readonly owner: BranchOwner;
  /** The enclosing branch, or undefined for a branch over the working set. */
  readonly parent: Branch | undefined;
  private readonly layers = new Map<string, CacheLayer>();
  /** Records what this branch reads from beneath it (a top-level branch of work done ahead), when given. */
  private readonly readLog: ReadLog | undefined;

  constructor(owner: BranchOwner, parent: Branch | undefined, readLog?: ReadLog) {
    this.owner = owner;
    this.parent = parent;
    this.readLog = readLog;
  }

  private parentLayer(name: string): CacheLayer {
    return this.parent === undefined ? this.owner.workingLayer(name) : this.parent.layer(name);
  }

  /** The layer of `name` in this branch (created on first use). */
  layer(name: string): CacheLayer {
    let layer = this.layers.get(name);
    if (layer === undefined) {
      this.owner.assertOpen();
      const parent = this.parentLayer(name);
      layer = this.owner.newLayer(this.readLog === undefined ? parent : this.readLog.source(name, parent));
      // A top-level branch's parent (the working set) changes only when a branch is staged into it.
      if (this.parent === undefined) layer.enableReadCache();
      this.layers.set(name, layer);
    }
    return layer;
  }

  store(name: string): KVStore {
    return this.layer(name);
  }

  branch(): BranchMultiStore {
    this.owner.assertOpen();
    return new Branch(this.owner, this);
  }

  /** True when any store of this branch has pending writes. */
  hasPendingWrites(): boolean {
    for (const layer of this.layers.values()) if (layer.size > 0) return true;
    return false;
  }

  /**
   * Whether a pending write of this branch touches what `log` saw: work done ahead on another branch of the same
   * state that read those keys would not be what running it on this branch gives.
   */
  wroteWhatWasRead(log: ReadLog): boolean {
    for (const [name, layer] of this.layers) {
      for (const sk of layer.pendingKeys()) if (log.saw(name, sk)) return true;
    }
    return false;
  }

  /**
   * Sorts each store's pending writes and readies their commit: the store with the most writes has the owner stage
   * its commit ahead (one store a version: its batch becomes the version's), the others the tree nodes it will copy
   * loaded.
   */
  warmWrites(): void {
    let most: [string, CacheLayer] | undefined;
    for (const entry of this.layers) if (entry[1].size > (most?.[1].size ?? 0)) most = entry;
    for (const [name, layer] of this.layers) {
      if (layer.size === 0) continue;
      if (name === most?.[0] && this.owner.stageAhead !== undefined) this.owner.stageAhead(name, layer.sortedWrites());
      else this.owner.warmTreePaths?.(name, keysOf(layer.sortedWrites()));
    }
  }

  /** Moves every pending write of `other` (a branch of the same state) into this branch, as its own writes. */
  absorb(other: Branch): void {
    for (const [name, layer] of other.layers) {
      if (layer.size > 0) layer.flushInto(this.layer(name));
    }
  }

  write(): void {
    this.owner.assertOpen();
    if (this.parent === undefined && this.hasPendingWrites()) this.owner.assertWritable();
    for (const [name, layer] of this.layers) {
      if (layer.size > 0) layer.flushInto(this.parentLayer(name));
    }
  }

  storeNames(): string[] {
    return this.owner.storeNames();
  }
}
