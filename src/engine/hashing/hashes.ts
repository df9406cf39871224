// Every hash a CometBFT v0.38 header carries, computed the way CometBFT computes it (CometBFT v0.38 types/block.go, crypto/merkle).

import { sha256 } from "../../bytes/sha256.ts";
import { merkleRoot } from "../../crypto/merkle.ts";
import type { Block, BlockId, Commit, ConsensusParams, Header, PartSetHeader, PublicKey } from "../types.ts";
import {
  encodeBlock,
  encodeBlockId,
  encodeCommitSig,
  encodeConsensusVersion,
  encodeDeterministicTxResult,
  encodeHashedParams,
  encodeSimpleValidator,
  encodeTimestamp,
} from "./encode.ts";
import { ProtoWriter } from "./proto-writer.ts";

/** CometBFT's block part size (`types.BlockPartSizeBytes`). */
export const BLOCK_PART_SIZE = 65536;

// google.protobuf.{String,Int64,Bytes}Value: a single field 1, omitted when zero — CometBFT's `cdcEncode`.
function wrapString(value: string): Uint8Array {
  const w = new ProtoWriter();
  w.stringIfSet(1, value);
  return w.finish();
}
function wrapInt64(value: bigint): Uint8Array {
  const w = new ProtoWriter();
  w.varintIfSet(1, value);
  return w.finish();
}
function wrapBytes(value: Uint8Array): Uint8Array {
  const w = new ProtoWriter();
  w.bytesIfSet(1, value);
  return w.finish();
}

/**
 * The header hash (= block hash): the Merkle root of the 14 encoded header fields in field order. Returns an empty
 * array when validators_hash is empty, as CometBFT returns nil for such a header.
 */
export function headerHash(h: Header): Uint8Array {
  if (h.validatorsHash.length === 0) return new Uint8Array(0);
  return merkleRoot([
    encodeConsensusVersion(h.version),
    wrapString(h.chainId),
    wrapInt64(h.height),
    encodeTimestamp(h.time),
    encodeBlockId(h.lastBlockId),
    wrapBytes(h.lastCommitHash),
    wrapBytes(h.dataHash),
    wrapBytes(h.validatorsHash),
    wrapBytes(h.nextValidatorsHash),
    wrapBytes(h.consensusHash),
    wrapBytes(h.appHash),
    wrapBytes(h.lastResultsHash),
    wrapBytes(h.evidenceHash),
    wrapBytes(h.proposerAddress),
  ]);
}

// Tx hashes by bytes object: one tx's bytes object travels from the RPC request through the mempool
// (its key), the broadcast answer, the block's data_hash, the block store's tx index and the mempool's
// update, and each asked for the hash again (~2 µs of SHA-256 each, on the node's main thread). Tx
// bytes are never modified once received (the app's decode cache relies on the same); the weak map
// holds nothing once the tx is dropped.
const txHashes = new WeakMap<Uint8Array, Uint8Array>();

/** A transaction's hash / mempool key: SHA-256 of its bytes. The result is shared: do not modify it. */
export function txHash(tx: Uint8Array): Uint8Array {
  let hash = txHashes.get(tx);
  if (hash === undefined) {
    hash = sha256(tx);
    txHashes.set(tx, hash);
  }
  return hash;
}

/** data_hash: Merkle root over the tx hashes (`Txs.Hash`). */
export function dataHash(txs: readonly Uint8Array[]): Uint8Array {
  return merkleRoot(txs.map(txHash));
}

/** evidence_hash over encoded Evidence messages; the empty-list root when there is none. */
export function evidenceHash(evidence: readonly Uint8Array[]): Uint8Array {
  return merkleRoot(evidence);
}

/** last_commit_hash: Merkle root over the encoded CommitSigs in validator-index order (`Commit.Hash`). */
export function commitHash(commit: Commit): Uint8Array {
  return merkleRoot(commit.signatures.map(encodeCommitSig));
}

/** validators_hash / next_validators_hash over validators already in set order. */
export function validatorSetHash(validators: readonly { pubKey: PublicKey; votingPower: bigint }[]): Uint8Array {
  return merkleRoot(validators.map((v) => encodeSimpleValidator(v.pubKey, v.votingPower)));
}

/** consensus_hash: plain SHA-256 of HashedParams{block.max_bytes, block.max_gas} (`ConsensusParams.Hash`). */
export function consensusParamsHash(params: ConsensusParams): Uint8Array {
  return sha256(encodeHashedParams(params.block.maxBytes, params.block.maxGas));
}

/** last_results_hash: Merkle root over the deterministic part of each tx result (`TxResultsHash`). */
export function lastResultsHash(
  results: readonly { code: number; data: Uint8Array; gasWanted: bigint; gasUsed: bigint }[],
): Uint8Array {
  return merkleRoot(results.map(encodeDeterministicTxResult));
}

/** Splits encoded block bytes into 64 KiB parts and returns the part-set header (`NewPartSetFromData`). */
export function partSetHeaderOf(blockBytes: Uint8Array, partSize = BLOCK_PART_SIZE): PartSetHeader {
  const parts: Uint8Array[] = [];
  for (let offset = 0; offset < blockBytes.length; offset += partSize) {
    parts.push(blockBytes.subarray(offset, Math.min(offset + partSize, blockBytes.length)));
  }
  return { total: parts.length, hash: merkleRoot(parts) };
}

/** The BlockID of a block plus its encoded bytes (what the block store keeps). */
export function blockIdOf(block: Block): { blockId: BlockId; bytes: Uint8Array } {
  const bytes = encodeBlock(block);
  return { blockId: { hash: headerHash(block.header), partSetHeader: partSetHeaderOf(bytes) }, bytes };
}

/** An ed25519 validator address: the first 20 bytes of SHA-256(pubkey). */
export function ed25519Address(pubKey: Uint8Array): Uint8Array {
  return sha256(pubKey).subarray(0, 20);
}
