// Public entry point of the state store.

export { merkleRoot } from "../crypto/merkle.ts";
export { AheadBranch } from "./ahead-branch.ts";
export {
  readCommittedStoreNames,
  readCommittedValue,
  readCommittedVersionAndValue,
  readLastCommittedVersion,
} from "./committed-state.ts";
export {
  DataDirectoryCorruptError,
  DataDirectoryLockedError,
  DataDirectoryMissingError,
  DataDirectoryUnavailableError,
  FutureVersionError,
  InvalidVersionError,
  isFileSystemRefusal,
  NotALevelStoreError,
  PrunedVersionError,
  PruningOptionsError,
  StoreError,
  StoreNotFoundError,
  StoreUpgradeError,
  StoreUsageError,
  VersionLimitError,
} from "./errors.ts";
export {
  type CommitmentProof,
  decodeCommitmentProof,
  type ExistenceProof,
  encodeCommitmentProof,
  IAVL_SPEC,
  type NonExistenceProof,
  TENDERMINT_SPEC,
} from "./ics23.ts";
export { appHash } from "./merkle.ts";
export { MultiStore, type OpenMultiStoreOptions, openMultiStore } from "./multistore.ts";
export { PROOF_OP_IAVL, PROOF_OP_SIMPLE, verifyStoreProof } from "./proofs.ts";
export { PRUNING_PRESETS, type ResolvedPruning, resolvePruning } from "./pruning.ts";
export { type ExportItem, type ExportStateOptions, exportState } from "./state-export.ts";
export { type ImportStateOptions, importState, StateImportError } from "./state-import.ts";
export type * from "./types.ts";
export { MAX_VERSION } from "./version-limit.ts";
