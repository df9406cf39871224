import assert from "node:assert/strict";
import { test } from "node:test";
import { create } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { type CommitInfo, CommitInfoSchema, RequestFinalizeBlockSchema } from "../../gen/tendermint/abci/types_pb.js";
import { BlockIDFlag } from "../../gen/tendermint/types/validator_pb.js";
import { consensusKeyOf, createStakingTestChain, key } from "../../testing/staking.ts";
import { consAddressOfKey } from "./validator.ts";

const val1 = key("last-commit-val-1");
const stranger = key("last-commit-stranger");

function commitOf(...addresses: Uint8Array[]): CommitInfo {
  return create(CommitInfoSchema, {
    votes: addresses.map((address) => ({
      validator: { address, power: 10n },
      blockIdFlag: BlockIDFlag.BLOCK_ID_FLAG_COMMIT,
    })),
  });
}

test("a block whose last commit no validator of this state signed fails, and nothing of it is committed", async () => {
  const chain = await createStakingTestChain({
    accounts: [{ key: val1, stake: 100_000_000n }],
    validators: [{ key: val1, selfDelegation: 10_000_000n, moniker: "one" }],
  });
  await chain.nextBlock();
  const finalize = (decidedLastCommit: CommitInfo) =>
    chain.app.finalizeBlock(
      create(RequestFinalizeBlockSchema, {
        height: chain.app.lastBlockHeight() + 1n,
        time: timestampFromMs(chain.timeMs() + 1000),
        decidedLastCommit,
      }),
    );

  // Another chain's block (CometBFT pointed at the wrong home): its signers are unknown here.
  await assert.rejects(
    finalize(commitOf(consAddressOfKey(consensusKeyOf(stranger)))),
    /block 2's last commit is signed by none of this state's validators \(chainvalcons1[a-z0-9]+\): the blocks come from another chain or genesis/,
  );
  assert.equal(chain.app.lastBlockHeight(), 1n);

  // This chain's block: one known signer is enough (a validator removed two heights ago may still sign).
  await finalize(commitOf(consAddressOfKey(consensusKeyOf(stranger)), consAddressOfKey(consensusKeyOf(val1))));
  await chain.app.commit();
  assert.equal(chain.app.lastBlockHeight(), 2n);
});
