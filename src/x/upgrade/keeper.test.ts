import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { create, fromBinary } from "@bufbuild/protobuf";
import { ErrInvalidRequest } from "../../app/errors.ts";
import { UserError } from "../../errors/user-error.ts";
import { PlanSchema } from "../../gen/chain/upgrade/v1beta1/upgrade_pb.js";
import { openTestChain, type TestChain } from "../../testing/upgrade-context.ts";
import { defaultUpgradeAuthority, MAX_SKIP_UPGRADE_HEIGHT, parseSkipUpgradeHeights, UpgradeKeeper } from "./keeper.ts";
import { doneKey, moduleVersionKey, PLAN_KEY, PROTOCOL_VERSION_KEY } from "./keys.ts";
import { newPlan } from "./plan.ts";

let home: string;
let chain: TestChain;
before(async () => {
  home = await mkdtemp(join(tmpdir(), "upgrade-keeper-"));
  chain = await openTestChain();
});
after(async () => {
  await chain.close();
  await rm(home, { recursive: true, force: true });
});

const hex = (bytes: Uint8Array | undefined) => (bytes === undefined ? undefined : Buffer.from(bytes).toString("hex"));

test("the default authority is the gov module account", () => {
  assert.equal(defaultUpgradeAuthority(), "chain10d07y265gmmuvt4z0w9aw880jnsr700j0q8wax");
  assert.equal(new UpgradeKeeper({ home }).authority, "chain10d07y265gmmuvt4z0w9aw880jnsr700j0q8wax");
});

test("scheduleUpgrade stores the plan at 0x00 in its stored form; a later one replaces it; clear removes it", async () => {
  const keeper = new UpgradeKeeper({ home });
  const ctx = chain.context(5n);
  const store = ctx.kvStore("upgrade");
  // Time absent on the way in; stored with 0001-01-01T00:00:00Z.
  await keeper.scheduleUpgrade(ctx, create(PlanSchema, { name: "v2", height: 130n }));
  assert.equal(hex(await store.get(PLAN_KEY)), "0a027632120b088092b8c398feffffff01188201");
  await keeper.scheduleUpgrade(ctx, create(PlanSchema, { name: "v3", height: 140n, info: "x" }));
  assert.equal(hex(await store.get(PLAN_KEY)), "0a027633120b088092b8c398feffffff01188c01220178");
  const plan = await keeper.getUpgradePlan(ctx);
  assert.equal(plan?.name, "v3");
  assert.equal(plan?.time?.seconds, -62135596800n);
  await keeper.clearUpgradePlan(ctx);
  assert.equal(await store.get(PLAN_KEY), undefined);
  assert.equal(await keeper.getUpgradePlan(ctx), undefined);
  await keeper.clearUpgradePlan(ctx); // nothing scheduled: still fine
});

test("scheduleUpgrade: validation, the past, equal height allowed, a completed name", async () => {
  const keeper = new UpgradeKeeper({ home });
  const ctx = chain.context(50n);
  const rejects = async (plan: ReturnType<typeof newPlan>, message: string) =>
    assert.rejects(keeper.scheduleUpgrade(ctx, plan), (err: unknown) => {
      assert.equal((err as Error).message, message);
      assert.ok(ErrInvalidRequest.is(err));
      return true;
    });
  await rejects(newPlan({ name: "", height: 60n }), "name cannot be empty: invalid request");
  await rejects(newPlan({ name: "v2", height: 0n }), "height must be greater than 0: invalid request");
  await rejects(newPlan({ name: "v2", height: 49n }), "upgrade cannot be scheduled in the past: invalid request");
  await keeper.scheduleUpgrade(ctx, newPlan({ name: "v2", height: 50n }));
  assert.equal((await keeper.getUpgradePlan(ctx))?.height, 50n);

  ctx.kvStore("upgrade").set(doneKey("v1"), new Uint8Array([0, 0, 0, 0, 0, 0, 0, 9]));
  await rejects(
    newPlan({ name: "v1", height: 60n }),
    "upgrade with name v1 has already been completed: invalid request",
  );
  // The failed attempt leaves the scheduled plan alone.
  assert.equal((await keeper.getUpgradePlan(ctx))?.name, "v2");
});

test("done records: getDoneHeight 0 when unknown; the last completed is the highest height", async () => {
  const keeper = new UpgradeKeeper({ home });
  const ctx = chain.context(100n);
  assert.equal(await keeper.getDoneHeight(ctx, "nope"), 0n);
  assert.equal(await keeper.getLastCompletedUpgrade(ctx), undefined);
  const store = ctx.kvStore("upgrade");
  const be = (n: number) => new Uint8Array(Buffer.from(n.toString(16).padStart(16, "0"), "hex"));
  store.set(doneKey("test-v0.9"), be(10));
  store.set(doneKey("test-v0.10"), be(15));
  store.set(doneKey("alpha"), be(12));
  assert.equal(await keeper.getDoneHeight(ctx, "test-v0.9"), 10n);
  assert.deepEqual(await keeper.getLastCompletedUpgrade(ctx), { name: "test-v0.10", height: 15n });
  store.set(doneKey("zeta"), be(15));
  assert.deepEqual(await keeper.getLastCompletedUpgrade(ctx), { name: "zeta", height: 15n });
});

test("the version map: stored as 0x02‖module → 8-byte BE, read sorted, set is a merge", async () => {
  const keeper = new UpgradeKeeper({ home });
  const ctx = chain.context(1n);
  await keeper.setModuleVersionMap(
    ctx,
    new Map([
      ["bank", 4n],
      ["auth", 5n],
    ]),
  );
  assert.equal(hex(await ctx.kvStore("upgrade").get(moduleVersionKey("bank"))), "0000000000000004");
  assert.deepEqual(hex(moduleVersionKey("bank")), "0262616e6b");
  await keeper.setModuleVersionMap(
    ctx,
    new Map([
      ["gov", 1n],
      ["bank", 5n],
    ]),
  );
  assert.deepEqual(
    [...(await keeper.getModuleVersionMap(ctx))],
    [
      ["auth", 5n],
      ["bank", 5n],
      ["gov", 1n],
    ],
  );
  assert.equal(await keeper.getModuleVersion(ctx, "gov"), 1n);
  assert.equal(await keeper.getModuleVersion(ctx, "nope"), undefined);
  await keeper.setModuleVersionMap(ctx, new Map());
  assert.equal((await keeper.getModuleVersionMap(ctx)).size, 3);
});

test("applyUpgrade: handler gets the stored map; merge, protocol version +1, plan cleared, done at the block height", async () => {
  const versions: bigint[] = [];
  const keeper = new UpgradeKeeper({ home, onProtocolVersion: (v) => versions.push(v) });
  const ctx = chain.context(20n);
  await keeper.setModuleVersionMap(
    ctx,
    new Map([
      ["bank", 1n],
      ["old", 3n],
    ]),
  );
  const plan = newPlan({ name: "v2", height: 18n });
  await keeper.scheduleUpgrade(chain.context(18n).with({ multiStore: ctx.multiStore }), plan);

  await assert.rejects(keeper.applyUpgrade(ctx, plan), {
    message: "ApplyUpgrade should never be called without first checking HasHandler",
  });
  let seen: Map<string, bigint> | undefined;
  keeper.setUpgradeHandler("v2", async (_ctx, got, fromVM) => {
    assert.equal(got.name, "v2");
    seen = new Map(fromVM);
    return new Map([
      ["bank", 2n],
      ["new", 1n],
    ]);
  });
  assert.equal(keeper.hasHandler("v2"), true);
  assert.equal(keeper.hasHandler("v3"), false);
  assert.equal(await keeper.getProtocolVersion(ctx), 0n);
  await keeper.applyUpgrade(ctx, plan);

  assert.deepEqual(
    [...(seen ?? [])],
    [
      ["bank", 1n],
      ["old", 3n],
    ],
  );
  assert.deepEqual(
    [...(await keeper.getModuleVersionMap(ctx))],
    [
      ["bank", 2n],
      ["new", 1n],
      ["old", 3n],
    ],
  );
  const store = ctx.kvStore("upgrade");
  assert.equal(hex(await store.get(PROTOCOL_VERSION_KEY)), "0000000000000001");
  assert.equal(await keeper.getProtocolVersion(ctx), 1n);
  assert.deepEqual(versions, [1n]);
  assert.equal(await store.get(PLAN_KEY), undefined);
  // Done at the block height (20), not the plan's (18): key 0x01‖"v2" → 8-byte BE 20.
  assert.equal(hex(await store.get(new Uint8Array([0x01, 0x76, 0x32]))), "0000000000000014");
  assert.equal(await keeper.getDoneHeight(ctx, "v2"), 20n);
  assert.deepEqual(await keeper.getLastCompletedUpgrade(ctx), { name: "v2", height: 20n });
});

test("a handler error propagates unchanged", async () => {
  const keeper = new UpgradeKeeper({ home });
  const ctx = chain.context(7n);
  const failure = new Error("boom");
  keeper.setUpgradeHandler("bad", async () => {
    throw failure;
  });
  await assert.rejects(keeper.applyUpgrade(ctx, newPlan({ name: "bad", height: 7n })), (err) => err === failure);
});

test("skip heights are fixed at construction", () => {
  const keeper = new UpgradeKeeper({ home, skipUpgradeHeights: [30, 10n] });
  assert.equal(keeper.isSkipHeight(10n), true);
  assert.equal(keeper.isSkipHeight(30n), true);
  assert.equal(keeper.isSkipHeight(20n), false);
  assert.deepEqual(keeper.skipUpgradeHeights(), [10n, 30n]);
});

test("a stored plan decodes back to what was scheduled", async () => {
  const keeper = new UpgradeKeeper({ home });
  const ctx = chain.context(1n);
  await keeper.scheduleUpgrade(ctx, newPlan({ name: "v9", height: 9n, info: "{}" }));
  const bytes = await ctx.kvStore("upgrade").get(PLAN_KEY);
  assert.ok(bytes !== undefined);
  const plan = fromBinary(PlanSchema, bytes);
  assert.deepEqual([plan.name, plan.height, plan.info], ["v9", 9n, "{}"]);
});

test("parseSkipUpgradeHeights: lists and repeats; anything else is refused with an example", () => {
  assert.deepEqual(parseSkipUpgradeHeights(["120,340", " 500 "]), [120n, 340n, 500n]);
  assert.deepEqual(parseSkipUpgradeHeights(["5, 6", "7"]), [5n, 6n, 7n]);
  assert.deepEqual(parseSkipUpgradeHeights([]), []);
  assert.deepEqual(parseSkipUpgradeHeights(["9223372036854775807"]), [MAX_SKIP_UPGRADE_HEIGHT]);
  const expected = "expected positive integers up to 9223372036854775807, comma-separated, e\\.g\\. 120,340$";
  // Every malformed value is refused (as upstream's int-slice flag), naming the value and the bad item.
  const cases: [string, string][] = [
    ["", "the value is empty"],
    [" ", "the value is empty"],
    ["5,", "item 2 is empty"],
    [",5", "item 1 is empty"],
    ["5,,6", "item 2 is empty"],
    ["5, ,6", "item 2 is empty"],
    ["99999999999999999999", '"99999999999999999999" is out of range'],
    ["9223372036854775808", '"9223372036854775808" is out of range'],
    ["x", '"x" is not a positive integer'],
    ["abc", '"abc" is not a positive integer'],
    ["-5", '"-5" is not a positive integer'],
    ["0", '"0" is not a positive integer'],
    ["1.5", '"1.5" is not a positive integer'],
    ["5 6", '"5 6" is not a positive integer'],
    ["0x10", '"0x10" is not a positive integer'],
    ["5,abc", '"abc" is not a positive integer'],
  ];
  for (const [bad, problem] of cases) {
    assert.throws(
      () => parseSkipUpgradeHeights(["7", bad]),
      (err: Error) => {
        assert.ok(err instanceof UserError, `${JSON.stringify(bad)}: a user error (one line, no stack)`);
        assert.match(
          err.message,
          new RegExp(
            `^invalid --unsafe-skip-upgrades ${escapeRegExp(JSON.stringify(bad))}: ${escapeRegExp(problem)}; ${expected}`,
          ),
        );
        return true;
      },
    );
  }
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
