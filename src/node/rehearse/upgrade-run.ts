// One run of the upgrade on a work home, exactly as the new release runs it at H+1 (docs/CONTRACT.md §2.4, §2.6):
// the release opens the state with the upgrade's store loader for H+1, FinalizeBlock(H+1) runs PreBlock, the
// block's transactions and EndBlock — where the upgrade module applies the plan (handler, migrations, version map)
// — and Commit persists it as version H+1. When the state does not schedule the plan for H+1 (a rehearsal at any
// height), the upgrade keeper is told it is due at H+1, as it would be on the chain that schedules it; the state
// after the upgrade is the same (applying clears the plan). The same function runs in the determinism child.
import { performance } from "node:perf_hooks";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { pino } from "pino";
import type { Context } from "../../app/context.ts";
import type { VersionMap } from "../../app/module.ts";
import { hexUpper } from "../../app/tx-response.ts";
import { homePaths } from "../../config/index.ts";
import type { RequestFinalizeBlock, ResponseFinalizeBlock } from "../../gen/tendermint/abci/types_pb.js";
import { buildChainApp, type ChainApp } from "../../runtime/build-app.ts";
import type { ChainDefinition, Release } from "../../runtime/release.ts";
import { upgradeHistory } from "../../runtime/release-history.ts";
import { readCommittedVersionAndValue } from "../../store/index.ts";
import { doneKey, UPGRADE_STORE_KEY } from "../../x/upgrade/keys.ts";
import { type DrainedMigration, drainSteppedMigrations } from "../../x/upgrade/migration-runner.ts";
import { newPlan } from "../../x/upgrade/plan.ts";
import { decodeAppliedHeight } from "../dry-run.ts";
import { storeKeyCounts } from "../store-key-counts.ts";
import { withBuiltExtendedCommit } from "./built-commit.ts";
import { type CheckResult, runAfterChecks, runBeforeChecks, runInvariants } from "./checks.ts";
import { RehearsalError } from "./errors.ts";

/** A migration step's time. */
export interface MigrationTime {
  module: string;
  from: bigint;
  to: bigint;
  ms: number;
}

/** What one run measured and found. */
export interface UpgradeRun {
  height: bigint;
  appliedAt: bigint;
  scheduledPlan: { name: string; height: bigint; info: string } | undefined;
  storesBefore: Map<string, number>;
  storesAfter: Map<string, number>;
  storeUpgradesInstalled: boolean;
  versionsBefore: VersionMap;
  versionsAfter: VersionMap;
  protocolBefore: bigint;
  protocolAfter: bigint;
  appHashBefore: string;
  appHashAfter: string;
  checks: CheckResult[];
  block: ResponseFinalizeBlock;
  /** The upgrade's stepped migrations run to their end on a dropped branch (blocks at their budget); [] uninspected. */
  steppedMigrations: DrainedMigration[];
  durations: {
    loadMs: number;
    handlerMs: number;
    blockMs: number;
    commitMs: number;
    migrations: MigrationTime[];
    /** Running the stepped migrations to their end. */
    steppedMs: number;
  };
}

/** What the opened state says before the upgrade runs on it. */
export interface StateAtOpen {
  /** Its latest committed height H (0 when nothing was committed). */
  height: bigint;
  /** The height the upgrade was applied at, when the state has it applied already. */
  appliedAt: bigint | undefined;
}

/** Options of {@link runUpgrade}. */
export interface UpgradeRunOptions {
  home: string;
  name: string;
  chain: ChainDefinition;
  release: Release;
  chainId: string;
  /**
   * Block H+1 (its height must be the state's latest + 1); or, when the caller does not know H yet, how to make it
   * from the opened state: the store loader then applies at the state's next height, and the app's own open tells
   * H and whether the upgrade was applied already (the rehearsal's case: no extra open of the state before).
   */
  block: RequestFinalizeBlock | ((state: StateAtOpen) => Promise<RequestFinalizeBlock>);
  /**
   * Refuses a state by throwing (nothing committed, the upgrade applied already), before the block is made. Called
   * too, from one read of the state's records, when the store loader could not open it at all: applying the
   * upgrade's store changes once more is what fails there.
   */
  refuse?: (state: StateAtOpen) => void;
  /** Run the invariants and the upgrade's checks and count keys (the determinism child does not). */
  inspect: boolean;
}

/** Runs the upgrade; resolves with the measures and the open app (the caller closes it, after any follow). */
export async function runUpgrade(options: UpgradeRunOptions): Promise<{ run: UpgradeRun; chain: ChainApp }> {
  const given = typeof options.block === "function" ? undefined : options.block;
  const storePath = homePaths(options.home).applicationDb;
  const started = performance.now();
  let chain: ChainApp;
  try {
    chain = await buildChainApp({
      chain: options.chain,
      home: options.home,
      chainId: options.chainId,
      logger: pino({ level: "silent" }),
      release: options.release,
      storePath,
      storeLoader: { upgrade: options.name, height: given?.height ?? "next" },
    });
  } catch (err) {
    if (options.refuse !== undefined) {
      // Unreadable records leave the open's own error to tell what is wrong.
      const records = await readCommittedVersionAndValue(storePath, UPGRADE_STORE_KEY, doneKey(options.name)).catch(
        () => undefined,
      );
      if (records !== undefined)
        options.refuse({ height: records.latest, appliedAt: decodeAppliedHeight(records.value) });
    }
    throw err;
  }
  const loadMs = performance.now() - started;
  try {
    let block: RequestFinalizeBlock;
    if (typeof options.block === "function" || options.refuse !== undefined) {
      const state = await stateAtOpen(chain, options.name);
      options.refuse?.(state);
      block = typeof options.block === "function" ? await options.block(state) : options.block;
    } else block = options.block;
    const run = await execute(chain, { ...options, block }, block.height - 1n, loadMs);
    return { run, chain };
  } catch (err) {
    await chain.app.close();
    throw err;
  }
}

/** The opened state's height and the upgrade's done record, read through the app. */
async function stateAtOpen(chain: ChainApp, name: string): Promise<StateAtOpen> {
  if (chain.app.lastBlockHeight() === 0n) return { height: 0n, appliedAt: undefined };
  const done = await chain.upgradeKeeper.getDoneHeight(await chain.app.createQueryContext(), name);
  return { height: chain.app.lastBlockHeight(), appliedAt: done === 0n ? undefined : done };
}

async function execute(
  chain: ChainApp,
  options: UpgradeRunOptions & { block: RequestFinalizeBlock },
  height: bigint,
  loadMs: number,
): Promise<UpgradeRun> {
  const { app, upgradeKeeper: keeper, moduleManager } = chain;
  if (app.lastBlockHeight() !== height) {
    throw new Error(`the work state is at height ${app.lastBlockHeight()}, expected ${height}`);
  }
  const upgrade = upgradeHistory(options.chain, options.release).find((u) => u.name === options.name);
  const checksDeclared = upgrade?.checks ?? [];
  const header = (at: bigint): Context["header"] => ({
    height: at,
    time: options.block.time ?? timestampFromMs(0),
    chainId: options.chainId,
    proposerAddress: options.block.proposerAddress,
    lastAppHash: app.store.lastCommit().appHash,
    hash: options.block.hash,
  });
  // Contexts over a fresh branch each: checks only read, and anything they write is dropped.
  const ctxAt = (at: bigint) => () => app.newContext(app.store.branch(), "finalize", header(at));
  const queryCtx = await app.createQueryContext();
  const appHashBefore = hexUpper(app.store.lastCommit().appHash);
  const versionsBefore = await keeper.getModuleVersionMap(queryCtx);
  const protocolBefore = await keeper.getProtocolVersion(queryCtx);
  const scheduled = await keeper.getUpgradePlan(queryCtx);
  if (scheduled !== undefined && scheduled.name !== options.name) {
    throw new RehearsalError(
      `the state at height ${height} schedules upgrade "${scheduled.name}" for height ${scheduled.height}, not "${options.name}"; rehearse "${scheduled.name}", or a state before it was scheduled`,
    );
  }
  const storesBefore = options.inspect ? await countStores(app, height) : new Map<string, number>();
  const checks: CheckResult[] = [];
  let beforeData = new Map<(typeof checksDeclared)[number], unknown>();
  if (options.inspect) {
    // Module invariants are the new release's: they describe its layout, which holds only once the upgrade ran.
    const before = await runBeforeChecks(options.name, checksDeclared, ctxAt(height));
    checks.push(...before.results);
    beforeData = before.data;
  }

  // Due at H+1, as on the chain that schedules it there.
  const due = newPlan({ name: options.name, height: options.block.height, info: scheduled?.info ?? "" });
  const readPlan = keeper.getUpgradePlan.bind(keeper);
  let applied = false;
  keeper.getUpgradePlan = async (ctx) => (applied ? readPlan(ctx) : due);
  const apply = keeper.applyUpgrade.bind(keeper);
  let handlerMs = 0;
  keeper.applyUpgrade = async (ctx, plan) => {
    applied = true;
    const t = performance.now();
    try {
      await apply(ctx, plan);
    } finally {
      handlerMs += performance.now() - t;
    }
  };
  const migrations: MigrationTime[] = [];
  moduleManager.migrationObserver = (step) => migrations.push({ ...step, to: step.from + 1n, ms: step.ms });

  // A built block gets H's extended commit as a steady network's real block would have it (built-commit.ts).
  const request = await withBuiltExtendedCommit(chain, options.block, ctxAt(height)());
  const blockStarted = performance.now();
  let block: ResponseFinalizeBlock;
  try {
    block = await app.finalizeBlock(request);
  } catch (err) {
    throw new RehearsalError(
      `the upgrade "${options.name}" failed at height ${options.block.height}: ${(err as Error).message}`,
      {
        cause: err,
      },
    );
  } finally {
    keeper.getUpgradePlan = readPlan;
    keeper.applyUpgrade = apply;
    moduleManager.migrationObserver = undefined;
  }
  const blockMs = performance.now() - blockStarted;
  const committing = performance.now();
  await app.commit();
  const commitMs = performance.now() - committing;

  // The blocks after H+1: the upgrade's stepped migrations, one step a block, on a branch that is dropped (a follow
  // replays the source's real blocks from the committed state, where they run in PreBlock as on the chain).
  const steppedStarted = performance.now();
  const stepBranch = app.store.branch();
  const steppedMigrations = options.inspect
    ? await drainSteppedMigrations(
        keeper,
        (at) => app.newContext(stepBranch, "finalize", header(at)),
        options.block.height + 1n,
      )
    : [];
  const steppedMs = performance.now() - steppedStarted;

  const after = await app.createQueryContext();
  const storesAfter = options.inspect ? await countStores(app, options.block.height) : new Map<string, number>();
  if (options.inspect) {
    checks.push(...(await runInvariants(moduleManager.modules(), ctxAt(options.block.height), "after")));
    checks.push(...(await runAfterChecks(options.name, checksDeclared, beforeData, ctxAt(options.block.height))));
  }
  return {
    height,
    appliedAt: options.block.height,
    scheduledPlan:
      scheduled === undefined ? undefined : { name: scheduled.name, height: scheduled.height, info: scheduled.info },
    storesBefore,
    storesAfter,
    storeUpgradesInstalled: chain.storeUpgradesInstalled,
    versionsBefore,
    versionsAfter: await keeper.getModuleVersionMap(after),
    protocolBefore,
    protocolAfter: await keeper.getProtocolVersion(after),
    appHashBefore,
    appHashAfter: hexUpper(block.appHash),
    checks,
    block,
    steppedMigrations,
    durations: { loadMs, handlerMs, blockMs, commitMs, migrations, steppedMs },
  };
}

async function countStores(app: ChainApp["app"], version: bigint): Promise<Map<string, number>> {
  return storeKeyCounts(await app.store.view(version));
}
