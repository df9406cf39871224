// Taking one snapshot: the store's export of a committed height, encoded in format 1, chunked and
// saved in the local snapshot store. Reads the store only through its public export API.
import { setTimeout as sleep } from "node:timers/promises";
import { type CommitMultiStore, type ExportItem, exportState, MultiStore } from "../store/index.ts";
import { SnapshotError } from "./errors.ts";
import type { SnapshotInfo, SnapshotStore } from "./snapshot-store.ts";
import { DEFAULT_CHUNK_SIZE, encodeChunks, SNAPSHOT_FORMAT } from "./stream-format.ts";

/**
 * Writes a snapshot of `height` (a committed, unpruned height of `state`) into `snapshots`. The
 * height is held against pruning while it is read; the export yields to the event loop as it goes.
 */
export async function createSnapshot(
  state: CommitMultiStore,
  snapshots: SnapshotStore,
  height: bigint,
  chunkSize = DEFAULT_CHUNK_SIZE,
  options: { duty?: number; signal?: AbortSignal } = {},
): Promise<SnapshotInfo> {
  if (!(state instanceof MultiStore)) throw new SnapshotError("snapshots need the node's LevelDB state store");
  if (height <= 0n) throw new SnapshotError(`cannot snapshot height ${height}: nothing is committed at it`);
  const items = exportState(state, height);
  const batches = options.duty === undefined ? items : paced(items, options.duty, options.signal);
  return snapshots.save(height, SNAPSHOT_FORMAT, encodeChunks(batches, chunkSize), { signal: options.signal });
}

/**
 * Passes batches through while keeping the time spent producing and consuming them to about `duty` of the wall
 * time: after each batch it sleeps for the work it just did × (1/duty − 1). `signal` cancels it between batches. A node's snapshot then takes longer
 * but never takes more than that share of the one thread that also executes blocks.
 */
async function* paced(
  batches: AsyncIterable<ExportItem[]>,
  duty: number,
  signal: AbortSignal | undefined,
): AsyncGenerator<ExportItem[]> {
  const factor = 1 / Math.min(1, Math.max(0.01, duty)) - 1;
  let resumed = performance.now();
  for await (const batch of batches) {
    yield batch;
    const worked = performance.now() - resumed;
    // The pause ends early when the snapshot is cancelled (a node shutting down does not wait for it).
    if (factor > 0) await sleep(worked * factor, undefined, { signal });
    signal?.throwIfAborted();
    resumed = performance.now();
  }
}
