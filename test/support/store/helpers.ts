// Small helpers shared by the store's tests (not part of the public API).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { KVBackend, KVBatch } from "../../../src/store/kv-backend.ts";
import type { LatestValueCache } from "../../../src/store/latest-cache.ts";
import type { MultiStore } from "../../../src/store/multistore.ts";
import type { ExportItem } from "../../../src/store/state-export.ts";
import type { PruningOptions } from "../../../src/store/types.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** UTF-8 bytes of a string. */
export function b(text: string): Uint8Array {
  return encoder.encode(text);
}

/** The string of UTF-8 bytes (undefined stays undefined). */
export function s(bytes: Uint8Array | undefined): string | undefined {
  return bytes === undefined ? undefined : decoder.decode(bytes);
}

/** Collects an async iterable of entries as [key, value] strings. */
export async function entries(it: AsyncIterable<[Uint8Array, Uint8Array]>): Promise<[string, string][]> {
  const out: [string, string][] = [];
  for await (const [k, v] of it) out.push([decoder.decode(k), decoder.decode(v)]);
  return out;
}

/** A fresh temporary directory and a function that removes it. */
export async function tempDir(prefix = "chaind-store-"): Promise<{ path: string; remove: () => Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), prefix));
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
}

/** Pruning that keeps everything. */
export const KEEP_ALL: PruningOptions = { strategy: "nothing", keepRecent: 0n, interval: 0n };

/** A multistore's latest-value cache (a private field), for tests that look at what it holds. */
export function cacheOf(store: MultiStore): LatestValueCache {
  return (store as unknown as { latestCache: LatestValueCache }).latestCache;
}

/** Commits one version of `writes` (a null value deletes) to the store "bank"; returns the version. */
export async function commitWrites(store: MultiStore, writes: [string, string | null][]): Promise<bigint> {
  const branch = store.branch();
  for (const [k, v] of writes) {
    if (v === null) branch.store("bank").delete(b(k));
    else branch.store("bank").set(b(k), b(v));
  }
  const info = await store.stage(branch);
  await store.commit();
  return info.version;
}

/**
 * Makes every write batch the store creates from now on fail its write: `applied` writes it first (a sync error after
 * LevelDB took the rows), otherwise nothing reaches LevelDB (a full disk). Returns the function that undoes it.
 */
export function failBatchWrites(store: MultiStore, how: { applied: boolean }): () => void {
  const backend = (store as unknown as { backend: KVBackend }).backend;
  const batch = backend.batch.bind(backend);
  backend.batch = (): KVBatch => {
    const real = batch();
    return {
      ...real,
      write: async (sync: boolean) => {
        if (!how.applied) throw new Error("disk full");
        await real.write(sync);
        throw new Error("sync failed");
      },
    };
  };
  return () => {
    backend.batch = batch;
  };
}

/** Every item of an exported state (state-export.ts), its batches joined. */
export async function collectExport(it: AsyncIterable<ExportItem[]>): Promise<ExportItem[]> {
  const out: ExportItem[] = [];
  for await (const batch of it) out.push(...batch);
  return out;
}

/** How many rows a store's LevelDB holds in one table (keys.ts TABLE). */
export async function countRows(store: MultiStore, table: number): Promise<number> {
  let n = 0;
  for await (const _ of store.backend.iterate({ gte: new Uint8Array([table]), lt: new Uint8Array([table + 1]) })) n++;
  return n;
}
