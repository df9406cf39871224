// Taking one snapshot: the store's export of a committed height, encoded in format 1, chunked and
// saved in the local snapshot store. Reads the store only through its public export API.
import { type CommitMultiStore, exportState, MultiStore } from "../store/index.ts";
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
): Promise<SnapshotInfo> {
  if (!(state instanceof MultiStore)) throw new SnapshotError("snapshots need the node's LevelDB state store");
  if (height <= 0n) throw new SnapshotError(`cannot snapshot height ${height}: nothing is committed at it`);
  return snapshots.save(height, SNAPSHOT_FORMAT, encodeChunks(exportState(state, height), chunkSize));
}
