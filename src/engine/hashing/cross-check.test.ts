// Our gogoproto-exact encoders against the generated protobuf-es messages of proto/tendermint: the same bytes
// for arbitrary blocks, and each side decodes the other's output.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import fc from "fast-check";
import { BlockSchema } from "../../gen/tendermint/types/block_pb.js";
import type { Block, BlockId, Commit, Header, Timestamp } from "../types.ts";
import { decodeBlock } from "./decode.ts";
import { encodeBlock } from "./encode.ts";

const bytes = (max = 40) => fc.uint8Array({ maxLength: max });
const hash = fc.oneof(fc.constant(new Uint8Array(0)), fc.uint8Array({ minLength: 32, maxLength: 32 }));
const i64 = fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n });
const u64 = fc.bigInt({ min: 0n, max: 2n ** 64n - 1n });
const ts: fc.Arbitrary<Timestamp> = fc.record({
  seconds: fc.bigInt({ min: -62135596800n, max: 253402300799n }),
  nanos: fc.integer({ min: 0, max: 999_999_999 }),
});
const blockId: fc.Arbitrary<BlockId> = fc.record({
  hash,
  partSetHeader: fc.record({ total: fc.integer({ min: 0, max: 2 ** 32 - 1 }), hash }),
});
const header: fc.Arbitrary<Header> = fc.record({
  version: fc.record({ block: u64, app: u64 }),
  chainId: fc.string({ maxLength: 50 }),
  height: i64,
  time: ts,
  lastBlockId: blockId,
  lastCommitHash: hash,
  dataHash: hash,
  validatorsHash: hash,
  nextValidatorsHash: hash,
  consensusHash: hash,
  appHash: bytes(),
  lastResultsHash: hash,
  evidenceHash: hash,
  proposerAddress: bytes(20),
});
const commit: fc.Arbitrary<Commit> = fc.record({
  height: i64,
  round: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
  blockId,
  signatures: fc.array(
    fc.record({
      blockIdFlag: fc.integer({ min: 0, max: 3 }),
      validatorAddress: bytes(20),
      timestamp: ts,
      signature: bytes(64),
    }),
    { maxLength: 4 },
  ),
});
const block: fc.Arbitrary<Block> = fc.record({
  header,
  txs: fc.array(bytes(), { maxLength: 5 }),
  evidence: fc.constant([]),
  lastCommit: commit,
});

function toGenerated(b: Block) {
  const id = (x: BlockId) => ({
    hash: x.hash,
    partSetHeader: { total: x.partSetHeader.total, hash: x.partSetHeader.hash },
  });
  const t = (x: Timestamp) => ({ seconds: x.seconds, nanos: x.nanos });
  const h = b.header;
  return create(BlockSchema, {
    header: {
      ...h,
      time: t(h.time),
      lastBlockId: id(h.lastBlockId),
      version: { block: h.version.block, app: h.version.app },
    },
    data: { txs: b.txs },
    evidence: { evidence: [] },
    lastCommit: {
      height: b.lastCommit.height,
      round: b.lastCommit.round,
      blockId: id(b.lastCommit.blockId),
      signatures: b.lastCommit.signatures.map((s) => ({
        blockIdFlag: s.blockIdFlag,
        validatorAddress: s.validatorAddress,
        timestamp: t(s.timestamp),
        signature: s.signature,
      })),
    },
  });
}

describe("encoders agree with the generated tendermint.types messages", () => {
  it("same bytes for any block, and our decoder reads them back", () => {
    fc.assert(
      fc.property(block, (b) => {
        const ours = encodeBlock(b);
        assert.deepEqual(Buffer.from(ours), Buffer.from(toBinary(BlockSchema, toGenerated(b))));
        assert.deepEqual(decodeBlock(ours), structuredClone(b));
        assert.deepEqual(Buffer.from(encodeBlock(decodeBlock(ours))), Buffer.from(ours));
        const theirs = fromBinary(BlockSchema, ours);
        assert.equal(theirs.header?.height, b.header.height);
        assert.equal(theirs.data?.txs.length, b.txs.length);
      }),
      { numRuns: 200 },
    );
  });
});
