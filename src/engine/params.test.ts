// The consensus-parameter update FinalizeBlock may return, as the embedded engine applies it: the vote extensions'
// enable height follows CometBFT's ValidateUpdate (set once, only to a future height, never changed once reached or
// turned off), so an upgrade handler can turn them on for a chain started without them.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { create } from "@bufbuild/protobuf";
import { ConsensusParamsSchema } from "../gen/tendermint/types/params_pb.js";
import { ConsensusParamsError, updateConsensusParams, validateConsensusParamsUpdate } from "./params.ts";
import { type ConsensusParams, defaultConsensusParams } from "./types.ts";

const withEnableHeight = (height: bigint): ConsensusParams => ({
  ...defaultConsensusParams(),
  abci: { voteExtensionsEnableHeight: height },
});
const abciUpdate = (height: bigint) => create(ConsensusParamsSchema, { abci: { voteExtensionsEnableHeight: height } });

describe("engine: the vote extensions' enable height in FinalizeBlock's update", () => {
  it("is applied when set from off to a height after the block's", () => {
    const current = withEnableHeight(0n);
    validateConsensusParamsUpdate(current, abciUpdate(11n), 10n);
    validateConsensusParamsUpdate(current, abciUpdate(50n), 10n);
    const next = updateConsensusParams(current, abciUpdate(11n));
    assert.equal(next.abci.voteExtensionsEnableHeight, 11n);
    assert.deepEqual(next.block, current.block, "the other sections are kept");
    assert.equal(current.abci.voteExtensionsEnableHeight, 0n, "the current params are not modified");
  });

  it("refuses the block's own height or an earlier one", () => {
    for (const height of [10n, 9n, 1n]) {
      assert.throws(
        () => validateConsensusParamsUpdate(withEnableHeight(0n), abciUpdate(height), 10n),
        (error: unknown) =>
          error instanceof ConsensusParamsError && /cannot be updated to a past height/.test(String(error)),
      );
    }
  });

  it("refuses turning them off, and moving the height once it has been reached", () => {
    assert.throws(
      () => validateConsensusParamsUpdate(withEnableHeight(5n), abciUpdate(0n), 10n),
      /vote extensions cannot be disabled once enabled/,
    );
    assert.throws(
      () => validateConsensusParamsUpdate(withEnableHeight(10n), abciUpdate(20n), 10n),
      /cannot be modified once the initial height has occurred/,
    );
    assert.throws(
      () => validateConsensusParamsUpdate(withEnableHeight(1n), abciUpdate(20n), 10n),
      /cannot be modified once the initial height has occurred/,
    );
  });

  it("accepts moving a height not reached yet to another future one, the same value, and updates without abci", () => {
    validateConsensusParamsUpdate(withEnableHeight(30n), abciUpdate(20n), 10n);
    validateConsensusParamsUpdate(withEnableHeight(5n), abciUpdate(5n), 10n);
    validateConsensusParamsUpdate(withEnableHeight(5n), create(ConsensusParamsSchema, { version: { app: 2n } }), 10n);
    validateConsensusParamsUpdate(withEnableHeight(5n), undefined, 10n);
  });
});
