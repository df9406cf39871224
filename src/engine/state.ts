// The engine's consensus state after the last saved block: everything needed to build the next header.
// It is written in the same atomic batch as the block it describes.
import type { BlockId, ConsensusParams, Timestamp, Validator } from "./types.ts";

/** CometBFT's `state.State`, reduced to what a single-validator engine needs. */
export interface EngineState {
  chainId: string;
  initialHeight: bigint;
  /** Height of the last saved block; initialHeight − 1 before the first one. */
  lastBlockHeight: bigint;
  lastBlockId: BlockId;
  lastBlockTime: Timestamp;
  /** The set that signs block lastBlockHeight + 1. */
  validators: Validator[];
  /** The set for lastBlockHeight + 2 (validator updates land here). */
  nextValidators: Validator[];
  /** The set that signed lastBlockHeight (empty before the first block). */
  lastValidators: Validator[];
  consensusParams: ConsensusParams;
  /** Header version.app for the next block. */
  appVersion: bigint;
  /** FinalizeBlock(lastBlockHeight).app_hash, or the genesis/InitChain hash. */
  appHash: Uint8Array;
  /** Merkle root of lastBlockHeight's deterministic tx results. */
  lastResultsHash: Uint8Array;
}
