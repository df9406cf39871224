// `chaind upgrade dry-run <name>` (docs/CONTRACT.md §10): what the upgrade `<name>` would do to this node's state,
// without touching it. The state at the requested height (default the latest; any height the home still holds) is
// put in a temporary work home by the rehearsal's own mechanism (rehearse/prepare-state.ts: the latest is copied,
// an older height is exported from a copy and imported alone, so the work store's latest is H); the release of this
// binary that performs `<name>` opens the copy with its store loader (store additions, renames, deletions, as
// the real restart at the upgrade height does), runs the upgrade handler and its migrations at the next
// height in a branch, and stages the result to get the app hash. Reported: key counts per store before
// and after, the module-version diff, the store changes, the time taken and both app hashes.
import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { pino } from "pino";
import type { VersionMap } from "../app/module.ts";
import { hexUpper } from "../app/tx-response.ts";
import { homePaths, loadGenesis } from "../config/index.ts";
import { UserError } from "../errors/user-error.ts";
import type { Plan } from "../gen/chain/upgrade/v1beta1/upgrade_pb.js";
import { buildChainApp } from "../runtime/build-app.ts";
import { currentChain } from "../runtime/current-chain.ts";
import type { ChainDefinition, Release } from "../runtime/release.ts";
import { readLastCommittedVersion as readCommittedHeight, readCommittedValue } from "../store/index.ts";
import type { StoreUpgrades } from "../store/types.ts";
import { closeVerifyPool } from "../x/auth/verify-pool.ts";
import { doneKey, UPGRADE_STORE_KEY } from "../x/upgrade/keys.ts";
import { type DrainedMigration, drainSteppedMigrations } from "../x/upgrade/migration-runner.ts";
import { newPlan } from "../x/upgrade/plan.ts";
import { dumpUpgradeInfoToDisk } from "../x/upgrade/upgrade-info-file.ts";
import { RehearsalError } from "./rehearse/errors.ts";
import { stateFromHome } from "./rehearse/prepare-state.ts";
import { iteratedCount, storeKeyCounts } from "./store-key-counts.ts";

/** Thrown when a dry run cannot be done; the message says why and what would work. */
export class DryRunError extends UserError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "DryRunError";
  }
}

/** Options of {@link dryRunUpgrade}. */
export interface DryRunParameters {
  home: string;
  /** The upgrade (plan) name. */
  name: string;
  /**
   * The state height to start from (default: the latest committed height): any height ≥ 1 the home still holds
   * (not above the latest, not pruned). The upgrade is applied as at H+1 (or at the scheduled plan's height).
   */
  height?: bigint;
  /** The chain whose releases are searched (default: the one this process serves). */
  chain?: ChainDefinition;
  /** Where the temporary copy goes (default os.tmpdir()); removed afterwards. */
  tempRoot?: string;
}

/** One store's key counts. */
export interface DryRunStore {
  name: string;
  /** Keys before (undefined for a store the upgrade adds). */
  keysBefore: number | undefined;
  /** Keys after (undefined for a store the upgrade deletes). */
  keysAfter: number | undefined;
  /** The store's name before a rename. */
  renamedFrom?: string;
}

/** One module's consensus version before and after. */
export interface DryRunModuleVersion {
  name: string;
  before: bigint | undefined;
  after: bigint | undefined;
}

/** What the dry run found. */
export interface DryRunReport {
  name: string;
  release: { name: string; version: string };
  /** The state height the copy held. */
  height: bigint;
  /** The height the upgrade was applied at in the simulation (the plan's, when scheduled). */
  appliedAt: bigint;
  /** The plan as scheduled on chain, or undefined when none with this name is scheduled. */
  scheduledPlan: { name: string; height: bigint; info: string } | undefined;
  storeUpgrades: StoreUpgrades;
  stores: DryRunStore[];
  moduleVersions: DryRunModuleVersion[];
  protocolVersion: { before: bigint; after: bigint };
  appHashBefore: string;
  appHashAfter: string;
  /**
   * The stepped migrations the upgrade starts, run to their end on the copy (one step a block after the upgrade's,
   * as the chain would): how many steps, so blocks, each takes at its budget.
   */
  steppedMigrations: DrainedMigration[];
  durations: {
    copyMs: number;
    loadMs: number;
    upgradeMs: number;
    commitMs: number;
    /** Running the stepped migrations to their end. */
    steppedMs: number;
    totalMs: number;
  };
}

/**
 * The release of `chain` that performs the upgrade `name`: the one whose own `upgrade` it is — later releases keep
 * its handler for history (derived from their line) but do not perform it.
 */
export function releaseForUpgrade(name: string, chain: ChainDefinition = currentChain()): Release {
  const performing = chain.releases.find((release) => release.upgrade?.name === name);
  if (performing !== undefined) return performing;
  const known = chain.releases.flatMap((r) => (r.upgrade === undefined ? [] : [r.upgrade.name]));
  throw new DryRunError(
    `no release in this binary performs the upgrade "${name}" (it knows: ${known.length === 0 ? "none" : known.join(", ")})`,
  );
}

/**
 * Runs the dry run. The node's own `data/` is only read (copied, see rehearse/level-copy.ts); everything written goes
 * to the copy, which is removed before this resolves.
 *
 * @example const report = await dryRunUpgrade({ home, name: "v2" }); report.appHashAfter
 */
export async function dryRunUpgrade(parameters: DryRunParameters): Promise<DryRunReport> {
  const started = performance.now();
  const chainDefinition = parameters.chain ?? currentChain();
  const release = releaseForUpgrade(parameters.name, chainDefinition);
  const releaseUpgrade = release.upgrade;
  const releaseStoreUpgrades = releaseUpgrade?.storeUpgrades ?? { added: [], renamed: [], deleted: [] };
  if (parameters.height !== undefined && parameters.height < 1n) {
    throw new DryRunError(`--height ${parameters.height}: a height is a positive whole number (1 or more)`);
  }
  const paths = homePaths(parameters.home);
  const genesis = await loadGenesis(paths.genesis);
  try {
    await stat(paths.applicationDb);
  } catch (err) {
    throw new DryRunError(
      `there is no state to dry-run on: ${paths.applicationDb} does not exist (has the node run?)`,
      {
        cause: err,
      },
    );
  }

  const temp = await mkdtemp(join(parameters.tempRoot ?? tmpdir(), "chaind-dry-run-"));
  const copyHome = join(temp, "home");
  const copyDb = homePaths(copyHome).applicationDb;
  try {
    // The rehearsal's preparation (not a copy of it): the latest height copied, an older one exported from a copy and
    // imported alone, so that the work store's latest committed version is the requested height. It refuses a height
    // above the latest (naming it) and a pruned one (naming the earliest available).
    await stateFromHome(parameters.home, copyHome, parameters.height).catch((err: unknown) => {
      throw err instanceof RehearsalError ? new DryRunError(err.message, { cause: err }) : err;
    });
    const copied = performance.now();

    // The work store's latest: the requested height when one was given.
    const latest = await readCommittedHeight(copyDb);
    if (latest === 0n) throw new DryRunError(`${paths.applicationDb} holds no committed state yet`);
    // Before the release's store loader runs: on a state that already has the upgrade it would redo store
    // changes that were made (or fail on them) and report a migration that will never run.
    const done = await appliedHeight(copyDb, parameters.name);
    if (done !== undefined) {
      throw new DryRunError(
        `the upgrade "${parameters.name}" was already applied at height ${done}: there is nothing to dry-run on this state (height ${latest})${done > 1n ? `; dry-run on a state before it (--height ${done - 1n} or lower)` : ""}`,
      );
    }
    // The store loader applies a release's store changes when the store opens at (upgrade height − 1),
    // which is what upgrade-info.json at latest+1 tells it: exactly the state the real restart sees (`latest` is the
    // work store's, so the requested height's).
    await dumpUpgradeInfoToDisk(copyHome, latest + 1n, { name: parameters.name, info: "" });

    const chain = await buildChainApp({
      chain: chainDefinition,
      home: copyHome,
      chainId: genesis.chainId,
      logger: pino({ level: "silent" }),
      release,
      storePath: copyDb,
    });
    const app = chain.app;
    try {
      const loaded = performance.now();
      const view = await app.store.view(latest);
      const before = await storeKeyCounts(view);
      const queryCtx = await app.createQueryContext();
      const versionsBefore = await chain.upgradeKeeper.getModuleVersionMap(queryCtx);
      const protocolBefore = await chain.upgradeKeeper.getProtocolVersion(queryCtx);
      const scheduled = await chain.upgradeKeeper.getUpgradePlan(queryCtx);
      const matching = scheduled?.name === parameters.name ? scheduled : undefined;
      const appliedAt = matching !== undefined && matching.height > latest ? matching.height : latest + 1n;
      const plan: Plan = matching ?? newPlan({ name: parameters.name, height: appliedAt });

      const branch = app.store.branch();
      const ctx = app.newContext(branch, "finalize", {
        height: appliedAt,
        time: timestampFromMs(Date.now()),
        chainId: genesis.chainId,
        proposerAddress: new Uint8Array(),
        lastAppHash: app.store.lastCommit().appHash,
        hash: new Uint8Array(),
      });
      try {
        await chain.upgradeKeeper.applyUpgrade(ctx, plan);
      } catch (err) {
        throw new DryRunError(`the upgrade handler of "${parameters.name}" failed: ${(err as Error).message}`, {
          cause: err,
        });
      }
      const versionsAfter = await chain.upgradeKeeper.getModuleVersionMap(ctx);
      const protocolAfter = await chain.upgradeKeeper.getProtocolVersion(ctx);
      const upgraded = performance.now();
      const staged = await app.store.stage(branch);
      const committed = performance.now();

      const afterBranch = app.store.branch();
      const after = new Map<string, number>();
      for (const name of afterBranch.storeNames()) after.set(name, await iteratedCount(afterBranch.store(name)));
      // The blocks after the upgrade's: its stepped migrations, one step a block, on a branch dropped afterwards.
      const steppedStarted = performance.now();
      const stepBranch = app.store.branch();
      const steppedMigrations = await drainSteppedMigrations(
        chain.upgradeKeeper,
        (height) => app.newContext(stepBranch, "finalize", { ...ctx.header, height }),
        appliedAt + 1n,
      ).catch((err: unknown) => {
        throw new DryRunError(`a stepped migration of "${parameters.name}" failed: ${(err as Error).message}`, {
          cause: err,
        });
      });
      const steppedMs = performance.now() - steppedStarted;
      app.store.discardStaged();

      return {
        name: parameters.name,
        release: { name: release.name, version: release.version },
        height: latest,
        appliedAt,
        scheduledPlan:
          matching === undefined ? undefined : { name: matching.name, height: matching.height, info: matching.info },
        storeUpgrades: chain.storeUpgradesInstalled ? releaseStoreUpgrades : { added: [], renamed: [], deleted: [] },
        stores: storeRows(before, after, chain.storeUpgradesInstalled ? releaseStoreUpgrades : undefined),
        moduleVersions: versionRows(versionsBefore, versionsAfter),
        protocolVersion: { before: protocolBefore, after: protocolAfter },
        appHashBefore: hexUpper(view.appHash ?? app.store.lastCommit().appHash),
        appHashAfter: hexUpper(staged.appHash),
        steppedMigrations,
        durations: {
          copyMs: copied - started,
          loadMs: loaded - copied,
          upgradeMs: upgraded - loaded,
          commitMs: committed - upgraded,
          steppedMs,
          totalMs: performance.now() - started,
        },
      };
    } finally {
      await app.close();
      await closeVerifyPool();
    }
  } finally {
    await rm(temp, { recursive: true, force: true });
  }
}

/** One row per store with its key counts before and after (renames followed, added and deleted stores marked). */
export function storeRows(
  before: Map<string, number>,
  after: Map<string, number>,
  upgrades: StoreUpgrades | undefined,
): DryRunStore[] {
  const renamedTo = new Map((upgrades?.renamed ?? []).map((r) => [r.newKey, r.oldKey]));
  const renamedAway = new Set((upgrades?.renamed ?? []).map((r) => r.oldKey));
  const rows: DryRunStore[] = [];
  for (const [name, keysAfter] of after) {
    const from = renamedTo.get(name);
    rows.push(
      from === undefined
        ? { name, keysBefore: before.get(name), keysAfter }
        : { name, keysBefore: before.get(from), keysAfter, renamedFrom: from },
    );
  }
  for (const [name, keysBefore] of before) {
    if (!after.has(name) && !renamedAway.has(name)) rows.push({ name, keysBefore, keysAfter: undefined });
  }
  return rows.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** One row per module with its consensus version before and after, sorted by name. */
export function versionRows(before: VersionMap, after: VersionMap): DryRunModuleVersion[] {
  const names = [...new Set([...before.keys(), ...after.keys()])].sort();
  return names.map((name) => ({ name, before: before.get(name), after: after.get(name) }));
}

/** The height at which `name` was applied in the committed state at `db` (the upgrade store's done key), if it was. */
export async function appliedHeight(db: string, name: string): Promise<bigint | undefined> {
  // One read of the done record, without mounting the stores: the rehearsal's time is measured against the upgrade's.
  return decodeAppliedHeight(await readCommittedValue(db, UPGRADE_STORE_KEY, doneKey(name)));
}

/** The height an upgrade's done record (the upgrade store's `doneKey`) holds, if it is one. */
export function decodeAppliedHeight(bytes: Uint8Array | undefined): bigint | undefined {
  if (bytes === undefined || bytes.length !== 8) return undefined;
  return new DataView(bytes.buffer, bytes.byteOffset, 8).getBigUint64(0);
}
