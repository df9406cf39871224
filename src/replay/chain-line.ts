// The release line of any chain built with the library, derived from its ChainDefinition: the binary's release,
// then its predecessor (`upgradesFrom`), and so on back to a release that runs from genesis, each entered by its own
// `upgrade` (src/runtime/release-history.ts derives the steps once: for this line and for the handlers a release
// keeps).
// Every chain thereby gets the replay mode for free: `chaind start --replay-releases` (buildReplayChainApp) and
// `chaind replay` (openChainSwitchingApp) work on the reference chain, on examples/guestbook and on a user's chain.
import type { App } from "../app/base-app.ts";
import { homePaths } from "../config/home.ts";
import { buildChainApp, type ChainApp, type ChainAppOptions } from "../runtime/build-app.ts";
import { type ChainDefinition, currentRelease, type Release } from "../runtime/release.ts";
import { ReleaseLineError, releaseSteps } from "../runtime/release-history.ts";
import type { LineRelease, ReleaseLine } from "./release-line.ts";
import { SwitchingApp } from "./switching-app.ts";
import { readUpgradeRecords } from "./upgrade-records.ts";

/** One release of a chain's line and the name of the upgrade entering it (absent for the one run from genesis). */
export interface ChainLineStep {
  release: Release;
  enteredBy?: string;
}

/**
 * The releases `top` carries, oldest first, as the runtime derives them (`releaseSteps`, the same steps whose
 * upgrades buildChainApp registers): each later release is entered by its own `upgrade`. The first release runs
 * from genesis here even when it names an upgrade (one entering it from a release the chain does not carry).
 *
 * @example
 * chainLineSteps(referenceChain, v2); // [{ release: v1 }, { release: v2, enteredBy: "v2" }]
 */
export function chainLineSteps(chain: ChainDefinition, top: Release): ChainLineStep[] {
  return releaseSteps(chain, top).map(({ release, enteredBy }, index) =>
    index === 0 ? { release } : { release, enteredBy: enteredBy?.name },
  );
}

/**
 * The release line of `options.chain` for the binary's release (`options.release`, else the chain's release
 * variable, else its default): each release opens its App with `buildChainApp(options)`, never reading
 * upgrade-info.json — with the entering upgrade's store loader for the switch height when the line switches.
 * `onOpen` sees each ChainApp opened.
 */
export function chainReleaseLine(
  options: ChainAppOptions,
  onOpen: (chain: ChainApp) => void = () => {},
): ReleaseLine<App> {
  const top = options.release ?? currentRelease(options.chain);
  const skip = new Set(options.skipUpgradeHeights ?? []);
  const steps = chainLineSteps(options.chain, top);
  // Every release of the line may signal readiness for the upgrades entering the later ones: this binary runs them.
  const carriedUpgrades = steps.flatMap((step) => (step.enteredBy === undefined ? [] : [step.enteredBy]));
  const releases: LineRelease<App>[] = steps.map(({ release, enteredBy }) => ({
    name: release.name,
    enteredBy,
    async open({ upgradeHeight }) {
      const chain = await buildChainApp({
        ...options,
        release,
        deferLoad: false,
        carriedUpgrades,
        storeLoader:
          upgradeHeight === undefined || enteredBy === undefined
            ? "none"
            : { upgrade: enteredBy, height: upgradeHeight },
      });
      onOpen(chain);
      return chain.app;
    },
  }));
  return { releases, upgradeStoreKey: "upgrade", isSkipHeight: (height) => skip.has(height) };
}

/**
 * The switching App of `options.chain` on `options.home`: the release active on chain is read from the state's
 * upgrade records (the last completed upgrade; never from the binary) and opened. `onOpen` sees each ChainApp
 * opened, the first one included.
 *
 * @example
 * const switching = await openChainSwitchingApp({ chain: myChain, home, chainId, logger });
 * switching.release.name; // the release whose rules run now
 */
export async function openChainSwitchingApp(
  options: ChainAppOptions,
  onOpen: (chain: ChainApp) => void = () => {},
): Promise<SwitchingApp<App>> {
  if (options.backend === "memory") {
    throw new ReleaseLineError("the replay mode needs the state on disk (backend leveldb), not a memory store");
  }
  const line = chainReleaseLine(options, onOpen);
  const storePath = options.storePath ?? homePaths(options.home).applicationDb;
  const records = await readUpgradeRecords(storePath, line.upgradeStoreKey);
  return SwitchingApp.open({ line, records, logger: options.logger });
}

/** A replay-mode ChainApp (its `app` switches releases) with the switcher and the binary's own release. */
export interface ReplayChainApp {
  /** `app` is the switching App; every other member is that of the release running now, read at each access. */
  chain: ChainApp;
  switching: SwitchingApp<App>;
  /** The release this binary was built as (the top of its line), whatever release runs now. */
  binaryRelease: Release;
}

/**
 * `buildChainApp` in replay mode: opens the App of the release active on chain and returns a ChainApp whose `app`
 * switches releases in process at each upgrade of the line, and whose keepers, release and module manager follow
 * the release running now.
 *
 * @example
 * const { chain } = await buildReplayChainApp({ chain: myChain, home, chainId, logger });
 * await startEmbeddedNode({ home, app: chain.app, ... });
 */
export async function buildReplayChainApp(options: ChainAppOptions): Promise<ReplayChainApp> {
  let latest: ChainApp | undefined;
  const switching = await openChainSwitchingApp(options, (opened) => {
    latest = opened;
  });
  const app = switching.asApp();
  const current = latest as ChainApp;
  // A Proxy rather than a copy: after a switch, `chain.release`, the keepers, … are those of the new release.
  const chain = new Proxy(current, {
    get: (_target, prop) => (prop === "app" ? app : Reflect.get(latest as ChainApp, prop)),
    has: (_target, prop) => prop in (latest as ChainApp),
  });
  return { chain, switching, binaryRelease: options.release ?? currentRelease(options.chain) };
}
