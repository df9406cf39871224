// The next block's migration steps done ahead, after each commit (migration-lookahead.ts), inside a real App over a
// real LevelDB store: every block's app hash and events are those of the steps run in the block, a step that reads
// what only the block will know runs in the block, and work done ahead that the block's earlier writes touch is
// dropped for the step run in the block.
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { create } from "@bufbuild/protobuf";
import { runToUpgradeHalt } from "../../../test/support/upgrade/halt-at-plan.ts";
import { ledgerFill } from "../../../test/support/upgrade/ledger-fill.ts";
import { zeroTimestamp } from "../../app/context.ts";
import { packAny } from "../../client/tx/any.ts";
import { MsgSendSchema } from "../../gen/chain/bank/v1beta1/tx_pb.js";
import type { ResponseFinalizeBlock } from "../../gen/tendermint/abci/types_pb.js";
import type { MultiStore } from "../../store/multistore.ts";
import { signTx } from "../../testing/app.ts";
import {
  PROPOSER,
  startTestNode,
  TEST_CHAIN_ID,
  type TestNode,
  type TestRelease,
  testModule,
  VALIDATOR,
} from "../../testing/test-node.ts";
import { migrationKey } from "./migration-store.ts";
import { prefixMigrationStep } from "./prefix-migration.ts";
import type { SteppedMigration } from "./stepped-migration.ts";

const UPGRADE_HEIGHT = 6n;
const RECORDS = 45;
const enc = (text: string) => new TextEncoder().encode(text);
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");

// ledger: RECORDS records written 20 a block, and each rewritten by a prefix migration 10 a block that counts what it
// saw in another key (the two interleave: the rewrite reads what the fill wrote the block before).
const fill = ledgerFill(RECORDS, 20);
const rewrite: SteppedMigration = {
  module: "ledger",
  name: "rewrite",
  budget: 10,
  step: prefixMigrationStep({
    storeKey: "ledger",
    prefix: enc("record/"),
    rewrite: async (_ctx, store, key, value) => {
      store.set(key, enc(`${new TextDecoder().decode(value)}!`));
      const seen = await store.get(enc("seen"));
      store.set(enc("seen"), enc(String(Number(seen === undefined ? "0" : new TextDecoder().decode(seen)) + 1)));
    },
  }),
};
// Reads the block time, which is not known ahead of the block.
const stamp: SteppedMigration = {
  module: "ledger",
  name: "stamp",
  budget: 1,
  step: async (ctx, cursor) => {
    const n = cursor === undefined ? 0 : cursor[0];
    ctx.kvStore("ledger").set(enc(`stamp/${n}`), enc(String(ctx.blockTime.seconds)));
    return n === 2 ? "done" : { cursor: new Uint8Array([n + 1]) };
  },
};

const v1: TestRelease = { modules: () => [testModule({ name: "ledger", version: 1n })] };
const v2 = (migrations: SteppedMigration[]): TestRelease => ({
  modules: () => [testModule({ name: "ledger", version: 1n })],
  upgrade: { name: "v2", steppedMigrations: migrations },
});

let root: string;
let homes = 0;
before(async () => {
  root = await mkdtemp(join(tmpdir(), "migration-lookahead-"));
});
after(async () => {
  await rm(root, { recursive: true, force: true });
});

async function upgradedNode(migrations: SteppedMigration[]): Promise<TestNode> {
  const home = join(root, `node-${homes++}`);
  await runToUpgradeHalt(home, v1, "v2", UPGRADE_HEIGHT);
  return startTestNode({ home, release: v2(migrations) });
}

const send = packAny(
  MsgSendSchema,
  create(MsgSendSchema, {
    fromAddress: PROPOSER.bech32,
    toAddress: VALIDATOR.bech32,
    amount: [{ denom: "stake", amount: "3" }],
  }),
);

/** What a block's result says: its app hash and every event with its attributes. */
function blockOutcome(response: ResponseFinalizeBlock): string {
  return JSON.stringify({
    appHash: hex(response.appHash),
    events: response.events.map((e) => [e.type, e.attributes.map((a) => [a.key, a.value])]),
    txs: response.txResults.map((r) => [r.code, r.log]),
  });
}

async function running(node: TestNode): Promise<number> {
  return (await node.keeper.getMigrations(await node.query())).filter((m) => m.finishedHeight === 0n).length;
}

describe("migration steps done ahead of their block", () => {
  it("give every block the app hash and events of the same steps run in the block", async () => {
    const ahead = await upgradedNode([fill, rewrite]);
    const inBlock = await upgradedNode([fill, rewrite]);
    inBlock.keeper.lookahead.enabled = false;
    const outcomes: [string, string][] = [];
    outcomes.push([blockOutcome(await ahead.nextBlock()), blockOutcome(await inBlock.nextBlock())]); // H: started
    for (let i = 0; (await running(ahead)) > 0 || (await running(inBlock)) > 0; i++) {
      assert.ok(i < 20, "the migrations did not finish in 20 blocks");
      // A tx in every other block: the ante handler and the send write around the steps' writes.
      if (i % 2 === 0) {
        const account = await ahead.accountKeeper.getAccount(await ahead.query(), PROPOSER.address);
        assert.ok(account !== undefined);
        const tx = signTx({
          key: PROPOSER,
          messages: [send],
          chainId: TEST_CHAIN_ID,
          accountNumber: account.accountNumber,
          sequence: account.sequence,
          gasLimit: 2_000_000n,
        });
        const txs = [tx];
        outcomes.push([blockOutcome(await ahead.nextBlock({ txs })), blockOutcome(await inBlock.nextBlock({ txs }))]);
      } else {
        outcomes.push([blockOutcome(await ahead.nextBlock()), blockOutcome(await inBlock.nextBlock())]);
      }
    }
    outcomes.push([blockOutcome(await ahead.nextBlock()), blockOutcome(await inBlock.nextBlock())]);
    for (const [height, [a, b]] of outcomes.entries()) assert.equal(a, b, `block H+${height} differs`);
    const seen = await (await ahead.query()).kvStore("ledger").get(enc("seen"));
    assert.equal(new TextDecoder().decode(seen), String(RECORDS), "the rewrite saw every record once");
    // Every block after H took its steps from the work done ahead (the last one found none running); none did with
    // the lookahead off.
    assert.equal(ahead.keeper.lookahead.counts.joined, outcomes.length - 1);
    assert.equal(ahead.keeper.lookahead.counts.unfit, 0);
    assert.equal(inBlock.keeper.lookahead.counts.joined, 0);
    await ahead.close();
    await inBlock.close();
  });

  it("runs a step that reads the block's time in its block", async () => {
    const node = await upgradedNode([stamp]);
    await node.nextBlock(); // H
    const times: bigint[] = [];
    while ((await running(node)) > 0) {
      await node.nextBlock();
      times.push((await node.query()).blockTime.seconds);
    }
    assert.equal(node.keeper.lookahead.counts.joined, 0);
    const ledger = (await node.query()).kvStore("ledger");
    for (const [n, time] of times.entries()) {
      assert.equal(new TextDecoder().decode(await ledger.get(enc(`stamp/${n}`))), String(time));
    }
    await node.close();
  });

  it("drops work done ahead when the block has written what it read, and joins it when not", async () => {
    const node = await upgradedNode([fill]);
    await node.nextBlock(); // H: started; the steps of H+1 are done ahead now
    await node.keeper.lookahead.settled();
    const store = node.app.store as MultiStore;
    const blockContext = (touch: Uint8Array) => {
      const branch = store.branch();
      branch.store("upgrade").set(touch, enc("written before the step"));
      return node.app.newContext(branch, "finalize", {
        height: UPGRADE_HEIGHT + 1n,
        time: zeroTimestamp(),
        chainId: TEST_CHAIN_ID,
        proposerAddress: new Uint8Array(),
        lastAppHash: store.lastCommit().appHash,
        hash: new Uint8Array(),
      });
    };
    // The step read its own record (the cursor) in the upgrade store.
    const record = migrationKey({ upgrade: "v2", module: "ledger", name: "fill" });
    assert.equal(await node.keeper.lookahead.take(blockContext(record)), false);
    assert.equal(node.keeper.lookahead.counts.unfit, 1);
    // Taken once: a second block context at the same height gets nothing.
    assert.equal(await node.keeper.lookahead.take(blockContext(enc("elsewhere"))), false);

    await node.nextBlock(); // H+1, its steps in the block; those of H+2 are done ahead
    const next = blockContext(enc("elsewhere"));
    (next.header as { height: bigint }).height = UPGRADE_HEIGHT + 2n;
    assert.equal(await node.keeper.lookahead.take(next), true);
    assert.equal(new TextDecoder().decode(await next.kvStore("ledger").get(enc("record/0039"))), "v39");
    await node.close();
  });
});
