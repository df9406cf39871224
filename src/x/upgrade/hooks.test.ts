import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { HaltError } from "../../app/halt.ts";
import { openTestChain, type TestChain } from "../../testing/upgrade-context.ts";
import { upgradeEndBlock } from "./end-block.ts";
import { UPGRADE_EXIT_CODES, UpgradeHaltError } from "./errors.ts";
import { UpgradeKeeper } from "./keeper.ts";
import { newPlan } from "./plan.ts";
import { upgradePreBlock } from "./pre-block.ts";
import { upgradeInfoPath } from "./upgrade-info-file.ts";

let root: string;
let chain: TestChain;
let homes = 0;
before(async () => {
  root = await mkdtemp(join(tmpdir(), "upgrade-hooks-"));
  chain = await openTestChain();
});
after(async () => {
  await chain.close();
  await rm(root, { recursive: true, force: true });
});

function keeper(options: { skip?: bigint[] } = {}): UpgradeKeeper {
  return new UpgradeKeeper({ home: join(root, `home-${homes++}`), skipUpgradeHeights: options.skip });
}

function isHalt(kind: keyof typeof UPGRADE_EXIT_CODES, message: string, height: bigint) {
  return (err: unknown) => {
    assert.ok(err instanceof UpgradeHaltError, String(err));
    assert.ok(err instanceof HaltError);
    assert.equal(err.reason, "upgrade");
    assert.equal(err.kind, kind);
    assert.equal(err.exitCode, UPGRADE_EXIT_CODES[kind]);
    assert.equal(err.message, message);
    assert.equal(err.height, height);
    return true;
  };
}

test("exit statuses: needed 20, wrong binary 21, upgrade failed 22", () => {
  assert.deepEqual(UPGRADE_EXIT_CODES, { needed: 20, wrongBinary: 21, upgradeFailed: 22 });
});

test("nothing scheduled: both hooks do nothing", async () => {
  const k = keeper();
  const ctx = chain.context(3n);
  await upgradePreBlock(k, ctx);
  await upgradeEndBlock(k, ctx);
  assert.equal(await k.getUpgradePlan(ctx), undefined);
});

test("a due plan without a handler halts in PreBlock: upgrade-info.json, the NEEDED log line, exit 20, state untouched", async () => {
  const k = keeper();
  const ctx = chain.context(10n);
  const info = '{"binaries":{"any":"https://example.com/chaind?checksum=sha256:00"}}';
  await k.scheduleUpgrade(ctx, newPlan({ name: "v2", height: 10n, info }));
  await upgradePreBlock(k, chain.context(9n).with({ multiStore: ctx.multiStore })); // not due yet: nothing
  assert.equal(await stat(k.upgradeInfoPath()).catch(() => undefined), undefined);

  const expected = `UPGRADE "v2" NEEDED at height: 10: ${info}`;
  const before = chain.messages().length;
  await assert.rejects(upgradePreBlock(k, ctx), isHalt("needed", expected, 10n));
  assert.equal(
    await readFile(upgradeInfoPath(k.home), "utf8"),
    `{"name":"v2","time":"0001-01-01T00:00:00Z","height":10,"info":${JSON.stringify(info)}}`,
  );
  assert.deepEqual(chain.messages().slice(before), [expected]);
  assert.equal((await k.getUpgradePlan(ctx))?.name, "v2");
});

test("an overdue plan: the file records the current height, the message the plan's; empty info ends in ': '", async () => {
  const k = keeper();
  const ctx = chain.context(14n);
  await k.scheduleUpgrade(
    chain.context(11n).with({ multiStore: ctx.multiStore }),
    newPlan({ name: "test", height: 11n }),
  );
  await assert.rejects(upgradePreBlock(k, ctx), isHalt("needed", 'UPGRADE "test" NEEDED at height: 11: ', 14n));
  assert.equal(
    await readFile(k.upgradeInfoPath(), "utf8"),
    '{"name":"test","time":"0001-01-01T00:00:00Z","height":14}',
  );
});

test("a plan not yet due whose handler this binary has: BINARY UPDATED BEFORE TRIGGER (exit 21)", async () => {
  const k = keeper();
  k.setUpgradeHandler("v2", async (_c, _p, vm) => vm);
  const ctx = chain.context(5n);
  await k.scheduleUpgrade(ctx, newPlan({ name: "v2", height: 8n }));
  await assert.rejects(
    upgradePreBlock(k, ctx),
    isHalt(
      "wrongBinary",
      'BINARY UPDATED BEFORE TRIGGER! UPGRADE "v2" - in binary but not executed on chain. Downgrade your binary',
      5n,
    ),
  );
  assert.equal(await stat(k.upgradeInfoPath()).catch(() => undefined), undefined);
});

test("downgrade: the last applied upgrade has no handler here → wrong app version <protocol version>, once per process", async () => {
  const setup = keeper();
  setup.setUpgradeHandler("v2", async (_c, _p, vm) => vm);
  const ctx = chain.context(20n);
  await setup.applyUpgrade(ctx, newPlan({ name: "v2", height: 20n }));
  await setup.applyUpgrade(ctx, newPlan({ name: "v2", height: 20n })); // protocol version 2

  const old = keeper();
  const next = chain.context(21n).with({ multiStore: ctx.multiStore });
  await assert.rejects(
    upgradePreBlock(old, next),
    isHalt("wrongBinary", "wrong app version 2, upgrade handler is missing for v2 upgrade plan", 21n),
  );
  // Checked once per process: the same keeper does not check again.
  await upgradePreBlock(old, next);

  // The binary that has the handler passes.
  const current = keeper();
  current.setUpgradeHandler("v2", async (_c, _p, vm) => vm);
  await upgradePreBlock(current, next);
});

test("the downgrade check is skipped when an unskipped plan is due, and runs when the due plan is skipped", async () => {
  const setup = keeper();
  setup.setUpgradeHandler("v2", async (_c, _p, vm) => vm);
  const ctx = chain.context(30n);
  await setup.applyUpgrade(ctx, newPlan({ name: "v2", height: 30n }));
  await setup.scheduleUpgrade(ctx, newPlan({ name: "v3", height: 30n }));

  const v3 = keeper();
  v3.setUpgradeHandler("v3", async (_c, _p, vm) => vm);
  await upgradePreBlock(v3, ctx); // due, handler: no downgrade error although v2 is unknown here

  const skipping = keeper({ skip: [30n] });
  await assert.rejects(
    upgradePreBlock(skipping, ctx),
    isHalt("wrongBinary", "wrong app version 1, upgrade handler is missing for v2 upgrade plan", 30n),
  );
});

test("EndBlock at a skip height: SKIPPED log, plan cleared, no done record, the name schedulable again", async () => {
  const k = keeper({ skip: [12n] });
  const ctx = chain.context(12n);
  await k.scheduleUpgrade(ctx, newPlan({ name: "v2", height: 12n, info: "i" }));
  await upgradePreBlock(k, ctx); // skipped: PreBlock lets it through
  const before = chain.messages().length;
  await upgradeEndBlock(k, ctx);
  assert.deepEqual(chain.messages().slice(before), ['UPGRADE "v2" SKIPPED at 12: i']);
  assert.equal(await k.getUpgradePlan(ctx), undefined);
  assert.equal(await k.getDoneHeight(ctx, "v2"), 0n);
  assert.equal(await k.getProtocolVersion(ctx), 0n);
  await k.scheduleUpgrade(ctx, newPlan({ name: "v2", height: 40n }));
  assert.equal((await k.getUpgradePlan(ctx))?.height, 40n);
  assert.equal(await stat(k.upgradeInfoPath()).catch(() => undefined), undefined);
});

test("EndBlock with the handler: the applying log line, then applyUpgrade", async () => {
  const k = keeper();
  const ctx = chain.context(25n);
  await k.scheduleUpgrade(ctx, newPlan({ name: "v2", height: 25n }));
  k.setUpgradeHandler("v2", async (handlerCtx) => {
    handlerCtx.kvStore("upgrade").set(new Uint8Array([0x09]), new Uint8Array([1]));
    return new Map([["upgrade", 1n]]);
  });
  await upgradePreBlock(k, ctx);
  const before = chain.messages().length;
  await upgradeEndBlock(k, ctx);
  assert.deepEqual(chain.messages().slice(before), ['applying upgrade "v2" at height: 25']);
  assert.equal(await k.getDoneHeight(ctx, "v2"), 25n);
  assert.equal(await k.getProtocolVersion(ctx), 1n);
  assert.equal(await k.getUpgradePlan(ctx), undefined);
  assert.deepEqual(await ctx.kvStore("upgrade").get(new Uint8Array([0x09])), new Uint8Array([1]));
});

test("EndBlock: a plan scheduled during H for H with no handler halts exactly like PreBlock", async () => {
  const k = keeper();
  const ctx = chain.context(33n);
  await upgradePreBlock(k, ctx); // nothing scheduled yet
  await k.scheduleUpgrade(ctx, newPlan({ name: "v5", height: 33n })); // a tx of block 33
  await assert.rejects(upgradeEndBlock(k, ctx), isHalt("needed", 'UPGRADE "v5" NEEDED at height: 33: ', 33n));
  assert.equal(await readFile(k.upgradeInfoPath(), "utf8"), '{"name":"v5","time":"0001-01-01T00:00:00Z","height":33}');
});

test("EndBlock: a failing handler halts with exit 22, its cause in the message, and leaves no partial writes", async () => {
  const k = keeper();
  const ctx = chain.context(40n);
  await k.scheduleUpgrade(ctx, newPlan({ name: "v2", height: 40n }));
  k.setUpgradeHandler("v2", async (handlerCtx) => {
    handlerCtx.kvStore("upgrade").set(new Uint8Array([0x09]), new Uint8Array([1]));
    throw new Error("no migration found for module bank from version 2 to version 3: not found");
  });
  await assert.rejects(
    upgradeEndBlock(k, ctx),
    isHalt(
      "upgradeFailed",
      'failed to apply upgrade "v2" at height 40: no migration found for module bank from version 2 to version 3: not found',
      40n,
    ),
  );
  assert.equal(await ctx.kvStore("upgrade").get(new Uint8Array([0x09])), undefined);
  assert.equal((await k.getUpgradePlan(ctx))?.name, "v2");
});

test("a halt whose upgrade-info.json cannot be written still halts, saying why", async () => {
  const { writeFile, mkdir } = await import("node:fs/promises");
  const k = keeper();
  await mkdir(k.home, { recursive: true });
  await writeFile(join(k.home, "data"), "not a directory");
  const ctx = chain.context(6n);
  await k.scheduleUpgrade(ctx, newPlan({ name: "v2", height: 6n }));
  await assert.rejects(upgradePreBlock(k, ctx), (err: unknown) => {
    assert.ok(err instanceof UpgradeHaltError);
    assert.equal(err.exitCode, 20);
    assert.match(err.message, /^could not create directory ".*data": /);
    return true;
  });
});
