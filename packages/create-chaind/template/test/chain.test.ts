// The chain's own test, in process with chaind's testing kit: v1 runs with the chain's address prefix and a guest
// signs, the chain halts at upgrade "v2"'s height after a governance vote, and v2 restarted on the same home applies
// the upgrade: store renamed, store `guestbook_stats` added, the guestbook migrated to consensus version 2 (the
// entry rewritten as JSON, the guests counted in the new store).
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { create } from "@bufbuild/protobuf";
import { MsgSoftwareUpgradeSchema } from "chaind/gen/chain/upgrade/v1beta1/tx_pb.js";
import { PlanSchema } from "chaind/gen/chain/upgrade/v1beta1/upgrade_pb.js";
import { useChain } from "chaind/runtime";
import { defaultUpgradeAuthority, UPGRADE_EXIT_CODES } from "chaind/x/upgrade";
import { chain, v1, v2 } from "../app.ts";
import { MsgSignSchema } from "../gen/guestbook/v1/tx_pb.js";
import { GUEST_COUNT_KEY, STATS_STORE } from "../modules/guestbook.ts";

// The testing kit's keys take the prefix of the chain the process serves when it is loaded: the chain first.
useChain(chain);
const { packAny, PROPOSER, startTestNode, tempDir } = await import("chaind/testing");
const encoder = new TextEncoder();
const decoder = new TextDecoder();

test("v1 runs with the chain's identity, halts at upgrade v2, and v2 migrates the guestbook", async () => {
  const dir = await tempDir("__BINARY__-test-");
  try {
    const home = join(dir.path, "node");
    let node = await startTestNode({ home, release: v1, chain });
    await node.nextBlock();
    assert.match(defaultUpgradeAuthority(), /^__PREFIX__1/, "addresses carry the chain's prefix");
    const sign = create(MsgSignSchema, { signer: PROPOSER.bech32, name: "ada", message: "hello" });
    const signed = await node.deliver(PROPOSER, [packAny(MsgSignSchema, sign)]);
    assert.equal(signed.code, 0, signed.log);

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
      const entry = await ctx.kvStore("guestbook").get(encoder.encode("ada"));
      assert.deepEqual(JSON.parse(decoder.decode(entry)), { message: "hello", signedIn: "v1" });
      const guests = await ctx.kvStore(STATS_STORE).get(encoder.encode(GUEST_COUNT_KEY));
      assert.equal(decoder.decode(guests), "1", "the added store counts the guest signed in v1");
    } finally {
      await node.close();
    }
  } finally {
    await dir.remove();
  }
});
