// The engine's own view of CometBFT's core data structures (tendermint.types.*). They are plain objects with
// bigint for 64-bit integers and Uint8Array for bytes; hashing/encode.ts turns them into CometBFT's exact bytes.

/** google.protobuf.Timestamp: seconds since the Unix epoch plus nanoseconds (0 ≤ nanos < 1e9). */
export interface Timestamp {
  seconds: bigint;
  nanos: number;
}

/** tendermint.types.PartSetHeader. */
export interface PartSetHeader {
  total: number;
  hash: Uint8Array;
}

/** tendermint.types.BlockID: the header hash plus the part-set header of the encoded block. */
export interface BlockId {
  hash: Uint8Array;
  partSetHeader: PartSetHeader;
}

/** tendermint.version.Consensus: block protocol and app protocol versions. */
export interface ConsensusVersion {
  block: bigint;
  app: bigint;
}

/** tendermint.types.Header. */
export interface Header {
  version: ConsensusVersion;
  chainId: string;
  height: bigint;
  time: Timestamp;
  lastBlockId: BlockId;
  lastCommitHash: Uint8Array;
  dataHash: Uint8Array;
  validatorsHash: Uint8Array;
  nextValidatorsHash: Uint8Array;
  consensusHash: Uint8Array;
  appHash: Uint8Array;
  lastResultsHash: Uint8Array;
  evidenceHash: Uint8Array;
  proposerAddress: Uint8Array;
}

/** tendermint.types.BlockIDFlag values. */
export const BlockIdFlag = { unknown: 0, absent: 1, commit: 2, nil: 3 } as const;

/** tendermint.types.CommitSig. */
export interface CommitSig {
  blockIdFlag: number;
  validatorAddress: Uint8Array;
  timestamp: Timestamp;
  signature: Uint8Array;
}

/** tendermint.types.Commit. */
export interface Commit {
  height: bigint;
  round: number;
  blockId: BlockId;
  signatures: CommitSig[];
}

/** tendermint.types.Block. Evidence items are kept as their encoded `Evidence` bytes (the engine never has any). */
export interface Block {
  header: Header;
  txs: Uint8Array[];
  evidence: Uint8Array[];
  lastCommit: Commit;
}

/** tendermint.crypto.PublicKey. */
export interface PublicKey {
  type: "ed25519" | "secp256k1";
  key: Uint8Array;
}

/** tendermint.types.Validator (address derived from the key). */
export interface Validator {
  address: Uint8Array;
  pubKey: PublicKey;
  votingPower: bigint;
  proposerPriority: bigint;
}

/** tendermint.types.ConsensusParams, every section present (the engine's state always holds all of them). */
export interface ConsensusParams {
  block: { maxBytes: bigint; maxGas: bigint };
  evidence: { maxAgeNumBlocks: bigint; maxAgeDuration: Timestamp; maxBytes: bigint };
  validator: { pubKeyTypes: string[] };
  version: { app: bigint };
  abci: { voteExtensionsEnableHeight: bigint };
}

/** The part-set header of an empty BlockID, used at the initial height. */
export function emptyBlockId(): BlockId {
  return { hash: new Uint8Array(0), partSetHeader: { total: 0, hash: new Uint8Array(0) } };
}

/** CometBFT's default consensus params (`types/params.go` DefaultConsensusParams). */
export function defaultConsensusParams(): ConsensusParams {
  return {
    block: { maxBytes: 22020096n, maxGas: -1n },
    evidence: { maxAgeNumBlocks: 100000n, maxAgeDuration: { seconds: 172800n, nanos: 0 }, maxBytes: 1048576n },
    validator: { pubKeyTypes: ["ed25519"] },
    version: { app: 0n },
    abci: { voteExtensionsEnableHeight: 0n },
  };
}
