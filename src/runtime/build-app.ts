// The app builder the node, its tools and the testing kit share: the standard module set (auth, bank, staking,
// gov, upgrade, genutil) plus a release's own modules, hook orders, the App over LevelDB or memory, and the upgrade
// wiring of x/upgrade (the handlers of the release's upgrade history, store loader from upgrade-info.json, the
// exit-21 guards).
import type { Logger } from "pino";
import { type App, type AppOptions, createApp } from "../app/base-app.ts";
import { parseDecCoins } from "../app/dec-coins.ts";
import { reduceHeapNow } from "../app/idle-collection.ts";
import type { AppModule } from "../app/module.ts";
import { ModuleManager } from "../app/module-manager.ts";
import type { StoreOpener } from "../app/store-loader.ts";
import { homePaths } from "../config/home.ts";
import { openMultiStore, readCommittedStoreNames, readLastCommittedVersion } from "../store/index.ts";
import type { PruningOptions } from "../store/types.ts";
import { createAnteHandler } from "../x/auth/ante.ts";
import { AccountKeeper } from "../x/auth/keeper.ts";
import { authModule } from "../x/auth/module.ts";
import { BankKeeper } from "../x/bank/keeper.ts";
import { bankModule } from "../x/bank/module.ts";
import { GovKeeper } from "../x/gov/keeper.ts";
import { govModule } from "../x/gov/module.ts";
import { genutilModule } from "../x/staking/genutil.ts";
import { StakingKeeper } from "../x/staking/keeper.ts";
import { stakingModule } from "../x/staking/module.ts";
import { consensusAddress } from "../x/staking/validator.ts";
import { installUpgrades, type StoreLoaderSource } from "../x/upgrade/install.ts";
import { UpgradeKeeper } from "../x/upgrade/keeper.ts";
import {
  guardMigratingModules,
  guardMigratingRoutes,
  type MigrationGuardOptions,
} from "../x/upgrade/migration-guard.ts";
import { createUpgradeModule } from "../x/upgrade/module.ts";
import type { BondedValidator, BondedValidatorsReader } from "../x/upgrade/readiness-query.ts";
import { readinessVoteExtensions } from "../x/upgrade/readiness-vote-extension.ts";
import { consensusKeyOfRecord } from "./consensus-keys.ts";
import type { StandardKeepers } from "./keepers.ts";
import { type ChainDefinition, currentRelease, type Release } from "./release.ts";
import { upgradeHistory } from "./release-history.ts";

/** Options of {@link buildChainApp}. */
export interface ChainAppOptions {
  /** The chain; its release comes from `release`, else the chain's release variable, else its default. */
  chain: ChainDefinition;
  home: string;
  chainId: string;
  logger: Logger;
  /** The release to run as. */
  release?: Release;
  /** app.toml minimum-gas-prices text, e.g. "0.025stake". */
  minimumGasPrices?: string;
  pruning?: PruningOptions;
  haltHeight?: bigint;
  haltTime?: bigint;
  minRetainBlocks?: bigint;
  /** The other bounds of the retain height Commit returns (genesis evidence max age, state-sync snapshots). */
  blockRetention?: AppOptions["blockRetention"];
  /** app.toml query-gas-limit (0 or absent = unbounded). */
  queryGasLimit?: bigint;
  /** `--unsafe-skip-upgrades`. */
  skipUpgradeHeights?: bigint[];
  /** "memory" for tests and dry runs that must not touch disk; default LevelDB at data/application.db. */
  backend?: "leveldb" | "memory";
  /**
   * Flush each commit of the state store to stable storage before it resolves (default true). `chaind replay` turns
   * it off and flushes the store's log itself every so many heights (src/replay/level-logs.ts).
   */
  syncCommits?: boolean;
  /** Overrides where the state store lives (the dry run opens a copy). */
  storePath?: string;
  /** Do not load (a caller that wants to inspect before opening). */
  deferLoad?: boolean;
  /**
   * Where the upgrade store loader comes from (installUpgrades' `storeLoader`): default upgrade-info.json; the
   * replay mode (src/replay) passes `"none"` or the upgrade and height it read from the chain.
   */
  storeLoader?: StoreLoaderSource;
  /**
   * Upgrades this binary carries besides the release's own (the replay mode passes the upgrades entering the later
   * releases of its line): the node signals readiness for them in its vote extensions.
   */
  carriedUpgrades?: readonly string[];
}

/** A wired App of one release with its keepers. */
export interface ChainApp extends StandardKeepers {
  app: App;
  chain: ChainDefinition;
  release: Release;
  moduleManager: ModuleManager;
  /** The bonded set as the upgrade module's readiness reads it (the app telemetry's ready fraction reads it too). */
  bondedValidators: BondedValidatorsReader;
  /** Whether this start applies the store upgrades of an upgrade (upgrade-info.json names it and it is due now). */
  storeUpgradesInstalled: boolean;
}

/**
 * Builds (and, unless deferred, loads) the App of one release of `chain`. Throws an UpgradeHaltError (exit 21)
 * when the binary does not fit the state (a downgrade, or an upgrade binary started before its height).
 *
 * @example
 * const built = await buildChainApp({ chain: myChain, home, chainId: "my-1", logger });
 * built.app; // ready for the embedded engine or the ABCI server
 */
export async function buildChainApp(options: ChainAppOptions): Promise<ChainApp> {
  const { chain } = options;
  const release = options.release ?? currentRelease(chain);
  const paths = homePaths(options.home);
  const storePath = options.storePath ?? paths.applicationDb;

  const accountKeeper = new AccountKeeper();
  const bankKeeper = new BankKeeper({ accountKeeper });
  const stakingKeeper = new StakingKeeper({ accountKeeper, bankKeeper });
  const govKeeper = new GovKeeper({ accountKeeper, bankKeeper, stakingKeeper });
  const upgradeKeeper = new UpgradeKeeper({ home: options.home, skipUpgradeHeights: options.skipUpgradeHeights });
  const keepers: StandardKeepers = { accountKeeper, bankKeeper, stakingKeeper, govKeeper, upgradeKeeper };
  const bondedValidators = bondedValidatorsOf(stakingKeeper);

  const gov = govModule(govKeeper);
  const genutil = genutilModule({ stakingKeeper });
  const standard: AppModule[] = [
    authModule(accountKeeper),
    bankModule(bankKeeper),
    stakingModule(stakingKeeper),
    gov,
    createUpgradeModule({ keeper: upgradeKeeper, bondedValidators }),
  ];
  const own = release.modules?.(keepers) ?? [];
  const replaced = new Set(own.map((m) => m.name));
  if (replaced.has("gov") || replaced.has("genutil")) {
    throw new Error(`release "${release.name}" replaces gov or genutil, which the builder binds to the App itself`);
  }
  const extras = own.filter((m) => !standard.some((s) => s.name === m.name));
  const modules = [...standard.map((s) => own.find((m) => m.name === s.name) ?? s), ...extras, genutil];
  const moduleManager = new ModuleManager(modules);
  const withHook = (hook: "preBlock" | "beginBlock" | "endBlock") =>
    modules.filter((m) => typeof m[hook] === "function").map((m) => m.name);
  // The upgrade guard runs before anything else in a block; in EndBlock gov executes passed proposals first, then
  // the upgrade module looks at the (possibly just scheduled) plan, then staking reports the validator set so the
  // engine sees post-upgrade power.
  moduleManager.setOrderPreBlockers(...orderFirst(withHook("preBlock"), ["upgrade"]));
  moduleManager.setOrderBeginBlockers(...withHook("beginBlock"));
  moduleManager.setOrderEndBlockers(...orderFirst(withHook("endBlock"), ["gov", "upgrade", "staking"]));
  moduleManager.setOrderInitGenesis(...modules.map((m) => m.name));

  const memory = options.backend === "memory";
  const openStore: StoreOpener = memory
    ? (o) =>
        openMultiStore({ backend: "memory", storeNames: o.storeNames, upgrades: o.upgrades, pruning: options.pruning })
    : (o) =>
        openMultiStore({
          path: storePath,
          storeNames: o.storeNames,
          upgrades: o.upgrades,
          pruning: options.pruning,
          sync: options.syncCommits,
          // A block that rewrites a large store: the garbage it left goes before its stage (src/store/README.md,
          // "A large version's memory", Step C; the one handler's 1M-record migration peaks at 1.09 GiB, 1.46 before).
          beforeEarlyStage: reduceHeapNow,
        });
  const migrationGuard: MigrationGuardOptions = {
    storeKey: upgradeKeeper.storeKey,
    moduleOfMsg: (typeUrl) => moduleManager.moduleOfMsg(typeUrl),
    steppedMigrationsOf: (upgrade) => upgradeKeeper.steppedMigrationsOf(upgrade),
  };
  const app = createApp({
    chainId: options.chainId,
    moduleManager,
    // A migrating module's txs are refused before any fee is taken (x/upgrade stepped migrations).
    anteHandler: guardMigratingModules(createAnteHandler({ accountKeeper, bankKeeper }), migrationGuard),
    openStore,
    logger: options.logger,
    name: chain.name,
    version: release.version,
    minGasPrices: parseDecCoins(options.minimumGasPrices ?? ""),
    minRetainBlocks: options.minRetainBlocks,
    blockRetention: options.blockRetention,
    haltHeight: options.haltHeight,
    haltTime: options.haltTime,
    queryGasLimit: options.queryGasLimit,
    readCommittedHeight: memory ? undefined : () => readLastCommittedVersion(storePath),
    voteExtensions: readinessVoteExtensions(upgradeKeeper, {
      carriedUpgrades: options.carriedUpgrades,
      bondedValidators,
      consensusKeyOf: async (ctx, address) => {
        const validator = await stakingKeeper.getValidatorByConsAddr(ctx, address);
        return validator === undefined ? undefined : consensusKeyOfRecord(validator);
      },
      onError: (error) =>
        options.logger.warn(
          { err: error },
          "could not read the upgrade plan for the readiness signal; signalling none",
        ),
    }),
  });
  // A passed proposal's message to a migrating module is refused like a tx's (the proposal fails with the reason).
  gov.bind({ msgRouter: guardMigratingRoutes(app.msgRouter, migrationGuard), typeRegistry: app.typeRegistry });
  genutil.bind(app);

  // The release's own upgrade and those of the releases before it on its line: the guards need the last applied one.
  const installed = await installUpgrades(app, upgradeKeeper, upgradeHistory(chain, release), {
    migrator: moduleManager,
    storeNames: moduleManager.storeKeys(),
    logger: options.logger,
    storeLoader: options.storeLoader,
    committedState:
      memory || options.deferLoad
        ? undefined
        : {
            storeNames: () => readCommittedStoreNames(storePath),
            open: (storeNames) => openMultiStore({ path: storePath, storeNames, createIfMissing: false }),
          },
  });
  if (!options.deferLoad) await app.load();
  return {
    app,
    chain,
    release,
    ...keepers,
    moduleManager,
    bondedValidators,
    storeUpgradesInstalled: installed.storeLoaderOf !== undefined,
  };
}

/** `names` with the listed ones first, in that order, and the rest after, in their order. */
function orderFirst(names: string[], first: string[]): string[] {
  const head = first.filter((n) => names.includes(n));
  return [...head, ...names.filter((n) => !head.includes(n))];
}

/** The bonded set (staking's last validator powers) as the upgrade module's readiness reads it. */
function bondedValidatorsOf(stakingKeeper: StakingKeeper): BondedValidatorsReader {
  return async (ctx) => {
    const out: BondedValidator[] = [];
    for (const { operator, power } of await stakingKeeper.getLastValidatorPowers(ctx)) {
      const validator = await stakingKeeper.getValidator(ctx, operator);
      if (validator === undefined) continue;
      out.push({ operatorAddress: validator.operatorAddress, consensusAddress: consensusAddress(validator), power });
    }
    return out;
  };
}
