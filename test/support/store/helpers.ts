// Small helpers shared by the store's tests (not part of the public API).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { LatestValueCache } from "../../../src/store/latest-cache.ts";
import type { MultiStore } from "../../../src/store/multistore.ts";
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
