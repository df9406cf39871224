// The reference chain's release line for the replay mode (src/replay): a release carries every release before it
// in this tree (v2: v1, then v2), each entered by the last upgrade in its `upgrades` list. `buildReplayChainApp`
// is `buildChainApp` for replay mode: the App it gives switches releases in process at each known upgrade.
import type { App } from "../src/app/base-app.ts";
import { homePaths } from "../src/config/home.ts";
import type { LineRelease, ReleaseLine } from "../src/replay/release-line.ts";
import { SwitchingApp } from "../src/replay/switching-app.ts";
import { readUpgradeRecords } from "../src/replay/upgrade-records.ts";
import { buildChainApp, type ChainApp, type ChainAppOptions } from "./chain-app.ts";
import { RELEASE_NAMES, type Release, releaseNamed } from "./releases.ts";

/** The releases `release` carries, oldest first: every release of this tree up to and including it. */
export function releasesUpTo(release: Release): Release[] {
  const index = RELEASE_NAMES.indexOf(release.name);
  // The release itself as given (a test or a release author may pass a modified one), its predecessors by name.
  return [...RELEASE_NAMES.slice(0, index).map((name) => releaseNamed(name)), release];
}

/** The reference chain's line for `options.release` (default CHAIND_RELEASE, else v1), building Apps with `options`. */
export function chainReleaseLine(
  options: ChainAppOptions,
  onOpen: (chain: ChainApp) => void = () => {},
): ReleaseLine<App> {
  const top = options.release ?? releaseNamed(process.env.CHAIND_RELEASE);
  const skip = new Set(options.skipUpgradeHeights ?? []);
  const releases: LineRelease<App>[] = releasesUpTo(top).map((release, index) => ({
    name: release.name,
    enteredBy: index === 0 ? undefined : release.upgrades.at(-1)?.name,
    async storeNames() {
      const chain = await buildChainApp({ ...options, release, deferLoad: true, storeLoader: "none" });
      return chain.moduleManager.storeKeys();
    },
    async open({ upgradeHeight }) {
      const chain = await buildChainApp({
        ...options,
        release,
        deferLoad: false,
        storeLoader: upgradeHeight === undefined ? "none" : { upgradeHeight },
      });
      onOpen(chain);
      return chain.app;
    },
  }));
  return { releases, upgradeStoreKey: "upgrade", isSkipHeight: (height) => skip.has(height) };
}

/** A replay-mode chain: the ChainApp of the release running now (its `app` is the switching App) and the switcher. */
export interface ReplayChainApp {
  chain: ChainApp;
  switching: SwitchingApp<App>;
}

/**
 * `buildChainApp` in replay mode: opens the App of the release active on chain (read from the state's upgrade
 * records, never from the binary) and returns a ChainApp whose `app` switches releases in process and whose
 * other members (keepers, release, ...) are those of the release running now.
 */
export async function buildReplayChainApp(options: ChainAppOptions): Promise<ReplayChainApp> {
  let latest: ChainApp | undefined;
  const switching = await openSwitchingChainApp(options, (chain) => {
    latest = chain;
  });
  const app = switching.asApp();
  const current = (): ChainApp => latest as ChainApp;
  const chain: ChainApp = {
    app,
    get release() {
      return current().release;
    },
    get accountKeeper() {
      return current().accountKeeper;
    },
    get bankKeeper() {
      return current().bankKeeper;
    },
    get stakingKeeper() {
      return current().stakingKeeper;
    },
    get govKeeper() {
      return current().govKeeper;
    },
    get upgradeKeeper() {
      return current().upgradeKeeper;
    },
    get moduleManager() {
      return current().moduleManager;
    },
    get storeUpgradesInstalled() {
      return current().storeUpgradesInstalled;
    },
  };
  return { chain, switching };
}

/**
 * The switching App of the reference chain for `options.home`: the release active on chain is read from the
 * state's upgrade records (each release's store set is tried, newest first) and opened.
 */
export async function openSwitchingChainApp(
  options: ChainAppOptions,
  onOpen: (chain: ChainApp) => void = () => {},
): Promise<SwitchingApp<App>> {
  if (options.backend === "memory") throw new Error("the replay mode needs the state on disk (backend leveldb)");
  const line = chainReleaseLine(options, onOpen);
  const storePath = options.storePath ?? homePaths(options.home).applicationDb;
  const storeSets = await Promise.all([...line.releases].reverse().map((r) => r.storeNames()));
  const records = await readUpgradeRecords(storePath, storeSets, line.upgradeStoreKey);
  return SwitchingApp.open({ line, records, logger: options.logger });
}
