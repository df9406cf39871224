// Stepped migrations inside a real App (real staking, gov and bank) over a real LevelDB store: started by the upgrade
// at H, one step per block from H+1, the cursor in the upgrade store (a restart resumes it and every app hash matches
// an uninterrupted run), the migrating module's txs refused with upgrade 7 and accepted after, the Migrations query
// and the migration_step / migration_done events.
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { runToUpgradeHalt } from "../../../test/support/upgrade/halt-at-plan.ts";
import { ledgerFill } from "../../../test/support/upgrade/ledger-fill.ts";
import { packAny } from "../../client/tx/any.ts";
import { MsgMultiSendSchema, MsgSendSchema } from "../../gen/chain/bank/v1beta1/tx_pb.js";
import {
  QueryMigrationsRequestSchema,
  QueryMigrationsResponseSchema,
} from "../../gen/chain/upgrade/v1beta1/query_pb.js";
import type { SteppedMigration as MigrationStatus } from "../../gen/chain/upgrade/v1beta1/upgrade_pb.js";
import { RequestQuerySchema, type ResponseFinalizeBlock } from "../../gen/tendermint/abci/types_pb.js";
import {
  PROPOSER,
  startTestNode,
  type TestNode,
  type TestRelease,
  testModule,
  VALIDATOR,
} from "../../testing/test-node.ts";
import { BALANCES_PREFIX } from "../bank/keys.ts";
import { UpgradeHaltError } from "./errors.ts";
import { moduleMigratingMessage } from "./migration-guard.ts";
import { RUNNING_MIGRATIONS_KEY } from "./migration-store.ts";
import { prefixMigrationStep } from "./prefix-migration.ts";
import type { SteppedMigration } from "./stepped-migration.ts";

const UPGRADE_HEIGHT = 6n;
const LEDGER_RECORDS = 35;
const enc = (text: string) => new TextEncoder().encode(text);
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");

// bank: every balance record re-written, one a block, and a copy of each noted in `ledger` (so the steps' work shows).
const touchBalances: SteppedMigration = {
  module: "bank",
  name: "touch-balances",
  budget: 1,
  step: prefixMigrationStep({
    storeKey: "bank",
    prefix: BALANCES_PREFIX,
    rewrite: (ctx, store, key, value) => {
      store.set(key, value);
      ctx.kvStore("ledger").set(enc(`seen/${hex(key)}`), value);
    },
    estimateTotal: async () => 4n,
  }),
};
// ledger: 35 records written, 10 a block, the cursor the count so far.
const fillLedger = ledgerFill(LEDGER_RECORDS, 10);

const v1: TestRelease = { modules: () => [testModule({ name: "ledger", version: 1n })] };
const v2: TestRelease = {
  modules: () => [testModule({ name: "ledger", version: 1n })],
  upgrade: { name: "v2", steppedMigrations: [touchBalances, fillLedger] },
};

let root: string;
let homes = 0;
before(async () => {
  root = await mkdtemp(join(tmpdir(), "stepped-migrations-"));
});
after(async () => {
  await rm(root, { recursive: true, force: true });
});
const newHome = () => join(root, `node-${homes++}`);

/** A v1 chain that schedules v2 at UPGRADE_HEIGHT, halts there, and the v2 node that takes over (not yet at H). */
async function upgradedNode(home: string, release: TestRelease = v2): Promise<TestNode> {
  await runToUpgradeHalt(home, v1, "v2", UPGRADE_HEIGHT);
  return startTestNode({ home, release });
}

async function migrations(node: TestNode): Promise<MigrationStatus[]> {
  const response = await node.app.query(
    create(RequestQuerySchema, {
      path: "/chain.upgrade.v1beta1.Query/Migrations",
      data: toBinary(QueryMigrationsRequestSchema, create(QueryMigrationsRequestSchema)),
    }),
  );
  assert.equal(response.code, 0, response.log);
  return fromBinary(QueryMigrationsResponseSchema, response.value).migrations;
}

function eventsOf(response: ResponseFinalizeBlock, type: string): Record<string, string>[] {
  return response.events
    .filter((e) => e.type === type)
    .map((e) => Object.fromEntries(e.attributes.map((a) => [a.key, a.value])));
}

const send = (amount: bigint) =>
  packAny(
    MsgSendSchema,
    create(MsgSendSchema, {
      fromAddress: PROPOSER.bech32,
      toAddress: VALIDATOR.bech32,
      amount: [{ denom: "stake", amount: amount.toString() }],
    }),
  );

describe("stepped migrations", () => {
  it("start at the upgrade's block, step once a block from the next, report progress and finish with events", async () => {
    const node = await upgradedNode(newHome());
    const balanceRecords = await (async () => {
      let count = 0;
      for await (const _ of (await node.query()).kvStore("bank").iterate({ prefix: BALANCES_PREFIX })) count++;
      return count;
    })();
    assert.ok(balanceRecords >= 2, `the test chain has ${balanceRecords} balance records`);

    const atH = await node.nextBlock();
    assert.equal(node.app.lastBlockHeight(), UPGRADE_HEIGHT);
    assert.deepEqual(eventsOf(atH, "migration_step"), [], "no step in the upgrade's own block");
    const started = await migrations(node);
    assert.deepEqual(
      started.map((m) => [m.upgrade, m.module, m.name, m.startedHeight, m.finishedHeight, m.progress, m.steps]),
      [
        ["v2", "bank", "touch-balances", UPGRADE_HEIGHT, 0n, "", 0n],
        ["v2", "ledger", "fill", UPGRADE_HEIGHT, 0n, "", 0n],
      ],
    );
    assert.ok(await (await node.query()).kvStore("upgrade").has(RUNNING_MIGRATIONS_KEY));

    const first = await node.nextBlock();
    assert.deepEqual(
      eventsOf(first, "migration_step").map((e) => [e.upgrade, e.module, e.name, e.progress, e.steps, e.mode]),
      [
        ["v2", "bank", "touch-balances", "0.250000000000000000", "1", "PreBlock"],
        ["v2", "ledger", "fill", "0.285714285714285714", "1", "PreBlock"], // 10/35
      ],
    );

    let done: Record<string, string>[] = [];
    const finishedAt = new Map<string, bigint>();
    for (let i = 0; i < balanceRecords + 2 && finishedAt.size < 2; i++) {
      const response = await node.nextBlock();
      done = eventsOf(response, "migration_done");
      for (const event of done) finishedAt.set(`${event.module}/${event.name}`, BigInt(event.height));
    }
    // ledger: 3 steps with progress, the 4th writes the last 5 and finishes; bank: one step per record, then the
    // step that finds none left.
    assert.equal(finishedAt.get("ledger/fill"), UPGRADE_HEIGHT + 4n);
    assert.equal(finishedAt.get("bank/touch-balances"), UPGRADE_HEIGHT + BigInt(balanceRecords) + 1n);

    const finished = await migrations(node);
    assert.deepEqual(
      finished.map((m) => [m.module, m.finishedHeight, m.progress, m.steps]),
      [
        ["bank", UPGRADE_HEIGHT + BigInt(balanceRecords) + 1n, "1.000000000000000000", BigInt(balanceRecords) + 1n],
        ["ledger", UPGRADE_HEIGHT + 4n, "1.000000000000000000", 4n],
      ],
    );
    const ledger = (await node.query()).kvStore("ledger");
    let records = 0;
    for await (const _ of ledger.iterate({ prefix: enc("record/") })) records++;
    let seen = 0;
    for await (const _ of ledger.iterate({ prefix: enc("seen/") })) seen++;
    assert.equal(records, LEDGER_RECORDS);
    assert.equal(seen, balanceRecords);
    assert.equal(await (await node.query()).kvStore("upgrade").has(RUNNING_MIGRATIONS_KEY), false);

    // Nothing runs once they are done.
    const later = await node.nextBlock();
    assert.deepEqual(eventsOf(later, "migration_step"), []);
    await node.close();
  });

  it("refuses the migrating module's txs (upgrade 7, nothing charged) while queries work, and accepts them after", async () => {
    const node = await upgradedNode(newHome());
    await node.nextBlock(); // H: started
    const sequence = async () => (await node.accountKeeper.getAccount(await node.query(), PROPOSER.address))?.sequence;
    const sequenceBefore = await sequence();

    const refused = await node.deliver(PROPOSER, [send(5n)]); // block H+1: step 1 ran (25%), then the tx
    assert.equal(refused.codespace, "upgrade");
    assert.equal(refused.code, 7);
    assert.equal(refused.log, `module bank is migrating: 25% done, started at height ${UPGRADE_HEIGHT}`);
    assert.equal(refused.log, moduleMigratingMessage("bank", "0.250000000000000000", UPGRADE_HEIGHT));
    // Refused before the ante handler's writes: the sequence did not move. Queries answer while it runs.
    assert.equal(await sequence(), sequenceBefore);
    assert.equal((await migrations(node)).length, 2);

    while ((await migrations(node)).some((m) => m.module === "bank" && m.finishedHeight === 0n)) await node.nextBlock();
    const accepted = await node.deliver(PROPOSER, [send(5n)]);
    assert.equal(accepted.code, 0, accepted.log);
    await node.close();
  });

  it("a message the migration declares safe stays accepted while it runs; the module's others are refused", async () => {
    const safeSend: TestRelease = {
      ...v2,
      upgrade: {
        name: "v2",
        steppedMigrations: [{ ...touchBalances, safeMessages: ["/chain.bank.v1beta1.MsgSend"] }, fillLedger],
      },
    };
    const node = await upgradedNode(newHome(), safeSend);
    await node.nextBlock(); // H
    const accepted = await node.deliver(PROPOSER, [send(5n)]);
    assert.equal(accepted.code, 0, accepted.log);
    assert.ok((await migrations(node)).some((m) => m.module === "bank" && m.finishedHeight === 0n));
    const multi = packAny(
      MsgMultiSendSchema,
      create(MsgMultiSendSchema, {
        inputs: [{ address: PROPOSER.bech32, coins: [{ denom: "stake", amount: "2" }] }],
        outputs: [{ address: VALIDATOR.bech32, coins: [{ denom: "stake", amount: "2" }] }],
      }),
    );
    const refused = await node.deliver(PROPOSER, [multi]);
    assert.equal(refused.code, 7);
    assert.match(refused.log, /^module bank is migrating: \d+% done, started at height 6$/);
    await node.close();
  });

  it("a node restarted in the middle resumes at the stored cursor: the same app hash at every height", async () => {
    const straight = await upgradedNode(newHome());
    const straightHashes: string[] = [];
    for (let i = 0; i < 12; i++) straightHashes.push(hex((await straight.nextBlock()).appHash));
    await straight.close();

    const home = newHome();
    let node = await upgradedNode(home);
    const hashes: string[] = [];
    for (let i = 0; i < 3; i++) hashes.push(hex((await node.nextBlock()).appHash));
    assert.ok((await migrations(node)).every((m) => m.finishedHeight === 0n && m.steps === 2n));
    await node.close();
    node = await startTestNode({ home, release: v2 });
    for (let i = 0; i < 9; i++) hashes.push(hex((await node.nextBlock()).appHash));
    assert.deepEqual(hashes, straightHashes);
    assert.ok((await migrations(node)).every((m) => m.finishedHeight !== 0n));
    await node.close();
  });

  it("a running migration this binary does not carry halts the node (exit 21) before the block", async () => {
    const home = newHome();
    const node = await upgradedNode(home);
    await node.nextBlock();
    await node.close();
    const without = await startTestNode({ home, release: { ...v2, upgrade: { name: "v2" } } });
    await assert.rejects(without.nextBlock(), (err: unknown) => {
      assert.ok(err instanceof UpgradeHaltError);
      assert.equal(err.kind, "wrongBinary");
      assert.match(
        err.message,
        /^stepped migration v2\/bank\/touch-balances is running on chain but this binary does not carry it/,
      );
      return true;
    });
    await without.close();
  });
});
