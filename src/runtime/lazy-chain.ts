// A chain whose full definition loads only when a command needs it. Importing a chain's definition pulls
// every module it runs (keepers, generated schemas, the store): most of what `chaind version` would load.
// The entry point hands the CLI runner a light manifest (name, releases' names and versions, default
// release, release variable) and a loader; `version`, `status`, `keys` and `query` run on the manifest
// alone, every other command loads the chain first (src/cli/run-cli.ts).
import { chainIdentity } from "../config/chain-identity.ts";
import type { ChainDefinition, ChainManifest } from "./release.ts";

/** A chain's manifest and the loader of its full definition (see {@link lazyChain}). */
export interface LazyChain {
  /** What the chain is without its modules; must agree with what `load` returns. */
  readonly manifest: ChainManifest;
  /** Imports the full definition (once; later calls return the same promise). */
  load(): Promise<ChainDefinition>;
}

/**
 * Describes a chain by its manifest and a loader of its definition. The loaded definition is checked
 * against the manifest (name, release names and versions, default release, release variable), so the
 * two cannot drift apart unnoticed.
 *
 * @example
 * // my-chain/cmd/mychaind.ts
 * await runCli(lazyChain(myChainManifest, async () => (await import("../app.ts")).myChain));
 */
export function lazyChain(manifest: ChainManifest, load: () => Promise<ChainDefinition>): LazyChain {
  let loading: Promise<ChainDefinition> | undefined;
  return {
    manifest,
    load: () => {
      loading ??= load().then((chain) => agreeing(manifest, chain));
      return loading;
    },
  };
}

/** Whether `chain` is a {@link LazyChain} rather than a full definition. */
export function isLazyChain(chain: ChainDefinition | LazyChain): chain is LazyChain {
  return "manifest" in chain && typeof (chain as LazyChain).load === "function";
}

function agreeing(manifest: ChainManifest, chain: ChainDefinition): ChainDefinition {
  const light = (c: ChainManifest) =>
    JSON.stringify({
      name: c.name,
      releases: c.releases.map((r) => ({ name: r.name, version: r.version, upgradesFrom: r.upgradesFrom ?? [] })),
      defaultRelease: c.defaultRelease ?? null,
      releaseEnv: c.releaseEnv ?? null,
      moduleClis: (c.moduleClis ?? []).map((cli) => cli.name),
      // Both sides' identity, defaults filled in: a chain may declare it in either or both, never two different ones.
      identity: chainIdentity(c),
    });
  if (light(manifest) !== light(chain)) {
    throw new Error(
      `chain "${chain.name}" does not match its manifest: the manifest says ${light(manifest)}, the definition ${light(chain)}`,
    );
  }
  return chain;
}
