// gogoproto-exact encodings of the CometBFT messages that feed hashes, signatures and the part set.
// Field numbers: proto/tendermint/types/{types,block,validator,params,canonical}.proto and
// proto/tendermint/version/types.proto at CometBFT v0.38 (as CometBFT v0.38's types/ encode them).

import { putUvarint, putVarint64, uvarintLength, varint64Length } from "../../bytes/varint.ts";
import type {
  Block,
  BlockId,
  Commit,
  CommitSig,
  ConsensusVersion,
  Header,
  PartSetHeader,
  PublicKey,
  Timestamp,
} from "../types.ts";
import { ProtoWriter } from "./proto-writer.ts";

/** google.protobuf.Timestamp (zero fields omitted; gogo's StdTimeMarshal). */
export function encodeTimestamp(t: Timestamp): Uint8Array {
  const w = new ProtoWriter();
  w.varintIfSet(1, t.seconds);
  w.varintIfSet(2, t.nanos);
  return w.finish();
}

/** tendermint.version.Consensus. */
export function encodeConsensusVersion(v: ConsensusVersion): Uint8Array {
  const w = new ProtoWriter();
  w.varintIfSet(1, v.block);
  w.varintIfSet(2, v.app);
  return w.finish();
}

/** tendermint.types.PartSetHeader. */
export function encodePartSetHeader(p: PartSetHeader): Uint8Array {
  const w = new ProtoWriter();
  w.varintIfSet(1, p.total);
  w.bytesIfSet(2, p.hash);
  return w.finish();
}

/** tendermint.types.BlockID; part_set_header is non-nullable and always written. */
export function encodeBlockId(id: BlockId): Uint8Array {
  const w = new ProtoWriter();
  w.bytesIfSet(1, id.hash);
  w.message(2, encodePartSetHeader(id.partSetHeader));
  return w.finish();
}

/** The full tendermint.types.Header message (as stored inside a Block). */
export function encodeHeader(h: Header): Uint8Array {
  const w = new ProtoWriter();
  w.message(1, encodeConsensusVersion(h.version));
  w.stringIfSet(2, h.chainId);
  w.varintIfSet(3, h.height);
  w.message(4, encodeTimestamp(h.time));
  w.message(5, encodeBlockId(h.lastBlockId));
  w.bytesIfSet(6, h.lastCommitHash);
  w.bytesIfSet(7, h.dataHash);
  w.bytesIfSet(8, h.validatorsHash);
  w.bytesIfSet(9, h.nextValidatorsHash);
  w.bytesIfSet(10, h.consensusHash);
  w.bytesIfSet(11, h.appHash);
  w.bytesIfSet(12, h.lastResultsHash);
  w.bytesIfSet(13, h.evidenceHash);
  w.bytesIfSet(14, h.proposerAddress);
  return w.finish();
}

/** tendermint.types.CommitSig; the timestamp is non-nullable and always written. */
export function encodeCommitSig(s: CommitSig): Uint8Array {
  const w = new ProtoWriter();
  w.varintIfSet(1, s.blockIdFlag);
  w.bytesIfSet(2, s.validatorAddress);
  w.message(3, encodeTimestamp(s.timestamp));
  w.bytesIfSet(4, s.signature);
  return w.finish();
}

/** tendermint.types.Commit; block_id is non-nullable and always written. */
export function encodeCommit(c: Commit): Uint8Array {
  const w = new ProtoWriter();
  w.varintIfSet(1, c.height);
  w.varintIfSet(2, c.round);
  w.message(3, encodeBlockId(c.blockId));
  for (const sig of c.signatures) w.message(4, encodeCommitSig(sig));
  return w.finish();
}

/** tendermint.types.Data. */
export function encodeData(txs: readonly Uint8Array[]): Uint8Array {
  const w = new ProtoWriter();
  for (const tx of txs) w.bytes(1, tx);
  return w.finish();
}

/** tendermint.types.EvidenceList, from already-encoded Evidence messages. */
export function encodeEvidenceList(evidence: readonly Uint8Array[]): Uint8Array {
  const w = new ProtoWriter();
  for (const ev of evidence) w.message(1, ev);
  return w.finish();
}

/** tendermint.types.Block: header, data and evidence always written, last_commit written (never nil here). */
export function encodeBlock(b: Block): Uint8Array {
  const w = new ProtoWriter();
  w.message(1, encodeHeader(b.header));
  w.message(2, encodeData(b.txs));
  w.message(3, encodeEvidenceList(b.evidence));
  w.message(4, encodeCommit(b.lastCommit));
  return w.finish();
}

/** tendermint.crypto.PublicKey (oneof sum: ed25519 = 1, secp256k1 = 2). */
export function encodePublicKey(k: PublicKey): Uint8Array {
  const w = new ProtoWriter();
  w.bytes(k.type === "ed25519" ? 1 : 2, k.key);
  return w.finish();
}

/** tendermint.types.SimpleValidator — what the validator-set hash is built from. */
export function encodeSimpleValidator(pubKey: PublicKey, votingPower: bigint): Uint8Array {
  const w = new ProtoWriter();
  w.message(1, encodePublicKey(pubKey));
  w.varintIfSet(2, votingPower);
  return w.finish();
}

/** tendermint.types.HashedParams — the only consensus params covered by consensus_hash. */
export function encodeHashedParams(blockMaxBytes: bigint, blockMaxGas: bigint): Uint8Array {
  const w = new ProtoWriter();
  w.varintIfSet(1, blockMaxBytes);
  w.varintIfSet(2, blockMaxGas);
  return w.finish();
}

/** The deterministic part of an ExecTxResult (code, data, gas_wanted, gas_used) — what last_results_hash covers. */
export function encodeDeterministicTxResult(r: {
  code: number;
  data: Uint8Array;
  gasWanted: bigint;
  gasUsed: bigint;
}): Uint8Array {
  // Sized and written directly (one per tx of every block, for last_results_hash): the same bytes as a
  // ProtoWriter with varintIfSet(1, code), bytesIfSet(2, data), varintIfSet(5/6, gas), without its per-byte bigints.
  const size =
    (r.code === 0 ? 0 : 1 + uvarintLength(r.code)) +
    (r.data.length === 0 ? 0 : 1 + uvarintLength(r.data.length) + r.data.length) +
    (r.gasWanted === 0n ? 0 : 1 + varint64Length(r.gasWanted)) +
    (r.gasUsed === 0n ? 0 : 1 + varint64Length(r.gasUsed));
  const out = new Uint8Array(size);
  let at = 0;
  if (r.code !== 0) {
    out[at++] = (1 << 3) | 0;
    at = putUvarint(out, at, r.code);
  }
  if (r.data.length !== 0) {
    out[at++] = (2 << 3) | 2;
    at = putUvarint(out, at, r.data.length);
    out.set(r.data, at);
    at += r.data.length;
  }
  if (r.gasWanted !== 0n) {
    out[at++] = (5 << 3) | 0;
    at = putVarint64(out, at, r.gasWanted);
  }
  if (r.gasUsed !== 0n) {
    out[at++] = (6 << 3) | 0;
    at = putVarint64(out, at, r.gasUsed);
  }
  return out;
}

/** SignedMsgType values used in canonical votes. */
export const SignedMsgType = { prevote: 1, precommit: 2, proposal: 32 } as const;

/**
 * Vote sign bytes: a uvarint length prefix followed by tendermint.types.CanonicalVote. The block ID is left out
 * for a nil vote (empty hash), exactly as CometBFT's CanonicalizeBlockID does.
 */
export function voteSignBytes(vote: {
  type: number;
  height: bigint;
  round: bigint;
  blockId: BlockId;
  timestamp: Timestamp;
  chainId: string;
}): Uint8Array {
  const w = new ProtoWriter();
  w.varintIfSet(1, vote.type);
  w.sfixed64IfSet(2, vote.height);
  w.sfixed64IfSet(3, vote.round);
  const isNil = vote.blockId.hash.length === 0 && vote.blockId.partSetHeader.total === 0;
  if (!isNil) {
    const id = new ProtoWriter();
    id.bytesIfSet(1, vote.blockId.hash);
    id.message(2, encodePartSetHeader(vote.blockId.partSetHeader));
    w.message(4, id.finish());
  }
  w.message(5, encodeTimestamp(vote.timestamp));
  w.stringIfSet(6, vote.chainId);
  const body = w.finish();
  const out = new ProtoWriter();
  out.rawVarint(BigInt(body.length));
  out.raw(body);
  return out.finish();
}
