// The reference chain: every release's module wiring in one place. `buildChainApp` gives a loaded
// App (store open, store loader applied when this release's upgrade is due) that either engine —
// the embedded one or CometBFT through the ABCI server — can drive, plus the keepers the node and
// its tools use.
import type { Logger } from "pino";
import { type App, createApp } from "../src/app/base-app.ts";
import { parseDecCoins } from "../src/app/dec-coins.ts";
import type { AppModule } from "../src/app/module.ts";
import { ModuleManager } from "../src/app/module-manager.ts";
import { type StoreOpener, upgradeStoreLoader } from "../src/app/store-loader.ts";
import { homePaths } from "../src/config/home.ts";
import {
  openMultiStore,
  readLastCommittedVersion as readCommittedHeight,
  StoreUpgradeError,
} from "../src/store/index.ts";
import type { PruningOptions, StoreUpgrades } from "../src/store/types.ts";
import { createAnteHandler } from "../src/x/auth/ante.ts";
import { AccountKeeper } from "../src/x/auth/keeper.ts";
import { authModule } from "../src/x/auth/module.ts";
import { BankKeeper } from "../src/x/bank/keeper.ts";
import { bankModule } from "../src/x/bank/module.ts";
import { GovKeeper } from "../src/x/gov/keeper.ts";
import { govModule } from "../src/x/gov/module.ts";
import { genutilModule } from "../src/x/staking/genutil.ts";
import { StakingKeeper } from "../src/x/staking/keeper.ts";
import { stakingModule } from "../src/x/staking/module.ts";
import { UpgradeHaltError } from "../src/x/upgrade/errors.ts";
import { readPlan, UpgradeKeeper } from "../src/x/upgrade/keeper.ts";
import { createUpgradeModule } from "../src/x/upgrade/module.ts";
import { binaryUpdatedBeforeTriggerMessage } from "../src/x/upgrade/pre-block.ts";
import { wireUpgradeModule } from "../src/x/upgrade/wiring.ts";
import { type Release, type ReleaseUpgrade, releaseNamed } from "./releases.ts";

/** Options of buildChainApp. */
export interface ChainAppOptions {
  home: string;
  chainId: string;
  logger: Logger;
  /** The release to run as (default: CHAIND_RELEASE, else v1). */
  release?: Release;
  /** app.toml minimum-gas-prices text, e.g. "0.025stake". */
  minimumGasPrices?: string;
  pruning?: PruningOptions;
  haltHeight?: bigint;
  haltTime?: bigint;
  minRetainBlocks?: bigint;
  /** `--unsafe-skip-upgrades`. */
  skipUpgradeHeights?: bigint[];
  /** "memory" for tests and dry runs that must not touch disk; default LevelDB at data/application.db. */
  backend?: "leveldb" | "memory";
  /** Overrides where the state store lives (the dry run opens a copy). */
  storePath?: string;
  /** Do not load (a caller that wants to inspect before opening). */
  deferLoad?: boolean;
  /**
   * Where the store loader of this release's upgrade comes from: "upgrade-info" (default) reads
   * data/upgrade-info.json as SPEC §2.6 says; "none" installs none; `{ upgradeHeight }` installs it for
   * that height without reading the file (the replay mode, src/replay, decides from the chain's plan).
   */
  storeLoader?: "upgrade-info" | "none" | { upgradeHeight: bigint };
}

/** A wired reference-chain App with its keepers. */
export interface ChainApp {
  app: App;
  release: Release;
  accountKeeper: AccountKeeper;
  bankKeeper: BankKeeper;
  stakingKeeper: StakingKeeper;
  govKeeper: GovKeeper;
  upgradeKeeper: UpgradeKeeper;
  moduleManager: ModuleManager;
  /** Whether this start applies the release's store upgrades (its upgrade is due now). */
  storeUpgradesInstalled: boolean;
}

/** Builds (and, unless deferred, loads) the reference chain's App for one release. */
export async function buildChainApp(options: ChainAppOptions): Promise<ChainApp> {
  const release = options.release ?? releaseNamed(process.env.CHAIND_RELEASE);
  const paths = homePaths(options.home);
  const storePath = options.storePath ?? paths.applicationDb;

  const accountKeeper = new AccountKeeper();
  const bankKeeper = new BankKeeper({ accountKeeper });
  const stakingKeeper = new StakingKeeper({ accountKeeper, bankKeeper });
  const govKeeper = new GovKeeper({ accountKeeper, bankKeeper, stakingKeeper });
  const upgradeKeeper = new UpgradeKeeper({ home: options.home, skipUpgradeHeights: options.skipUpgradeHeights });

  const bank: AppModule = {
    ...bankModule(bankKeeper),
    consensusVersion: release.bank.consensusVersion,
    registerMigrations(registrar) {
      for (const step of release.bank.migrations) {
        registrar.registerMigration("bank", step.from, (ctx) => step.run(ctx, bankKeeper));
      }
    },
  };
  const gov = govModule(govKeeper);
  const genutil = genutilModule({ stakingKeeper });
  const upgrade = createUpgradeModule({ keeper: upgradeKeeper });
  const extras = release.extraModules();
  const modules = [authModule(accountKeeper), bank, stakingModule(stakingKeeper), gov, upgrade, ...extras, genutil];
  const moduleManager = new ModuleManager(modules);
  const names = (...list: string[]) => list.filter((n) => modules.some((m) => m.name === n));
  const withHook = (hook: "preBlock" | "beginBlock" | "endBlock") =>
    modules.filter((m) => typeof m[hook] === "function").map((m) => m.name);
  // The upgrade guard runs before anything else in a block; in EndBlock gov executes passed
  // proposals first, then the upgrade module looks at the (possibly just scheduled) plan, then
  // staking reports the validator set so the engine sees post-upgrade power.
  moduleManager.setOrderPreBlockers(...withHook("preBlock"));
  moduleManager.setOrderBeginBlockers(...withHook("beginBlock"));
  moduleManager.setOrderEndBlockers(...orderFirst(withHook("endBlock"), ["gov", "upgrade", "staking"]));
  moduleManager.setOrderInitGenesis(
    ...names("auth", "bank", "staking", "gov", "upgrade", ...extras.map((m) => m.name), "genutil"),
  );

  const openStore: StoreOpener =
    options.backend === "memory"
      ? (o) =>
          openMultiStore({
            backend: "memory",
            storeNames: o.storeNames,
            upgrades: o.upgrades,
            pruning: options.pruning,
          })
      : (o) =>
          openMultiStore({ path: storePath, storeNames: o.storeNames, upgrades: o.upgrades, pruning: options.pruning });
  const app = createApp({
    chainId: options.chainId,
    moduleManager,
    anteHandler: createAnteHandler({ accountKeeper, bankKeeper }),
    openStore,
    logger: options.logger,
    name: "chaind",
    version: release.version,
    minGasPrices: parseDecCoins(options.minimumGasPrices ?? ""),
    minRetainBlocks: options.minRetainBlocks,
    haltHeight: options.haltHeight,
    haltTime: options.haltTime,
    readCommittedHeight: options.backend === "memory" ? undefined : () => readCommittedHeight(storePath),
  });
  gov.bind(app);
  genutil.bind(app);

  for (const known of release.upgrades) {
    upgradeKeeper.setUpgradeHandler(known.name, (ctx, plan, fromVM) => known.handler(ctx, plan, fromVM, moduleManager));
  }
  const performs = release.upgrades.at(-1);
  const loaderFrom = options.storeLoader ?? "upgrade-info";
  let storeUpgradesInstalled = await wireUpgradeModule(
    app,
    upgradeKeeper,
    performs === undefined || loaderFrom !== "upgrade-info"
      ? undefined
      : { upgradeName: performs.name, storeUpgrades: performs.storeUpgrades },
  );
  if (typeof loaderFrom === "object" && performs !== undefined) {
    app.setStoreLoader(upgradeStoreLoader(loaderFrom.upgradeHeight, performs.storeUpgrades));
    storeUpgradesInstalled = true;
  }
  if (!options.deferLoad) {
    try {
      await app.load();
    } catch (err) {
      if (!(err instanceof StoreUpgradeError) || performs === undefined || storeUpgradesInstalled) throw err;
      throw await explainEarlyStart(err, storePath, moduleManager.storeKeys(), performs, upgradeKeeper, options.logger);
    }
  }
  return {
    app,
    release,
    accountKeeper,
    bankKeeper,
    stakingKeeper,
    govKeeper,
    upgradeKeeper,
    moduleManager,
    storeUpgradesInstalled,
  };
}

/**
 * This release's store layout is newer than the state's and its upgrade's store loader was not
 * installed: the state predates the upgrade. When the chain has this release's plan scheduled but
 * not yet due, that is the early-binary case of SPEC §2.4 and gets its halt (exit 21) here, before
 * any block, since the state cannot be opened with this release's stores. Otherwise the store's
 * own error stands.
 */
async function explainEarlyStart(
  cause: StoreUpgradeError,
  storePath: string,
  storeKeys: string[],
  performs: ReleaseUpgrade,
  upgradeKeeper: UpgradeKeeper,
  logger: Logger,
): Promise<Error> {
  const storeNames = storesBefore(storeKeys, performs.storeUpgrades);
  let plan: Awaited<ReturnType<typeof readPlan>>;
  let next: bigint;
  try {
    const previous = await openMultiStore({ path: storePath, storeNames, createIfMissing: false });
    try {
      next = previous.lastCommit().version + 1n;
      plan = await readPlan((await previous.view()).store(upgradeKeeper.storeKey));
    } finally {
      await previous.close();
    }
  } catch {
    return cause;
  }
  if (
    plan === undefined ||
    plan.name !== performs.name ||
    plan.height <= next ||
    upgradeKeeper.isSkipHeight(plan.height)
  ) {
    return cause;
  }
  const message = binaryUpdatedBeforeTriggerMessage(plan.name);
  logger.child({ module: "x/upgrade" }).error(message);
  return new UpgradeHaltError("wrongBinary", message, next, { cause });
}

/** The stores a state had before `upgrades` were applied to it, given the stores after. */
function storesBefore(after: string[], upgrades: StoreUpgrades): string[] {
  const added = new Set(upgrades.added);
  const renamedTo = new Map(upgrades.renamed.map((r) => [r.newKey, r.oldKey]));
  const before = after.filter((name) => !added.has(name)).map((name) => renamedTo.get(name) ?? name);
  return [...new Set([...before, ...upgrades.deleted])].sort();
}

/** `names` with the listed ones first, in that order, and the rest after, in their order. */
function orderFirst(names: string[], first: string[]): string[] {
  const head = first.filter((n) => names.includes(n));
  return [...head, ...names.filter((n) => !head.includes(n))];
}
