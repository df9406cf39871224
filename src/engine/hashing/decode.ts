// Decoders for the messages encode.ts writes, so the block store can hand back what it stored.
import type {
  Block,
  BlockId,
  Commit,
  CommitSig,
  ConsensusVersion,
  Header,
  PartSetHeader,
  Timestamp,
} from "../types.ts";
import { FieldReader, ProtoDecodeError } from "./proto-reader.ts";

const textDecoder = new TextDecoder("utf-8", { fatal: true });
const EMPTY = new Uint8Array(0);

// A copy of its own, and a plain Uint8Array: the block store's reads hand back Buffers, whose slice() is a view (it
// kept the whole record alive) and which JSON.stringify writes as {"type":"Buffer",…} before any replacer sees them
// (the engine state a replay saved held its block id so, and a node could not start on the replayed home).
function copy(b: Uint8Array): Uint8Array {
  return new Uint8Array(b);
}

function expectLen(r: FieldReader, what: string): Uint8Array {
  if (r.wire !== 2) throw new ProtoDecodeError(`${what}: field ${r.field} should be length-delimited`);
  return r.bytesValue();
}

function expectVarint(r: FieldReader, what: string): FieldReader {
  if (r.wire !== 0) throw new ProtoDecodeError(`${what}: field ${r.field} should be a varint`);
  return r;
}

/** google.protobuf.Timestamp. */
export function decodeTimestamp(bytes: Uint8Array): Timestamp {
  const t: Timestamp = { seconds: 0n, nanos: 0 };
  for (const f = new FieldReader(bytes); f.next(); ) {
    if (f.field === 1) t.seconds = expectVarint(f, "Timestamp").int64();
    else if (f.field === 2) t.nanos = expectVarint(f, "Timestamp").int64Number();
  }
  return t;
}

function decodeConsensusVersion(bytes: Uint8Array): ConsensusVersion {
  const v: ConsensusVersion = { block: 0n, app: 0n };
  for (const f = new FieldReader(bytes); f.next(); ) {
    if (f.field === 1) v.block = expectVarint(f, "Consensus").uint64();
    else if (f.field === 2) v.app = expectVarint(f, "Consensus").uint64();
  }
  return v;
}

function decodePartSetHeader(bytes: Uint8Array): PartSetHeader {
  const p: PartSetHeader = { total: 0, hash: EMPTY };
  for (const f = new FieldReader(bytes); f.next(); ) {
    if (f.field === 1) p.total = expectVarint(f, "PartSetHeader").uint64Number();
    else if (f.field === 2) p.hash = copy(expectLen(f, "PartSetHeader"));
  }
  return p;
}

/** tendermint.types.BlockID. */
export function decodeBlockId(bytes: Uint8Array): BlockId {
  const id: BlockId = { hash: EMPTY, partSetHeader: { total: 0, hash: EMPTY } };
  for (const f = new FieldReader(bytes); f.next(); ) {
    if (f.field === 1) id.hash = copy(expectLen(f, "BlockID"));
    else if (f.field === 2) id.partSetHeader = decodePartSetHeader(expectLen(f, "BlockID"));
  }
  return id;
}

/** tendermint.types.Header. */
export function decodeHeader(bytes: Uint8Array): Header {
  const h: Header = {
    version: { block: 0n, app: 0n },
    chainId: "",
    height: 0n,
    time: { seconds: 0n, nanos: 0 },
    lastBlockId: { hash: EMPTY, partSetHeader: { total: 0, hash: EMPTY } },
    lastCommitHash: EMPTY,
    dataHash: EMPTY,
    validatorsHash: EMPTY,
    nextValidatorsHash: EMPTY,
    consensusHash: EMPTY,
    appHash: EMPTY,
    lastResultsHash: EMPTY,
    evidenceHash: EMPTY,
    proposerAddress: EMPTY,
  };
  for (const f = new FieldReader(bytes); f.next(); ) {
    switch (f.field) {
      case 1:
        h.version = decodeConsensusVersion(expectLen(f, "Header"));
        break;
      case 2:
        h.chainId = textDecoder.decode(expectLen(f, "Header"));
        break;
      case 3:
        h.height = expectVarint(f, "Header").int64();
        break;
      case 4:
        h.time = decodeTimestamp(expectLen(f, "Header"));
        break;
      case 5:
        h.lastBlockId = decodeBlockId(expectLen(f, "Header"));
        break;
      case 6:
        h.lastCommitHash = copy(expectLen(f, "Header"));
        break;
      case 7:
        h.dataHash = copy(expectLen(f, "Header"));
        break;
      case 8:
        h.validatorsHash = copy(expectLen(f, "Header"));
        break;
      case 9:
        h.nextValidatorsHash = copy(expectLen(f, "Header"));
        break;
      case 10:
        h.consensusHash = copy(expectLen(f, "Header"));
        break;
      case 11:
        h.appHash = copy(expectLen(f, "Header"));
        break;
      case 12:
        h.lastResultsHash = copy(expectLen(f, "Header"));
        break;
      case 13:
        h.evidenceHash = copy(expectLen(f, "Header"));
        break;
      case 14:
        h.proposerAddress = copy(expectLen(f, "Header"));
        break;
    }
  }
  return h;
}

function decodeCommitSig(bytes: Uint8Array): CommitSig {
  const s: CommitSig = {
    blockIdFlag: 0,
    validatorAddress: EMPTY,
    timestamp: { seconds: 0n, nanos: 0 },
    signature: EMPTY,
  };
  for (const f = new FieldReader(bytes); f.next(); ) {
    if (f.field === 1) s.blockIdFlag = expectVarint(f, "CommitSig").uint64Number();
    else if (f.field === 2) s.validatorAddress = copy(expectLen(f, "CommitSig"));
    else if (f.field === 3) s.timestamp = decodeTimestamp(expectLen(f, "CommitSig"));
    else if (f.field === 4) s.signature = copy(expectLen(f, "CommitSig"));
  }
  return s;
}

/** tendermint.types.Commit. */
export function decodeCommit(bytes: Uint8Array): Commit {
  const c: Commit = { height: 0n, round: 0, blockId: decodeBlockId(EMPTY), signatures: [] };
  for (const f = new FieldReader(bytes); f.next(); ) {
    if (f.field === 1) c.height = expectVarint(f, "Commit").int64();
    else if (f.field === 2) c.round = expectVarint(f, "Commit").int64Number();
    else if (f.field === 3) c.blockId = decodeBlockId(expectLen(f, "Commit"));
    else if (f.field === 4) c.signatures.push(decodeCommitSig(expectLen(f, "Commit")));
  }
  return c;
}

/** tendermint.types.Block. */
export function decodeBlock(bytes: Uint8Array): Block {
  let header: Header | undefined;
  const txs: Uint8Array[] = [];
  const evidence: Uint8Array[] = [];
  let lastCommit: Commit | undefined;
  for (const f = new FieldReader(bytes); f.next(); ) {
    if (f.field === 1) header = decodeHeader(expectLen(f, "Block"));
    else if (f.field === 2) {
      for (const d = new FieldReader(expectLen(f, "Block")); d.next(); )
        if (d.field === 1) txs.push(copy(expectLen(d, "Data")));
    } else if (f.field === 3) {
      for (const e = new FieldReader(expectLen(f, "Block")); e.next(); )
        if (e.field === 1) evidence.push(copy(expectLen(e, "EvidenceList")));
    } else if (f.field === 4) lastCommit = decodeCommit(expectLen(f, "Block"));
  }
  if (header === undefined) throw new ProtoDecodeError("Block: the header is missing");
  return { header, txs, evidence, lastCommit: lastCommit ?? decodeCommit(EMPTY) };
}
