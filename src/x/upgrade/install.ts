// The upgrade wiring every chain needs, in one call (what gaia's app.go does by hand): register the handler of
// every upgrade the release knows, report the protocol version as ABCI Info.app_version, store the version map at
// InitChain, install the store loader of the upgrade upgrade-info.json names, and — before the app mounts its own
// store set — the guards a binary that does not fit the state's stores would otherwise never reach: the downgrade
// (`wrong app version …`) and the early binary (`BINARY UPDATED BEFORE TRIGGER! …`), both exit 21.
import type { Logger } from "pino";
import type { Context } from "../../app/context.ts";
import type { VersionMap } from "../../app/module.ts";
import type { StoreLoader } from "../../app/store-loader.ts";
import type { Plan } from "../../gen/chain/upgrade/v1beta1/upgrade_pb.js";
import type { CommitMultiStore, StoreUpgrades } from "../../store/types.ts";
import { UpgradeDefinitionError } from "./errors.ts";
import { readLastCompletedUpgrade, readPlan, readProtocolVersion, type UpgradeKeeper } from "./keeper.ts";
import type { AheadContextSource } from "./migration-lookahead.ts";
import { wrongBinaryHalt } from "./pre-block.ts";
import type { SteppedMigration } from "./stepped-migration.ts";
import { releaseStoreLoader, upgradeStoreLoader } from "./store-loader.ts";

const NO_STORE_UPGRADES: StoreUpgrades = { added: [], renamed: [], deleted: [] };

/** Runs module migrations; the App's ModuleManager is one. */
export interface Migrator {
  runMigrations(ctx: Context, fromVM: VersionMap): Promise<VersionMap>;
}

/**
 * An upgrade handler: runs in EndBlock at the plan's height and returns the new version map. `migrator` runs
 * every module's registered migrations from `fromVM` (what most handlers do, and the default).
 */
export type ReleaseUpgradeHandler = (
  ctx: Context,
  plan: Plan,
  fromVM: VersionMap,
  migrator: Migrator,
) => Promise<VersionMap>;

/**
 * A check an upgrade declares about itself (upstream has none; Substrate's try-runtime has pre/post upgrade hooks):
 * `before` reads the state the upgrade starts from and returns what `after` needs; `after` reads the upgraded state
 * and throws an Error saying what does not hold (e.g. "total supply changed: 100stake -> 90stake"). Run by
 * `chaind upgrade rehearse` (never by the node itself: they may read the whole state), reported by `name`.
 */
export interface UpgradeCheck {
  name: string;
  before?(ctx: Context): Promise<unknown>;
  after(ctx: Context, before: unknown): Promise<void>;
}

/** One upgrade a release knows: the plan name governance schedules, its store changes and its handler. */
export interface Upgrade {
  /** The plan name (`tx upgrade software-upgrade <name>`). */
  name: string;
  /** Stores added, renamed and deleted when the new binary opens the state at the plan's height. */
  storeUpgrades?: StoreUpgrades;
  /** Default: run every module's migrations (`migrator.runMigrations(ctx, fromVM)`). */
  handler?: ReleaseUpgradeHandler;
  /** Invariants of this upgrade, checked by the rehearsal (see {@link UpgradeCheck}). */
  checks?: readonly UpgradeCheck[];
  /**
   * Migrations spread over the blocks after the upgrade's (see {@link SteppedMigration}): started when the handler has
   * run, then one step per block in PreBlock until done; the module's txs are refused meanwhile.
   */
  steppedMigrations?: readonly SteppedMigration[];
}

/** The App hooks the upgrade module uses (src/app/base-app.ts `App` has them). */
export interface UpgradeAppHooks {
  setAppVersionProvider(provider: (ctx: Context) => Promise<bigint>): void;
  onInitChainVersionMap(handler: (ctx: Context, versionMap: VersionMap) => Promise<void>): void;
  setStoreLoader(loader: StoreLoader): void;
  /**
   * After every Commit; with `aheadContext`, the next block's migration steps are done there (optional). The
   * listener's promise is that work, part of what the app does behind the commit.
   */
  onCommit?(listener: (height: bigint) => unknown): void;
  aheadContext?: AheadContextSource["aheadContext"];
}

/** The committed state as it is on disk, read before the app mounts its own store set. */
export interface CommittedStateAccess {
  /** The stores the state has at its last committed version ([] when nothing was committed). */
  storeNames(): Promise<string[]>;
  /** Opens the state with exactly these stores (read only use; closed by the caller). */
  open(storeNames: string[]): Promise<CommitMultiStore>;
}

/** Options of {@link installUpgrades}. */
export interface InstallUpgradesOptions {
  /** Runs the module migrations an upgrade handler asks for (the App's ModuleManager). */
  migrator: Migrator;
  /** The stores the app declares (ModuleManager.storeKeys()). */
  storeNames: string[];
  /** Access to the state on disk; without it (a memory store) the pre-mount guards are skipped. */
  committedState?: CommittedStateAccess;
  /** Where the guards log their halt line (module `x/upgrade`). */
  logger?: Logger;
  /**
   * Where the store loader comes from. Default `"upgrade-info"`: data/upgrade-info.json names the upgrade and its
   * height (as gaia does after a halt). `"none"`: no store loader, the state is opened as it is. `{ upgrade, height }`:
   * that upgrade's store loader for the block at `height`, without reading upgrade-info.json — for a caller that
   * knows the upgrade from the chain itself (the replay mode, src/replay, switching releases in process). `height:
   * "next"` is the state's next height, whatever it is: the rehearsal (src/node/rehearse) learns the state's height
   * from the app's own open instead of opening the state once more before it.
   */
  storeLoader?: StoreLoaderSource;
}

/** See {@link InstallUpgradesOptions.storeLoader}. */
export type StoreLoaderSource = "upgrade-info" | "none" | { upgrade: string; height: bigint | "next" };

/** What {@link installUpgrades} did. */
export interface InstalledUpgrades {
  /** The upgrade whose store loader was installed (upgrade-info.json names it and its height is next). */
  storeLoaderOf?: Upgrade;
}

/** A handler is required once per name: the keeper refuses a second registration. */
function assertDistinct(upgrades: readonly Upgrade[]): void {
  const seen = new Set<string>();
  for (const upgrade of upgrades) {
    if (upgrade.name === "") throw new UpgradeDefinitionError("an upgrade needs a name: got an empty one");
    if (seen.has(upgrade.name)) throw new UpgradeDefinitionError(`upgrade "${upgrade.name}" is listed twice`);
    seen.add(upgrade.name);
  }
}

/**
 * Wires the upgrade module into `app` before `app.load()`:
 * 1. registers the handler of every upgrade in `upgrades` (a release keeps those of every upgrade the chain has
 *    applied, or it halts with `wrong app version …`);
 * 2. Info.app_version ← the protocol version; InitChain → the full version map is stored;
 * 3. reads upgrade-info.json (an invalid file is an error naming it) and, when it names one of `upgrades` at a height
 *    that is not skipped, installs that upgrade's store loader (applied only when the state's next height is the
 *    plan's) — or, with `options.storeLoader`, installs none or the one of the upgrade and height it names;
 * 4. when the state's stores differ from the app's and no store loader covers the difference, reads the upgrade
 *    store with the stores the state has and halts (UpgradeHaltError, exit 21) as PreBlock would: the downgrade
 *    guard (`wrong app version <v>, upgrade handler is missing for <name> upgrade plan`) or the early-binary guard
 *    (`BINARY UPDATED BEFORE TRIGGER! …`). Otherwise PreBlock runs both guards at the first block.
 *
 * @example
 * const upgrades: Upgrade[] = [{ name: "v2", storeUpgrades: { added: ["beacon"], renamed: [], deleted: [] } }];
 * await installUpgrades(app, upgradeKeeper, upgrades, { migrator: moduleManager, storeNames: moduleManager.storeKeys() });
 * await app.load();
 */
export async function installUpgrades(
  app: UpgradeAppHooks,
  keeper: UpgradeKeeper,
  upgrades: readonly Upgrade[],
  options: InstallUpgradesOptions,
): Promise<InstalledUpgrades> {
  assertDistinct(upgrades);
  for (const upgrade of upgrades) {
    const handler = upgrade.handler ?? ((ctx, _plan, fromVM, migrator) => migrator.runMigrations(ctx, fromVM));
    keeper.setUpgradeHandler(upgrade.name, (ctx, plan, fromVM) => handler(ctx, plan, fromVM, options.migrator));
    if (upgrade.steppedMigrations !== undefined) keeper.setSteppedMigrations(upgrade.name, upgrade.steppedMigrations);
  }
  app.setAppVersionProvider((ctx) => keeper.getProtocolVersion(ctx));
  const aheadContext = app.aheadContext?.bind(app);
  if (aheadContext !== undefined) app.onCommit?.(() => keeper.lookahead.start({ aheadContext }));
  app.onInitChainVersionMap((ctx, versionMap) => keeper.setModuleVersionMap(ctx, versionMap));

  const source = options.storeLoader ?? "upgrade-info";
  let storeLoaderOf: Upgrade | undefined;
  let storeLoaderHeight: bigint | "next" | undefined;
  if (source === "upgrade-info") {
    const info = await keeper.readUpgradeInfoFromDisk();
    const named = info === undefined ? undefined : upgrades.find((u) => u.name === info.name);
    if (named !== undefined) {
      const loader = await releaseStoreLoader({
        keeper,
        upgradeName: named.name,
        storeUpgrades: named.storeUpgrades ?? NO_STORE_UPGRADES,
      });
      if (loader !== undefined) {
        app.setStoreLoader(loader);
        storeLoaderOf = named;
        storeLoaderHeight = info?.height;
      }
    }
  } else if (source !== "none") {
    const named = upgrades.find((u) => u.name === source.upgrade);
    if (named === undefined) {
      throw new UpgradeDefinitionError(
        `cannot install the store loader of upgrade "${source.upgrade}": this release knows ${upgrades.length === 0 ? "no upgrade" : `only ${upgrades.map((u) => `"${u.name}"`).join(", ")}`}`,
      );
    }
    const storeUpgrades = named.storeUpgrades ?? NO_STORE_UPGRADES;
    app.setStoreLoader(
      source.height === "next"
        ? (parameters) => upgradeStoreLoader(parameters.lastCommittedHeight + 1n, storeUpgrades)(parameters)
        : upgradeStoreLoader(source.height, storeUpgrades),
    );
    storeLoaderOf = named;
    storeLoaderHeight = source.height;
  }

  if (options.committedState !== undefined) {
    await guardBeforeMount(keeper, options.committedState, options.storeNames, storeLoaderHeight, options.logger);
  }
  return { storeLoaderOf };
}

/**
 * The guards of docs/CONTRACT.md §2.4 for a state the app cannot mount: its stores are not the app's and no store loader will
 * reconcile them. Reads the plan, the last applied upgrade and the protocol version with the state's own stores.
 */
async function guardBeforeMount(
  keeper: UpgradeKeeper,
  state: CommittedStateAccess,
  declared: string[],
  storeLoaderHeight: bigint | "next" | undefined,
  logger: Logger | undefined,
): Promise<void> {
  const stored = await state.storeNames();
  if (stored.length === 0 || !stored.includes(keeper.storeKey)) return;
  if (sameSet(stored, declared)) return;
  const store = await state.open(stored);
  let next: bigint;
  let plan: Plan | undefined;
  let last: Awaited<ReturnType<typeof readLastCompletedUpgrade>>;
  let protocolVersion: bigint;
  try {
    next = store.lastCommit().version + 1n;
    const upgradeStore = (await store.view()).store(keeper.storeKey);
    plan = await readPlan(upgradeStore);
    last = await readLastCompletedUpgrade(upgradeStore);
    protocolVersion = await readProtocolVersion(upgradeStore);
  } finally {
    await store.close();
  }
  // A store loader applying at the next height reconciles the sets (the store checks it does so exactly).
  if (storeLoaderHeight === next || storeLoaderHeight === "next") return;
  // The keeper's own guards, as PreBlock runs them at the first block (the downgrade guard then runs no more in this
  // process), except that a plan whose height is skipped does not halt an early binary here.
  let message = await keeper.downgradeGuard(next, plan, {
    lastCompleted: async () => last,
    protocolVersion: async () => protocolVersion,
  });
  if (message === undefined && plan !== undefined && !keeper.isSkipHeight(plan.height)) {
    message = keeper.earlyBinaryGuard(next, plan);
  }
  if (message !== undefined) throw wrongBinaryHalt(logger, message, next);
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  const left = new Set(a);
  const right = new Set(b);
  return left.size === right.size && [...left].every((name) => right.has(name));
}
