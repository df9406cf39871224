// What a module's stepped migration refuses and what it does not, in a real App (real gov, bank, auth ante) over a
// real LevelDB store: a passed proposal's message to the migrating module fails the proposal with the migration's
// reason (gov's EndBlock runs it without a tx, so the ante handler's guard never sees it) and the same proposal passes
// once the migration is done; while bank itself migrates, a tx of another module still pays its fee (the ante
// handler moves it through the bank keeper: no bank message), and a bank tx is refused with nothing charged.
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { runToUpgradeHalt } from "../../../test/support/upgrade/halt-at-plan.ts";
import { packAny } from "../../client/tx/any.ts";
import { addressToBech32, moduleAddress } from "../../crypto/index.ts";
import {
  QueryBalanceRequestSchema,
  QueryBalanceResponseSchema,
  QuerySendEnabledRequestSchema,
  QuerySendEnabledResponseSchema,
} from "../../gen/chain/bank/v1beta1/query_pb.js";
import { MsgSendSchema, MsgSetSendEnabledSchema } from "../../gen/chain/bank/v1beta1/tx_pb.js";
import { ProposalStatus } from "../../gen/chain/gov/v1/gov_pb.js";
import { MsgSubmitProposalSchema } from "../../gen/chain/gov/v1/tx_pb.js";
import { RequestQuerySchema } from "../../gen/tendermint/abci/types_pb.js";
import { signTx } from "../../testing/app.ts";
import { PROPOSER, startTestNode, type TestNode, type TestRelease, VALIDATOR } from "../../testing/test-node.ts";
import type { SteppedMigration } from "./stepped-migration.ts";

const GOV = addressToBech32(moduleAddress("gov"));
const FEE_COLLECTOR = addressToBech32(moduleAddress("fee_collector"));
/** The testing kit's chain id (src/testing/test-node.ts), which a tx signed here must name. */
const KIT_CHAIN_ID = "upgrade-test";
const UPGRADE_HEIGHT = 6n;
const STEPS = 12;

// bank: a migration of STEPS steps that touches nothing (the cursor counts them): long enough for a proposal to be
// submitted, voted and executed while it runs.
const slowBank: SteppedMigration = {
  module: "bank",
  name: "slow",
  budget: 1,
  step: async (_ctx, cursor) => {
    const done = cursor === undefined ? 1 : cursor[0] + 1;
    if (done === STEPS) return "done";
    return { cursor: new Uint8Array([done]), progress: { done: BigInt(done), total: BigInt(STEPS) } };
  },
};
const v1: TestRelease = { modules: () => [] };
const v2: TestRelease = { modules: () => [], upgrade: { name: "v2", steppedMigrations: [slowBank] } };

let root: string;
let homes = 0;
before(async () => {
  root = await mkdtemp(join(tmpdir(), "stepped-refusals-"));
});
after(async () => {
  await rm(root, { recursive: true, force: true });
});

/** A v1 chain that schedules v2 at UPGRADE_HEIGHT and halts there; v2 takes over and runs H (bank starts migrating). */
async function migratingNode(): Promise<TestNode> {
  const home = join(root, `node-${homes++}`);
  await runToUpgradeHalt(home, v1, "v2", UPGRADE_HEIGHT);
  const node = await startTestNode({ home, release: v2 });
  await node.nextBlock();
  assert.equal(await bankMigrating(node), true);
  return node;
}

async function bankMigrating(node: TestNode): Promise<boolean> {
  const all = await node.keeper.getMigrations(await node.query());
  return all.some((m) => m.module === "bank" && m.finishedHeight === 0n);
}

async function balance(node: TestNode, address: string): Promise<bigint> {
  const response = await node.app.query(
    create(RequestQuerySchema, {
      path: "/chain.bank.v1beta1.Query/Balance",
      data: toBinary(QueryBalanceRequestSchema, create(QueryBalanceRequestSchema, { address, denom: "stake" })),
    }),
  );
  assert.equal(response.code, 0, response.log);
  return BigInt(fromBinary(QueryBalanceResponseSchema, response.value).balance?.amount ?? "0");
}

async function sendEnabled(node: TestNode, denom: string): Promise<boolean | undefined> {
  const response = await node.app.query(
    create(RequestQuerySchema, {
      path: "/chain.bank.v1beta1.Query/SendEnabled",
      data: toBinary(QuerySendEnabledRequestSchema, create(QuerySendEnabledRequestSchema, { denoms: [denom] })),
    }),
  );
  assert.equal(response.code, 0, response.log);
  return fromBinary(QuerySendEnabledResponseSchema, response.value).sendEnabled[0]?.enabled;
}

/** A tx of PROPOSER carrying `messages` and paying `fee` stake, in its own block. */
async function deliverWithFee(node: TestNode, messages: ReturnType<typeof packAny>[], fee: bigint) {
  const account = await node.accountKeeper.getAccount(await node.query(), PROPOSER.address);
  assert.ok(account !== undefined);
  const tx = signTx({
    key: PROPOSER,
    messages,
    chainId: KIT_CHAIN_ID,
    accountNumber: account.accountNumber,
    sequence: account.sequence,
    gasLimit: 2_000_000n,
    fee: [{ denom: "stake", amount: fee }],
  });
  return (await node.nextBlock({ txs: [tx] })).txResults[0];
}

const disableOther = packAny(
  MsgSetSendEnabledSchema,
  create(MsgSetSendEnabledSchema, { authority: GOV, sendEnabled: [{ denom: "other", enabled: false }] }),
);

describe("while a module migrates", () => {
  it("a passed proposal's message to it fails the proposal with the migration's reason; after, the same passes", async () => {
    const node = await migratingNode();
    const refused = await node.passProposal([disableOther]);
    assert.equal(await bankMigrating(node), true, "the proposal ran while bank was still migrating");
    assert.equal(refused.status, ProposalStatus.FAILED);
    assert.match(refused.failedReason, /^module bank is migrating: \d+% done, started at height 6$/);
    assert.equal(await sendEnabled(node, "other"), undefined, "nothing of the refused message was applied");

    while (await bankMigrating(node)) await node.nextBlock();
    const accepted = await node.passProposal([disableOther]);
    assert.equal(accepted.status, ProposalStatus.PASSED, accepted.failedReason);
    assert.equal(await sendEnabled(node, "other"), false);
    await node.close();
  });

  it("while bank migrates, a tx of another module pays its fee; a bank tx is refused and charged nothing", async () => {
    const node = await migratingNode();
    const fee = 1_000n;
    const deposit = 10_000_000n;
    const payerBefore = await balance(node, PROPOSER.bech32);
    const collectedBefore = await balance(node, FEE_COLLECTOR);

    const submit = packAny(
      MsgSubmitProposalSchema,
      create(MsgSubmitProposalSchema, {
        messages: [disableOther],
        initialDeposit: [{ denom: "stake", amount: deposit.toString() }],
        proposer: PROPOSER.bech32,
        title: "fees while bank migrates",
        summary: "a gov tx paying a fee",
      }),
    );
    const paid = await deliverWithFee(node, [submit], fee);
    assert.equal(paid.code, 0, paid.log);
    assert.equal(await bankMigrating(node), true);
    assert.equal(await balance(node, PROPOSER.bech32), payerBefore - fee - deposit);
    assert.equal(await balance(node, FEE_COLLECTOR), collectedBefore + fee);

    const send = packAny(
      MsgSendSchema,
      create(MsgSendSchema, {
        fromAddress: PROPOSER.bech32,
        toAddress: VALIDATOR.bech32,
        amount: [{ denom: "stake", amount: "5" }],
      }),
    );
    const refused = await deliverWithFee(node, [send], fee);
    assert.equal(refused.codespace, "upgrade");
    assert.equal(refused.code, 7);
    assert.equal(await balance(node, PROPOSER.bech32), payerBefore - fee - deposit);
    assert.equal(await balance(node, FEE_COLLECTOR), collectedBefore + fee);
    await node.close();
  });
});
