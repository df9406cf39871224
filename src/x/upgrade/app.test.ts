// The upgrade module inside a real App (with real staking and gov) over a real LevelDB store, block by block,
// across restarts and releases. Plans arrive in gov proposals that pass by the validator's vote.
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { create } from "@bufbuild/protobuf";
import { packAny } from "../../client/tx/any.ts";
import { ProposalStatus } from "../../gen/chain/gov/v1/gov_pb.js";
import { MsgCancelUpgradeSchema, MsgSoftwareUpgradeSchema } from "../../gen/chain/upgrade/v1beta1/tx_pb.js";
import {
  PROPOSER,
  startTestNode,
  type TestNode,
  type TestRelease,
  testModule,
  VOTING_PERIOD_MS,
} from "../../testing/test-node.ts";
import { UpgradeHaltError } from "./errors.ts";
import { PLAN_KEY } from "./keys.ts";
import { newPlan } from "./plan.ts";
import { upgradeInfoPath } from "./upgrade-info-file.ts";

const GOV = "chain10d07y265gmmuvt4z0w9aw880jnsr700j0q8wax";
const enc = (text: string) => new TextEncoder().encode(text);
const dec = (bytes: Uint8Array | undefined) => (bytes === undefined ? undefined : new TextDecoder().decode(bytes));
const hex = (bytes: Uint8Array | undefined) => (bytes === undefined ? undefined : Buffer.from(bytes).toString("hex"));

const schedule = (name: string, height: bigint, info = "") =>
  packAny(
    MsgSoftwareUpgradeSchema,
    create(MsgSoftwareUpgradeSchema, { authority: GOV, plan: newPlan({ name, height, info }) }),
  );
const cancel = () => packAny(MsgCancelUpgradeSchema, create(MsgCancelUpgradeSchema, { authority: GOV }));

// v1: counter at version 1, a store to be renamed, a store to be deleted.
const v1: TestRelease = {
  modules: () => [
    testModule({ name: "counter", version: 1n }),
    testModule({ name: "legacy", version: 1n, storeKey: "oldstore" }),
    testModule({ name: "doomed", version: 1n }),
  ],
};
// v2: counter migrates 1 → 2, `legacy` lives in the renamed store, `fresh` is new, `doomed` is gone.
const v2Modules =
  (counterVersion = 2n) =>
  () => [
    testModule({
      name: "counter",
      version: counterVersion,
      migrations: {
        1: async (ctx) => {
          const before = dec(await ctx.kvStore("counter").get(enc("genesis")));
          ctx.kvStore("counter").set(enc("migrated"), enc(`from 1 to 2; genesis was ${before}`));
        },
      },
    }),
    testModule({ name: "legacy", version: 1n, storeKey: "renamed" }),
    testModule({ name: "fresh", version: 1n }),
  ];
const v2Upgrade = {
  name: "v2",
  storeUpgrades: { added: ["fresh"], renamed: [{ oldKey: "oldstore", newKey: "renamed" }], deleted: ["doomed"] },
};
const v2: TestRelease = { modules: v2Modules(), upgrade: v2Upgrade };

let root: string;
let homes = 0;
before(async () => {
  root = await mkdtemp(join(tmpdir(), "upgrade-app-"));
});
after(async () => {
  await rm(root, { recursive: true, force: true });
});
const newHome = () => join(root, `node-${homes++}`);

async function blocks(node: TestNode, until: bigint): Promise<void> {
  while (node.app.lastBlockHeight() < until) await node.nextBlock();
}

async function haltsWith(node: TestNode, kind: UpgradeHaltError["kind"], message: string): Promise<void> {
  const height = node.app.lastBlockHeight();
  const appHash = node.app.store.lastCommit().appHash;
  await assert.rejects(node.nextBlock(), (err: unknown) => {
    assert.ok(err instanceof UpgradeHaltError, String(err));
    assert.equal(err.kind, kind);
    assert.equal(err.message, message);
    return true;
  });
  assert.equal(node.app.lastBlockHeight(), height, "nothing of the halted block is committed");
  assert.deepEqual(node.app.store.lastCommit().appHash, appHash);
}

async function planBytes(node: TestNode): Promise<string | undefined> {
  return hex(await (await node.query()).kvStore("upgrade").get(PLAN_KEY));
}

async function moduleVersions(node: TestNode): Promise<Record<string, bigint>> {
  return Object.fromEntries((await node.keeper.getModuleVersions(await node.query())).map((m) => [m.name, m.version]));
}

async function passes(node: TestNode, messages: ReturnType<typeof schedule>[]): Promise<void> {
  const proposal = await node.passProposal(messages);
  assert.equal(proposal.status, ProposalStatus.PASSED, proposal.failedReason);
}

describe("scheduling through gov proposals", () => {
  it("a passed proposal stores the plan at 0x00; a later one replaces it; a cancel removes it; cancelling nothing passes", async () => {
    const node = await startTestNode({ home: newHome(), release: v1 });
    await node.nextBlock();
    // The full version map is stored at genesis.
    const expected = Object.fromEntries(node.moduleManager.modules().map((m) => [m.name, m.consensusVersion]));
    assert.deepEqual(await moduleVersions(node), expected);
    assert.equal(expected.gov, 5n);

    await passes(node, [schedule("v2", 130n)]);
    assert.equal(await planBytes(node), "0a027632120b088092b8c398feffffff01188201");
    await passes(node, [schedule("v2", 140n, "info")]);
    assert.equal(await planBytes(node), "0a027632120b088092b8c398feffffff01188c012204696e666f");
    await passes(node, [cancel()]);
    assert.equal(await planBytes(node), undefined);
    await passes(node, [cancel()]);
    assert.equal(await planBytes(node), undefined);

    // A plan in the past, an invalid plan: the proposal FAILS with the keeper's error and nothing changes.
    await passes(node, [schedule("v3", 500n)]);
    const past = await node.passProposal([schedule("v2", 3n)]);
    assert.equal(past.status, ProposalStatus.FAILED);
    assert.match(past.failedReason, /upgrade cannot be scheduled in the past: invalid request/);
    const invalid = await node.passProposal([schedule("", 900n)]);
    assert.equal(invalid.status, ProposalStatus.FAILED);
    assert.match(invalid.failedReason, /name cannot be empty: invalid request/);
    assert.equal((await node.keeper.getUpgradePlan(await node.query()))?.name, "v3");
    await node.close();
  });

  it("a cancel proposal submitted while the upgrade proposal votes, ending later, leaves no plan once both pass", async () => {
    const node = await startTestNode({ home: newHome(), release: v1 });
    await node.nextBlock();
    const upgradeId = await node.submitProposal([schedule("v2", 1000n)]); // voting ends at T + VP
    const cancelId = await node.submitProposal([cancel()]); // submitted 1 s later: ends at T + 1 s + VP
    await node.voteYes(upgradeId);
    await node.voteYes(cancelId);
    await node.nextBlock({ advanceMs: VOTING_PERIOD_MS - 3000 }); // T + VP: the upgrade proposal ends first
    assert.equal((await node.proposal(upgradeId)).status, ProposalStatus.PASSED);
    assert.equal((await node.proposal(cancelId)).status, ProposalStatus.VOTING_PERIOD);
    assert.ok(await planBytes(node));
    await node.nextBlock(); // T + 1 s + VP: the cancel proposal ends
    assert.equal((await node.proposal(cancelId)).status, ProposalStatus.PASSED);
    assert.equal(await planBytes(node), undefined);
    await node.close();
  });

  it("a MsgSoftwareUpgrade sent directly by an account fails with the authority error", async () => {
    const node = await startTestNode({ home: newHome(), release: v1 });
    await node.nextBlock();
    const msg = create(MsgSoftwareUpgradeSchema, {
      authority: PROPOSER.bech32,
      plan: newPlan({ name: "v2", height: 100n }),
    });
    const result = await node.deliver(PROPOSER, [packAny(MsgSoftwareUpgradeSchema, msg)]);
    assert.equal(result.codespace, "upgrade");
    assert.equal(result.code, 6);
    assert.match(
      result.log,
      new RegExp(
        `expected ${GOV} got ${PROPOSER.bech32}: expected authority account as only signer for proposal message`,
      ),
    );
    await node.close();
  });
});

describe("the upgrade height", () => {
  let home: string;
  let height: bigint;
  before(() => {
    home = newHome();
  });

  it("the old binary halts at H: upgrade-info.json exact, nothing of H committed, exit status 20", async () => {
    const node = await startTestNode({ home, release: v1 });
    await node.nextBlock();
    height = node.app.lastBlockHeight() + 6n;
    await passes(node, [schedule("v2", height, '{"binaries":{}}')]);
    await blocks(node, height - 1n);
    await haltsWith(node, "needed", `UPGRADE "v2" NEEDED at height: ${height}: {"binaries":{}}`);
    assert.equal(node.logs.at(-1), `UPGRADE "v2" NEEDED at height: ${height}: {"binaries":{}}`);
    assert.equal(
      await readFile(upgradeInfoPath(home), "utf8"),
      `{"name":"v2","time":"0001-01-01T00:00:00Z","height":${height},"info":"{\\"binaries\\":{}}"}`,
    );
    assert.equal((await stat(upgradeInfoPath(home))).mode & 0o777, 0o600);
    await node.close();
  });

  it("restarting the same binary halts again identically", async () => {
    const first = await readFile(upgradeInfoPath(home), "utf8");
    const node = await startTestNode({ home, release: v1 });
    assert.equal((await node.app.info()).lastBlockHeight, height - 1n);
    assert.equal(node.storeLoaderInstalled, false);
    await haltsWith(node, "needed", `UPGRADE "v2" NEEDED at height: ${height}: {"binaries":{}}`);
    assert.equal(node.logs.at(-1), `UPGRADE "v2" NEEDED at height: ${height}: {"binaries":{}}`);
    assert.equal(await readFile(upgradeInfoPath(home), "utf8"), first);
    await node.close();
  });

  it("the new binary opens at H−1 with the store upgrades, applies the upgrade at H and carries on", async () => {
    const node = await startTestNode({ home, release: v2 });
    assert.equal(node.storeLoaderInstalled, true);
    assert.deepEqual(node.app.storeUpgrades, v2Upgrade.storeUpgrades);
    assert.equal((await node.app.info()).appVersion, 0n);
    const before = await moduleVersions(node);
    const response = await node.nextBlock();
    assert.equal(node.app.lastBlockHeight(), height);
    assert.ok(node.logs.includes(`applying upgrade "v2" at height: ${height}`));
    assert.equal(response.consensusParamUpdates?.version?.app, 1n);

    const ctx = await node.query();
    const store = ctx.kvStore("upgrade");
    assert.equal(hex(await store.get(enc("\x01v2"))), height.toString(16).padStart(16, "0"));
    assert.equal(hex(await store.get(new Uint8Array([0x03]))), "0000000000000001");
    assert.equal(await store.get(PLAN_KEY), undefined);
    assert.equal(await node.keeper.getDoneHeight(ctx, "v2"), height);
    assert.equal((await node.app.info()).appVersion, 1n);
    // Version map merged: counter migrated, fresh added, doomed's stale entry kept (a merge never deletes).
    assert.deepEqual(await moduleVersions(node), { ...before, counter: 2n, fresh: 1n });
    assert.equal(
      dec(await ctx.kvStore("counter").get(enc("migrated"))),
      'from 1 to 2; genesis was {"note":"default genesis of counter"}',
    );
    // The new module was initialised from its default genesis; the renamed store kept its data; the deleted is gone.
    assert.equal(dec(await ctx.kvStore("fresh").get(enc("genesis"))), '{"note":"default genesis of fresh"}');
    assert.equal(dec(await ctx.kvStore("renamed").get(enc("genesis"))), '{"note":"default genesis of legacy"}');
    const names = (await node.app.store.view()).storeNames();
    assert.ok(names.includes("renamed") && names.includes("fresh"));
    assert.ok(!names.includes("doomed") && !names.includes("oldstore"));

    // The name is done: scheduling it again fails the proposal.
    const again = await node.passProposal([schedule("v2", height + 100n)]);
    assert.equal(again.status, ProposalStatus.FAILED);
    assert.match(again.failedReason, /upgrade with name v2 has already been completed: invalid request/);
    await node.close();
  });

  it("a later restart never applies the store upgrades again; Info still reports app_version 1", async () => {
    const node = await startTestNode({ home, release: v2 });
    assert.equal(node.storeLoaderInstalled, true); // upgrade-info.json still names v2 …
    assert.equal(node.app.storeUpgrades, undefined); // … but the store is not at H−1
    assert.equal((await node.app.info()).appVersion, 1n);
    const ctx = await node.query();
    assert.equal(dec(await ctx.kvStore("renamed").get(enc("genesis"))), '{"note":"default genesis of legacy"}');
    const last = node.app.lastBlockHeight();
    await node.nextBlock();
    assert.equal(node.app.lastBlockHeight(), last + 1n);
    await node.close();
  });

  it("a binary without the applied upgrade's handler refuses the state: wrong app version", async () => {
    const node = await startTestNode({ home, release: { modules: v2Modules() } });
    await haltsWith(node, "wrongBinary", "wrong app version 1, upgrade handler is missing for v2 upgrade plan");
    await node.close();
  });

  it("the old binary, whose stores the upgrade renamed and deleted, is refused before it mounts: wrong app version", async () => {
    await assert.rejects(startTestNode({ home, release: v1 }), (err: unknown) => {
      assert.ok(err instanceof UpgradeHaltError, String(err));
      assert.equal(err.kind, "wrongBinary");
      assert.equal(err.exitCode, 21);
      assert.equal(err.message, "wrong app version 1, upgrade handler is missing for v2 upgrade plan");
      return true;
    });
    // Nothing was written: v2 still opens the state and carries on.
    const node = await startTestNode({ home, release: v2 });
    const last = node.app.lastBlockHeight();
    await node.nextBlock();
    assert.equal(node.app.lastBlockHeight(), last + 1n);
    await node.close();
  });
});

describe("other outcomes at the upgrade height", () => {
  it("skip height: plan cleared, not done, the same name schedulable again", async () => {
    const home = newHome();
    let node = await startTestNode({ home, release: v1 });
    await node.nextBlock();
    const height = node.app.lastBlockHeight() + 5n;
    await passes(node, [schedule("v2", height, "i")]);
    await blocks(node, height - 1n);
    await node.close();
    node = await startTestNode({ home, release: v1, skipUpgradeHeights: [height] });
    await node.nextBlock();
    assert.ok(node.logs.includes(`UPGRADE "v2" SKIPPED at ${height}: i`));
    const ctx = await node.query();
    assert.equal(await planBytes(node), undefined);
    assert.equal(await node.keeper.getDoneHeight(ctx, "v2"), 0n);
    assert.equal(await node.keeper.getProtocolVersion(ctx), 0n);
    await assert.rejects(stat(upgradeInfoPath(home)));
    await passes(node, [schedule("v2", height + 50n)]);
    assert.equal((await node.keeper.getUpgradePlan(await node.query()))?.height, height + 50n);
    await node.close();
  });

  it("an early binary: BINARY UPDATED BEFORE TRIGGER, exit status 21", async () => {
    const home = newHome();
    let node = await startTestNode({ home, release: v1 });
    await node.nextBlock();
    await passes(node, [schedule("v2", 100n)]);
    await node.close();
    node = await startTestNode({ home, release: { ...v1, upgrade: { name: "v2" } } });
    await haltsWith(
      node,
      "wrongBinary",
      'BINARY UPDATED BEFORE TRIGGER! UPGRADE "v2" - in binary but not executed on chain. Downgrade your binary',
    );
    await node.close();
  });

  it("an early binary whose store set differs from the state's is refused before it mounts: BINARY UPDATED BEFORE TRIGGER", async () => {
    const home = newHome();
    let node = await startTestNode({ home, release: v1 });
    await node.nextBlock();
    await passes(node, [schedule("v2", 100n)]);
    await node.close();
    await assert.rejects(startTestNode({ home, release: v2 }), (err: unknown) => {
      assert.ok(err instanceof UpgradeHaltError, String(err));
      assert.equal(err.exitCode, 21);
      assert.equal(
        err.message,
        'BINARY UPDATED BEFORE TRIGGER! UPGRADE "v2" - in binary but not executed on chain. Downgrade your binary',
      );
      return true;
    });
    // The state is untouched: v1 carries on.
    node = await startTestNode({ home, release: v1 });
    await node.nextBlock();
    await node.close();
  });

  it("a missing migration step halts at H with exit status 22 and nothing committed", async () => {
    const home = newHome();
    let node = await startTestNode({ home, release: v1 });
    await node.nextBlock();
    const height = node.app.lastBlockHeight() + 4n;
    await passes(node, [schedule("v2", height)]);
    await blocks(node, height - 1n);
    await assert.rejects(node.nextBlock(), { message: `UPGRADE "v2" NEEDED at height: ${height}: ` });
    await node.close();
    node = await startTestNode({ home, release: { ...v2, modules: v2Modules(3n) } });
    await haltsWith(
      node,
      "upgradeFailed",
      `failed to apply upgrade "v2" at height ${height}: no migration found for module counter from version 2 to version 3: not found`,
    );
    await node.close();
  });
});
