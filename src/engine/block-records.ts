// How the block store (block-store.ts) encodes a height's block meta and FinalizeBlock results, and the records
// those are made from.
import { toBinary } from "@bufbuild/protobuf";
import { lengthDelimitedSize, putBytesField } from "../bytes/proto-fields.ts";
import { putUvarint, putVarint64, uvarintLength, varint64Length } from "../bytes/varint.ts";
import { type ResponseFinalizeBlock, ResponseFinalizeBlockSchema } from "../gen/tendermint/abci/types_pb.js";
import { encodeExecTxResult } from "./exec-tx-result-encoding.ts";
import { decodeBlockId, decodeHeader } from "./hashing/decode.ts";
import { encodeBlockId, encodeHeader } from "./hashing/encode.ts";
import { FieldReader } from "./hashing/proto-reader.ts";
import { ProtoWriter } from "./hashing/proto-writer.ts";
import type { EngineState } from "./state.ts";
import type { Block, BlockId, Commit, Header, Validator } from "./types.ts";

/** tendermint.types.BlockMeta. */
export interface BlockMeta {
  blockId: BlockId;
  blockSize: bigint;
  header: Header;
  numTxs: bigint;
}

/** Everything the engine saves for one height, in one batch. */
export interface HeightRecord {
  block: Block;
  blockBytes: Uint8Array;
  /**
   * The meta's bytes when the caller holds them already (a replay, from its source's block store: the block's header,
   * size and tx count, verified): saved as they are instead of encoding the meta again.
   */
  metaBytes?: Uint8Array;
  blockId: BlockId;
  seenCommit: Commit;
  /** The seen commit's bytes when the caller read them with it (a replay, from its source): saved as they are. */
  seenCommitBytes?: Uint8Array;
  results: ResponseFinalizeBlock;
  /** The validator set that signed this height. */
  validators: Validator[];
  /** The engine state after this height. */
  state: EngineState;
}

/** The stored form of a block meta (tendermint.types.BlockMeta's fields). */
export function encodeBlockMeta(m: BlockMeta): Uint8Array {
  const w = new ProtoWriter();
  w.message(1, encodeBlockId(m.blockId));
  w.varintIfSet(2, m.blockSize);
  w.message(3, encodeHeader(m.header));
  w.varintIfSet(4, m.numTxs);
  return w.finish();
}
/** Decodes a stored block meta; fields it does not know are skipped. */
export function decodeBlockMeta(bytes: Uint8Array): BlockMeta {
  const m: BlockMeta = {
    blockId: decodeBlockId(new Uint8Array(0)),
    blockSize: 0n,
    header: decodeHeader(new Uint8Array(0)),
    numTxs: 0n,
  };
  for (const f = new FieldReader(bytes); f.next(); ) {
    if (f.field === 1 && f.wire === 2) m.blockId = decodeBlockId(f.bytesValue());
    else if (f.field === 2 && f.wire === 0) m.blockSize = f.int64();
    else if (f.field === 3 && f.wire === 2) m.header = decodeHeader(f.bytesValue());
    else if (f.field === 4 && f.wire === 0) m.numTxs = f.int64();
  }
  return m;
}

/**
 * The block's results record and its txs' TxResult records, encoding each ExecTxResult once for both
 * (it is most of their bytes). The results' tx_results (field 2) follow the other fields: a decoder
 * accepts fields in any order.
 */
export function encodeResults(rec: HeightRecord): { results: Uint8Array; txRecords: Uint8Array[] } {
  const head = toBinary(ResponseFinalizeBlockSchema, { ...rec.results, txResults: [] });
  const resultBytes = rec.results.txResults.map(encodeExecTxResult);
  let size = head.length;
  for (const bytes of resultBytes) size += lengthDelimitedSize(bytes.length);
  const results = new Uint8Array(size);
  results.set(head);
  let at = head.length;
  for (const bytes of resultBytes) at = putBytesField(results, at, 2, bytes);
  const height = rec.block.header.height;
  const txRecords = resultBytes.map((bytes, index) => {
    // TxResult{height = 1, index = 2, tx = 3, result = 4}; zero and empty fields left out, result always there.
    const tx = rec.block.txs[index];
    const record = new Uint8Array(
      (height === 0n ? 0 : 1 + varint64Length(height)) +
        (index === 0 ? 0 : 1 + uvarintLength(index)) +
        (tx.length === 0 ? 0 : lengthDelimitedSize(tx.length)) +
        lengthDelimitedSize(bytes.length),
    );
    let pos = 0;
    if (height !== 0n) {
      record[pos++] = (1 << 3) | 0;
      pos = putVarint64(record, pos, height);
    }
    if (index !== 0) {
      record[pos++] = (2 << 3) | 0;
      pos = putUvarint(record, pos, index);
    }
    if (tx.length > 0) pos = putBytesField(record, pos, 3, tx);
    putBytesField(record, pos, 4, bytes);
    return record;
  });
  return { results, txRecords };
}
