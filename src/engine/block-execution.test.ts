import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { lastCommitMillis } from "./block-execution.ts";
import { timestampFromMillis } from "./time.ts";
import { BlockIdFlag, type Commit, type CommitSig, emptyBlockId } from "./types.ts";

const NOW = Date.UTC(2026, 10, 30, 12, 0, 0);

function sig(flag: number, ms: number): CommitSig {
  return {
    blockIdFlag: flag,
    validatorAddress: new Uint8Array(20),
    timestamp: timestampFromMillis(ms),
    signature: new Uint8Array(64),
  };
}

function commitOf(...signatures: CommitSig[]): Commit {
  return { height: 7n, round: 0, blockId: emptyBlockId(), signatures };
}

describe("when the last block was committed, for timeout_commit after a restart", () => {
  it("is the latest commit-flag signature time", () => {
    const commit = commitOf(sig(BlockIdFlag.commit, NOW - 5000), sig(BlockIdFlag.commit, NOW - 3000));
    assert.equal(lastCommitMillis(commit, NOW), NOW - 3000);
  });

  it("ignores absent and nil votes, whose times say nothing about the commit", () => {
    const commit = commitOf(
      sig(BlockIdFlag.commit, NOW - 9000),
      sig(BlockIdFlag.nil, NOW - 10),
      sig(BlockIdFlag.absent, NOW),
    );
    assert.equal(lastCommitMillis(commit, NOW), NOW - 9000);
  });

  it("is never later than now (a clock that went back since the commit)", () => {
    assert.equal(lastCommitMillis(commitOf(sig(BlockIdFlag.commit, NOW + 60_000)), NOW), NOW);
  });

  it("is now for a commit without signatures (before the first block)", () => {
    assert.equal(lastCommitMillis(commitOf(), NOW), NOW);
    assert.equal(lastCommitMillis(commitOf(sig(BlockIdFlag.absent, NOW - 1000)), NOW), NOW);
  });
});
