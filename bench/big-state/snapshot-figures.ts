// Snapshot creation and restore of a stopped home's state (state sync's work without CometBFT), and the baseline
// for the restore: a raw classic-level load of the same key/value pairs in batches, the last one synced.
import { join } from "node:path";
import { ClassicLevel } from "classic-level";
import { createSnapshot } from "../../src/snapshots/create-snapshot.ts";
import { installState } from "../../src/snapshots/install-state.ts";
import { SnapshotStore } from "../../src/snapshots/snapshot-store.ts";
import { decodeChunks } from "../../src/snapshots/stream-format.ts";
import { openMultiStore, readCommittedStoreNames } from "../../src/store/index.ts";
import { levelOptions } from "../../src/store/kv-backend.ts";
import type { VersionView } from "../../src/store/types.ts";

/** Key/value pairs, in the order they are loaded. */
export type Pairs = [Uint8Array, Uint8Array][];

/** What one run measured. */
export interface SnapshotFigures {
  height: bigint;
  pairs: number;
  createMs: number;
  restoreMs: number;
  rawLoadMs: number;
  /** CPU of the whole process (every thread: LevelDB's too) during the restore and during the raw load, ms. */
  restoreCpuMs: number;
  rawLoadCpuMs: number;
  /** The restored state (the same as the source at `height`). */
  restoredDb: string;
}

/** CPU ms of the process since `from` (process.cpuUsage()). */
function cpuMsSince(from: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(from);
  return (used.user + used.system) / 1000;
}

const RAW_BATCH = 10_000;

/** The pairs the raw baseline loads: every store's keys and values in `view`, the store's name in front. */
export async function prefixedPairs(view: VersionView, storeNames: readonly string[], into: Pairs): Promise<void> {
  for (const name of storeNames) {
    const prefix = new TextEncoder().encode(`${name}/`);
    for await (const [k, v] of view.store(name).iterate()) {
      const key = new Uint8Array(prefix.length + k.length);
      key.set(prefix);
      key.set(k, prefix.length);
      into.push([key, v]);
    }
  }
}

/** The raw baseline: `pairs` put into `raw` in batches of RAW_BATCH, the last one synced. */
export async function rawBatchLoad(raw: ClassicLevel<Uint8Array, Uint8Array>, pairs: Pairs): Promise<void> {
  for (let from = 0; from < pairs.length; from += RAW_BATCH) {
    const batch = raw.batch();
    const to = Math.min(pairs.length, from + RAW_BATCH);
    for (let i = from; i < to; i++) batch.put(pairs[i][0], pairs[i][1]);
    await batch.write({ sync: to === pairs.length } as Parameters<typeof batch.write>[0]);
  }
}

/**
 * Creates a snapshot of the latest height of `applicationDb`, restores it into `work`, and loads the raw pairs.
 * The raw pairs are read after the restore is timed: held before it (4,000,000 pairs at 1,000,000 accounts, ~12M
 * small heap objects, a 2 GB heap) they made every scavenge and mark of the restore costly, which a node restoring
 * a snapshot never pays. The raw load puts the same pairs, read from the same version, as before.
 */
export async function snapshotFigures(applicationDb: string, work: string): Promise<SnapshotFigures> {
  const storeNames = await readCommittedStoreNames(applicationDb);
  let store = await openMultiStore({ path: applicationDb, storeNames });
  const pairs: Pairs = [];
  let height: bigint;
  let createMs: number;
  let info: Awaited<ReturnType<typeof createSnapshot>>;
  let appHash: Uint8Array;
  const snapshots = new SnapshotStore(join(work, "snapshots"));
  try {
    const last = store.lastCommit();
    height = last.version;
    appHash = last.appHash;
    const started = performance.now();
    info = await createSnapshot(store, snapshots, height);
    createMs = performance.now() - started;
  } finally {
    await store.close();
  }
  const restoredDb = join(work, "restored.db");
  let started = performance.now();
  let cpu = process.cpuUsage();
  await installState({
    applicationDb: restoredDb,
    height,
    items: decodeChunks(snapshots.chunks(info)),
    storeNames,
    expectedAppHash: appHash,
  });
  const restoreMs = performance.now() - started;
  const restoreCpuMs = cpuMsSince(cpu);
  store = await openMultiStore({ path: applicationDb, storeNames });
  try {
    await prefixedPairs(await store.view(height), storeNames, pairs);
  } finally {
    await store.close();
  }
  const raw = new ClassicLevel<Uint8Array, Uint8Array>(join(work, "raw.db"), levelOptions());
  await raw.open();
  try {
    started = performance.now();
    cpu = process.cpuUsage();
    await rawBatchLoad(raw, pairs);
    const rawLoadMs = performance.now() - started;
    const rawLoadCpuMs = cpuMsSince(cpu);
    return { height, pairs: pairs.length, createMs, restoreMs, rawLoadMs, restoreCpuMs, rawLoadCpuMs, restoredDb };
  } finally {
    await raw.close();
  }
}
