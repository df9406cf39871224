// Public entry point of the snapshot subsystem (README.md describes the format and the flows).
export { createSnapshot } from "./create-snapshot.ts";
export { SnapshotError, SnapshotFormatError, SnapshotNotFoundError } from "./errors.ts";
export { installState } from "./install-state.ts";
export { decodeMetadata, encodeMetadata } from "./metadata.ts";
export { attachSnapshots, type NodeSnapshots, snapshotDir } from "./node-snapshots.ts";
export { SnapshotManager } from "./snapshot-manager.ts";
export { describe as describeSnapshot, metadataOf, type SnapshotInfo, SnapshotStore } from "./snapshot-store.ts";
export { type RestorableApp, type RestoreReport, StateSync } from "./state-sync.ts";
export { DEFAULT_CHUNK_SIZE, decodeChunks, encodeChunks, SNAPSHOT_FORMAT } from "./stream-format.ts";
