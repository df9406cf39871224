// enableVoteExtensions in an upgrade handler, on a real App (LevelDB, real staking and gov) across a halt and a new
// release: on a chain started without vote extensions the upgrade's block returns the enable height (H + 1) in
// FinalizeBlock's consensus_param_updates beside the protocol version, and nothing after; on a chain that has them it
// writes nothing; a height not after the block's is refused before anything is committed.
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { create } from "@bufbuild/protobuf";
import { isExtendedCommitTx } from "../../app/extended-commit.ts";
import { packAny } from "../../client/tx/any.ts";
import { MsgSoftwareUpgradeSchema } from "../../gen/chain/upgrade/v1beta1/tx_pb.js";
import {
  RequestPrepareProposalSchema,
  RequestProcessProposalSchema,
  ResponseProcessProposal_ProposalStatus,
} from "../../gen/tendermint/abci/types_pb.js";
import { startTestNode, type TestRelease } from "../../testing/test-node.ts";
import { enableVoteExtensions } from "./enable-vote-extensions.ts";
import { UpgradeHaltError } from "./errors.ts";
import { newPlan } from "./plan.ts";
import { voteExtensionsEnableHeight } from "./readiness-store.ts";

const GOV = "chain10d07y265gmmuvt4z0w9aw880jnsr700j0q8wax";
const schedule = (name: string, height: bigint) =>
  packAny(
    MsgSoftwareUpgradeSchema,
    create(MsgSoftwareUpgradeSchema, { authority: GOV, plan: newPlan({ name, height }) }),
  );

/** A release whose upgrade "ve" runs the migrations and turns vote extensions on (`height`: an explicit one). */
const withHandler = (height?: (blockHeight: bigint) => bigint): TestRelease => ({
  upgrade: {
    name: "ve",
    handler: async (ctx, _plan, fromVM, migrator) => {
      const versions = await migrator.runMigrations(ctx, fromVM);
      await enableVoteExtensions(ctx, height === undefined ? {} : { height: height(ctx.blockHeight) });
      return versions;
    },
  },
});

let root: string;
before(async () => {
  root = await mkdtemp(join(tmpdir(), "enable-vote-extensions-"));
});
after(async () => {
  await rm(root, { recursive: true, force: true });
});

/** A chain on `home` (genesis enable height `enableHeight`) halted for plan "ve"; returns the plan's height. */
async function haltedForUpgrade(home: string, enableHeight: bigint): Promise<bigint> {
  const node = await startTestNode({ home, release: {}, voteExtensionsEnableHeight: enableHeight });
  await node.nextBlock();
  const height = node.app.lastBlockHeight() + 6n;
  assert.equal((await node.passProposal([schedule("ve", height)])).status, 3, "the proposal passed");
  while (node.app.lastBlockHeight() < height - 1n) await node.nextBlock();
  await assert.rejects(node.nextBlock(), UpgradeHaltError);
  await node.close();
  return height;
}

describe("enableVoteExtensions in an upgrade handler", () => {
  it("turns them on from the next block on a chain started without them, through FinalizeBlock's update", async () => {
    const home = join(root, "off");
    const height = await haltedForUpgrade(home, 0n);
    const node = await startTestNode({ home, release: withHandler() });
    // The App keeps the committed enable height between blocks (committed-enable-height.ts): asked before and after
    // each commit, it must answer from the state just committed, never the one before.
    const carries = async (at: bigint) => {
      const prepared = await node.app.prepareProposal(create(RequestPrepareProposalSchema, { height: at }));
      const processed = await node.app.processProposal(create(RequestProcessProposalSchema, { height: at }));
      const accepted = processed.status === ResponseProcessProposal_ProposalStatus.ACCEPT;
      assert.equal(accepted, prepared.txs.length === 0, `PrepareProposal and ProcessProposal agree at ${at}`);
      return isExtendedCommitTx(prepared.txs[0]);
    };
    try {
      assert.equal(await carries(height), false, "off before the upgrade");
      const upgraded = await node.nextBlock();
      assert.equal(node.app.lastBlockHeight(), height);
      assert.equal(upgraded.consensusParamUpdates?.abci?.voteExtensionsEnableHeight, height + 1n);
      assert.equal(upgraded.consensusParamUpdates?.version?.app, 1n, "the protocol version's update is kept");
      assert.equal(upgraded.consensusParamUpdates?.block, undefined, "only the changed sections");
      assert.equal(await voteExtensionsEnableHeight(await node.query()), height + 1n);
      assert.equal(await carries(height + 1n), false, "no extended commit before the enable height's");
      assert.equal((await node.nextBlock()).consensusParamUpdates, undefined, "once only");
      assert.equal(await carries(height + 2n), true, "the block after the enable height carries its commit");
    } finally {
      await node.close();
    }
  });

  it("writes nothing on a chain that has them already (a chain made by chaind init)", async () => {
    const home = join(root, "on");
    await haltedForUpgrade(home, 1n);
    const node = await startTestNode({ home, release: withHandler() });
    try {
      const upgraded = await node.nextBlock();
      assert.equal(upgraded.consensusParamUpdates?.abci, undefined);
      assert.equal(upgraded.consensusParamUpdates?.version?.app, 1n);
      assert.equal(await voteExtensionsEnableHeight(await node.query()), 1n);
    } finally {
      await node.close();
    }
  });

  it("refuses a height that is not after the upgrade's block, committing nothing of it", async () => {
    const home = join(root, "past");
    const height = await haltedForUpgrade(home, 0n);
    const node = await startTestNode({ home, release: withHandler((blockHeight) => blockHeight) });
    try {
      await assert.rejects(
        node.nextBlock(),
        new RegExp(`vote extensions can only be enabled from a future height: ${height} requested in block ${height}`),
      );
      assert.equal(node.app.lastBlockHeight(), height - 1n);
    } finally {
      await node.close();
    }
  });
});
