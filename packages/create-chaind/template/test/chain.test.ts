// The chain's own test, in process with chaind's testing kit: v1 runs with the chain's address prefix, halts at
// upgrade "v2"'s height after a governance vote, and v2 restarted on the same home applies the upgrade (store
// renamed, the guestbook migrated to consensus version 2).
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { create } from "@bufbuild/protobuf";
import { MsgSoftwareUpgradeSchema } from "chaind/gen/chain/upgrade/v1beta1/tx_pb.js";
import { PlanSchema } from "chaind/gen/chain/upgrade/v1beta1/upgrade_pb.js";
import { useChain } from "chaind/runtime";
import { defaultUpgradeAuthority, UPGRADE_EXIT_CODES } from "chaind/x/upgrade";
import { chain, v1, v2 } from "../app.ts";

// The testing kit's keys take the prefix of the chain the process serves when it is loaded: the chain first.
useChain(chain);
const { packAny, startTestNode, tempDir } = await import("chaind/testing");

test("v1 runs with the chain's identity, halts at upgrade v2, and v2 migrates the guestbook", async () => {
  const dir = await tempDir("__BINARY__-test-");
  try {
    const home = join(dir.path, "node");
    let node = await startTestNode({ home, release: v1, chain });
    await node.nextBlock();
    assert.match(defaultUpgradeAuthority(), /^__PREFIX__1/, "addresses carry the chain's prefix");

    const upgradeHeight = 8n;
    const plan = create(PlanSchema, { name: "v2", height: upgradeHeight });
    await node.passProposal([
      packAny(
        MsgSoftwareUpgradeSchema,
        create(MsgSoftwareUpgradeSchema, { authority: defaultUpgradeAuthority(), plan }),
      ),
    ]);
    let halt: (Error & { exitCode?: number }) | undefined;
    while (halt === undefined && node.app.lastBlockHeight() < upgradeHeight) {
      await node.nextBlock().catch((err: Error) => {
        halt = err;
      });
    }
    assert.equal(halt?.exitCode, UPGRADE_EXIT_CODES.needed, String(halt));
    await node.close();

    node = await startTestNode({ home, release: v2, chain });
    try {
      await node.nextBlock();
      const ctx = await node.query();
      assert.equal(await node.keeper.getDoneHeight(ctx, "v2"), upgradeHeight);
      assert.equal((await node.keeper.getModuleVersionMap(ctx)).get("guestbook"), 2n);
    } finally {
      await node.close();
    }
  } finally {
    await dir.remove();
  }
});
