// The extended commit's own encodings (extended-commit.ts): the vote-extension sign bytes, written by hand, are the
// generated CanonicalVoteExtension's bytes, length-delimited, for every input (so a signature made here verifies in
// CometBFT and back); and the commit tx reads back what it carries.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { create, toBinary } from "@bufbuild/protobuf";
import fc from "fast-check";
import { encodeUvarint } from "../bytes/varint.ts";
import { ExtendedCommitInfoSchema } from "../gen/tendermint/abci/types_pb.js";
import { CanonicalVoteExtensionSchema } from "../gen/tendermint/types/canonical_pb.js";
import { BlockIDFlag } from "../gen/tendermint/types/validator_pb.js";
import { decodeExtendedCommitTx, encodeExtendedCommitTx, voteExtensionSignBytes } from "./extended-commit.ts";

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");

/** The sign bytes through the generated encoder: the reference the hand-written one must equal. */
function generatedSignBytes(extension: Uint8Array, height: bigint, round: bigint, chainId: string): Uint8Array {
  const body = toBinary(
    CanonicalVoteExtensionSchema,
    create(CanonicalVoteExtensionSchema, { extension, height, round, chainId }),
  );
  return new Uint8Array([...encodeUvarint(body.length), ...body]);
}

describe("vote extension sign bytes", () => {
  it("are the length-delimited CanonicalVoteExtension", () => {
    // 1b = 27 bytes: 0a 03 "abc" | 11 <height 5, LE> | 22 0b "upgrade-dev"; round 0 is left out as proto3 does.
    assert.equal(
      hex(voteExtensionSignBytes(new TextEncoder().encode("abc"), 5n, 0n, "upgrade-dev")),
      "1b0a0361626311050000000000000022" + "0b" + hex(new TextEncoder().encode("upgrade-dev")),
    );
    assert.equal(hex(voteExtensionSignBytes(new Uint8Array(0), 0n, 0n, "")), "00");
  });

  it("equal the generated encoder's for every extension, height, round and chain ID (property)", () => {
    const int64 = fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n });
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 300 }),
        fc.oneof(int64, fc.bigInt({ min: 0n, max: 1000n })),
        fc.oneof(fc.constant(0n), int64),
        fc.string({ maxLength: 60, unit: "grapheme" }),
        (extension, height, round, chainId) => {
          assert.equal(
            hex(voteExtensionSignBytes(extension, height, round, chainId)),
            hex(generatedSignBytes(extension, height, round, chainId)),
          );
        },
      ),
      { numRuns: 500 },
    );
  });

  it("refuse a height or round outside int64 instead of wrapping it", () => {
    assert.throws(() => voteExtensionSignBytes(new Uint8Array(0), 2n ** 63n, 0n, "c"), /height .* is not an int64/);
    assert.throws(() => voteExtensionSignBytes(new Uint8Array(0), 1n, -(2n ** 63n) - 1n, "c"), /round .* not an int64/);
  });
});

describe("the extended-commit tx", () => {
  it("reads back the commit it carries", () => {
    const info = create(ExtendedCommitInfoSchema, {
      round: 2,
      votes: [
        {
          validator: { address: new Uint8Array(20).fill(1), power: 10n },
          voteExtension: new Uint8Array([1, 2, 2, 0x76, 0x32]),
          extensionSignature: new Uint8Array(64).fill(9),
          blockIdFlag: BlockIDFlag.BLOCK_ID_FLAG_COMMIT,
        },
      ],
    });
    const decoded = decodeExtendedCommitTx(encodeExtendedCommitTx(info));
    assert.equal(hex(toBinary(ExtendedCommitInfoSchema, decoded)), hex(toBinary(ExtendedCommitInfoSchema, info)));
  });
});
