// Public entry point of the snapshot subsystem (README.md describes the format and the flows).
export { createSnapshot } from "./create-snapshot.ts";
export {
  type DescriptorJson,
  MAX_CHUNK_BYTES,
  MAX_CHUNKS,
  parseDescriptor,
  parseDescriptorText,
} from "./descriptor.ts";
export { SnapshotError, SnapshotFormatError, SnapshotNotFoundError } from "./errors.ts";
export { installState } from "./install-state.ts";
export { decodeMetadata, encodeMetadata } from "./metadata.ts";
export { attachSnapshots, type NodeSnapshots, snapshotDir } from "./node-snapshots.ts";
export { lockRestore } from "./restore-lock.ts";
export { SnapshotManager } from "./snapshot-manager.ts";
export {
  describe as describeSnapshot,
  ENGINE_STATE_FILE,
  metadataOf,
  type SnapshotInfo,
  SnapshotStore,
} from "./snapshot-store.ts";
export { type RestorableApp, type RestoreReport, StateSync } from "./state-sync.ts";
export { DEFAULT_CHUNK_SIZE, decodeChunks, encodeChunks, SNAPSHOT_FORMAT } from "./stream-format.ts";
export { type UnpackedArchive, unpackSnapshotArchive } from "./unpack-archive.ts";
