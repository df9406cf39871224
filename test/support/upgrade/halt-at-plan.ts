// For tests of what a new release does after an upgrade: a chain on the old release passes a governance proposal
// scheduling the plan, runs to the plan's height and halts there, as every node does before a switch.
import assert from "node:assert/strict";
import { create } from "@bufbuild/protobuf";
import { packAny } from "../../../src/client/tx/any.ts";
import { addressToBech32, moduleAddress } from "../../../src/crypto/index.ts";
import { ProposalStatus } from "../../../src/gen/chain/gov/v1/gov_pb.js";
import { MsgSoftwareUpgradeSchema } from "../../../src/gen/chain/upgrade/v1beta1/tx_pb.js";
import { startTestNode, type TestRelease } from "../../../src/testing/test-node.ts";
import { UpgradeHaltError } from "../../../src/x/upgrade/errors.ts";
import { newPlan } from "../../../src/x/upgrade/plan.ts";

/**
 * Runs `release` on `home` from genesis, passes a proposal scheduling upgrade `name` at `height`, and runs blocks
 * until the node halts at it; the node is closed, so the next release can open the home.
 */
export async function runToUpgradeHalt(
  home: string,
  release: TestRelease,
  name: string,
  height: bigint,
): Promise<void> {
  const old = await startTestNode({ home, release });
  try {
    await old.nextBlock();
    const schedule = packAny(
      MsgSoftwareUpgradeSchema,
      create(MsgSoftwareUpgradeSchema, {
        authority: addressToBech32(moduleAddress("gov")),
        plan: newPlan({ name, height }),
      }),
    );
    const proposal = await old.passProposal([schedule]);
    assert.equal(proposal.status, ProposalStatus.PASSED, proposal.failedReason);
    while (old.app.lastBlockHeight() < height - 1n) await old.nextBlock();
    await assert.rejects(old.nextBlock(), UpgradeHaltError);
  } finally {
    await old.close();
  }
}
