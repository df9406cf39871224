import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { abciInfo, ChainError, GrpcCode, grpcCodeOf, lookupError } from "../../app/errors.ts";
import { MsgRouter, QueryRouter, routerRegistrar } from "../../app/router.ts";
import { packAny } from "../../client/tx/any.ts";
import {
  QueryAppliedPlanRequestSchema,
  QueryAppliedPlanResponseSchema,
  QueryAuthorityRequestSchema,
  QueryAuthorityResponseSchema,
  QueryCurrentPlanRequestSchema,
  QueryCurrentPlanResponseSchema,
  QueryModuleVersionsRequestSchema,
  QueryModuleVersionsResponseSchema,
  QueryUpgradedConsensusStateRequestSchema,
  QueryUpgradedConsensusStateResponseSchema,
} from "../../gen/chain/upgrade/v1beta1/query_pb.js";
import { MsgCancelUpgradeSchema, MsgSoftwareUpgradeSchema } from "../../gen/chain/upgrade/v1beta1/tx_pb.js";
import { openTestChain, type TestChain } from "../../testing/upgrade-context.ts";
import { ErrInvalidSigner, ErrNoModuleVersionFound } from "./errors.ts";
import { UpgradeKeeper } from "./keeper.ts";
import { createUpgradeModule } from "./module.ts";
import { newPlan } from "./plan.ts";

const GOV = "chain10d07y265gmmuvt4z0w9aw880jnsr700j0q8wax";
const OTHER = "chain1qypqxpq9qcrsszg2pvxq6rs0zqg3yyc5lzv7xu";

let home: string;
let chain: TestChain;
let keeper: UpgradeKeeper;
const msgRouter = new MsgRouter();
const queryRouter = new QueryRouter();
before(async () => {
  home = await mkdtemp(join(tmpdir(), "upgrade-servers-"));
  chain = await openTestChain();
  keeper = new UpgradeKeeper({ home });
  createUpgradeModule({ keeper }).registerServices(routerRegistrar(msgRouter, queryRouter));
});
after(async () => {
  await chain.close();
  await rm(home, { recursive: true, force: true });
});

async function deliver(any: ReturnType<typeof packAny>, ctx = chain.context(10n)) {
  const { route, msg } = msgRouter.unpack(any);
  return route.handler(msg, ctx);
}

async function query<O>(path: string, request: Uint8Array, decode: (bytes: Uint8Array) => O, ctx = chain.context(10n)) {
  return decode(await queryRouter.queryBinary(path, request, ctx));
}

test("the module: name, consensus version 1, store key, genesis only the readiness params", () => {
  const module = createUpgradeModule({ keeper });
  assert.equal(module.name, "upgrade");
  assert.equal(module.consensusVersion, 1n);
  assert.deepEqual(module.storeKeys, ["upgrade"]);
  assert.deepEqual(module.defaultGenesis(), {});
  module.validateGenesis({});
  module.validateGenesis({ params: { readiness_threshold: "0.670000000000000000" } });
  assert.throws(() => module.validateGenesis([]), /the upgrade genesis must be an object/);
  assert.equal(typeof module.preBlock, "function");
  assert.equal(typeof module.endBlock, "function");
});

test("upgrade codespace errors carry upstream's numbers", () => {
  assert.equal(lookupError("upgrade", 2)?.description, "module version not found");
  assert.equal(lookupError("upgrade", 3)?.description, "upgrade plan not found");
  assert.equal(lookupError("upgrade", 4)?.description, "upgraded client not found");
  assert.equal(lookupError("upgrade", 5)?.description, "upgraded consensus state not found");
  assert.equal(
    lookupError("upgrade", 6)?.description,
    "expected authority account as only signer for proposal message",
  );
});

test("Msg routes are registered under the chain type URLs", () => {
  assert.ok(msgRouter.route("/chain.upgrade.v1beta1.MsgSoftwareUpgrade"));
  assert.ok(msgRouter.route("/chain.upgrade.v1beta1.MsgCancelUpgrade"));
});

test("a wrong authority: upgrade code 6 with upstream's text, for both messages", async () => {
  const ctx = chain.context(10n);
  for (const any of [
    packAny(
      MsgSoftwareUpgradeSchema,
      create(MsgSoftwareUpgradeSchema, { authority: OTHER, plan: newPlan({ name: "v2", height: 20n }) }),
    ),
    packAny(MsgCancelUpgradeSchema, create(MsgCancelUpgradeSchema, { authority: OTHER })),
  ]) {
    await assert.rejects(deliver(any, ctx), (err: unknown) => {
      assert.ok(err instanceof ChainError);
      assert.ok(ErrInvalidSigner.is(err));
      assert.equal(
        err.message,
        `expected ${GOV} got ${OTHER}: expected authority account as only signer for proposal message`,
      );
      assert.deepEqual(abciInfo(err), { codespace: "upgrade", code: 6, log: err.message });
      return true;
    });
  }
  assert.equal(await keeper.getUpgradePlan(ctx), undefined);
});

test("MsgSoftwareUpgrade schedules; its validation errors pass through; MsgCancelUpgrade clears, even when none", async () => {
  const ctx = chain.context(10n);
  await deliver(
    packAny(
      MsgSoftwareUpgradeSchema,
      create(MsgSoftwareUpgradeSchema, { authority: GOV, plan: newPlan({ name: "v2", height: 20n }) }),
    ),
    ctx,
  );
  assert.equal((await keeper.getUpgradePlan(ctx))?.name, "v2");
  await assert.rejects(
    deliver(
      packAny(
        MsgSoftwareUpgradeSchema,
        create(MsgSoftwareUpgradeSchema, { authority: GOV, plan: newPlan({ name: "v3", height: 9n }) }),
      ),
      ctx,
    ),
    { message: "upgrade cannot be scheduled in the past: invalid request" },
  );
  await assert.rejects(
    deliver(packAny(MsgSoftwareUpgradeSchema, create(MsgSoftwareUpgradeSchema, { authority: GOV })), ctx),
    {
      message: "name cannot be empty: invalid request",
    },
  );
  await deliver(packAny(MsgCancelUpgradeSchema, create(MsgCancelUpgradeSchema, { authority: GOV })), ctx);
  assert.equal(await keeper.getUpgradePlan(ctx), undefined);
  await deliver(packAny(MsgCancelUpgradeSchema, create(MsgCancelUpgradeSchema, { authority: GOV })), ctx);
});

test("queries: CurrentPlan, AppliedPlan, ModuleVersions (sorted, filtered, unknown → NotFound naming it), Authority", async () => {
  const ctx = chain.context(50n);
  const current = () =>
    query(
      "/chain.upgrade.v1beta1.Query/CurrentPlan",
      toBinary(QueryCurrentPlanRequestSchema, create(QueryCurrentPlanRequestSchema)),
      (b) => fromBinary(QueryCurrentPlanResponseSchema, b),
      ctx,
    );
  assert.equal((await current()).plan, undefined);
  await keeper.scheduleUpgrade(ctx, newPlan({ name: "v2", height: 130n, info: "x" }));
  const plan = (await current()).plan;
  assert.deepEqual([plan?.name, plan?.height, plan?.info, plan?.time?.seconds], ["v2", 130n, "x", -62135596800n]);

  const applied = (name: string) =>
    query(
      "/chain.upgrade.v1beta1.Query/AppliedPlan",
      toBinary(QueryAppliedPlanRequestSchema, create(QueryAppliedPlanRequestSchema, { name })),
      (b) => fromBinary(QueryAppliedPlanResponseSchema, b).height,
      ctx,
    );
  assert.equal(await applied("v1"), 0n);
  assert.equal(await applied(""), 0n);
  keeper.setUpgradeHandler(
    "v1",
    async () =>
      new Map([
        ["upgrade", 1n],
        ["bank", 2n],
        ["auth", 3n],
      ]),
  );
  await keeper.applyUpgrade(ctx, newPlan({ name: "v1", height: 50n }));
  assert.equal(await applied("v1"), 50n);

  const versions = async (moduleName: string) =>
    (
      await query(
        "/chain.upgrade.v1beta1.Query/ModuleVersions",
        toBinary(QueryModuleVersionsRequestSchema, create(QueryModuleVersionsRequestSchema, { moduleName })),
        (b) => fromBinary(QueryModuleVersionsResponseSchema, b),
        ctx,
      )
    ).moduleVersions.map((m) => [m.name, m.version]);
  assert.deepEqual(await versions(""), [
    ["auth", 3n],
    ["bank", 2n],
    ["upgrade", 1n],
  ]);
  assert.deepEqual(await versions("bank"), [["bank", 2n]]);
  await assert.rejects(versions("nope"), (err: unknown) => {
    assert.ok(ErrNoModuleVersionFound.is(err));
    assert.equal(
      (err as Error).message,
      "x/upgrade: QueryModuleVersions module nope not found: module version not found",
    );
    assert.equal(grpcCodeOf(err), GrpcCode.NotFound);
    return true;
  });

  const authority = await query(
    "/chain.upgrade.v1beta1.Query/Authority",
    toBinary(QueryAuthorityRequestSchema, create(QueryAuthorityRequestSchema)),
    (b) => fromBinary(QueryAuthorityResponseSchema, b),
    ctx,
  );
  assert.equal(authority.address, GOV);
});

test("the deprecated UpgradedConsensusState answers an empty response: this chain never stores one", async () => {
  const bytes = await queryRouter.queryBinary(
    "/chain.upgrade.v1beta1.Query/UpgradedConsensusState",
    toBinary(
      QueryUpgradedConsensusStateRequestSchema,
      create(QueryUpgradedConsensusStateRequestSchema, { lastHeight: 5n }),
    ),
    chain.context(1n),
  );
  assert.deepEqual(bytes, new Uint8Array());
  assert.equal(fromBinary(QueryUpgradedConsensusStateResponseSchema, bytes).upgradedConsensusState.length, 0);
});
