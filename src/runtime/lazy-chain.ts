// A chain whose full definition loads only when a command needs it. Importing a chain's definition pulls
// every module it runs (keepers, generated schemas, the store): most of what `chaind version` would load.
// The entry point hands the CLI runner a light manifest (name, releases' names and versions, default
// release, release variable) and a loader; `version`, `status`, `keys` and `query` run on the manifest
// alone, every other command loads the chain first (src/cli/run-cli.ts).
import { chainIdentity } from "../config/chain-identity.ts";
import { UserError } from "../errors/user-error.ts";
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

/**
 * A lazy chain whose loaded definition disagrees with its manifest: the chain developer's own mistake, so the CLI
 * prints it as one line (src/errors/user-error.ts) naming each field that differs, not as a crash.
 */
export class ChainManifestMismatchError extends UserError {
  constructor(message: string) {
    super(message);
    this.name = "ChainManifestMismatchError";
  }
}

function agreeing(manifest: ChainManifest, chain: ChainDefinition): ChainDefinition {
  const light = (c: ChainManifest): Record<string, unknown> => ({
    name: c.name,
    releases: c.releases.map((r) => ({ name: r.name, version: r.version, upgradesFrom: r.upgradesFrom ?? [] })),
    defaultRelease: c.defaultRelease ?? null,
    releaseEnv: c.releaseEnv ?? null,
    moduleClis: (c.moduleClis ?? []).map((cli) => cli.name),
    // Both sides' identity, defaults filled in: a chain may declare it in either or both, never two different ones.
    identity: chainIdentity(c),
  });
  const declared = light(manifest);
  const defined = light(chain);
  // Only the fields that differ: the whole of both is too long to spot the one difference in.
  const differences = Object.keys(declared)
    .filter((key) => JSON.stringify(declared[key]) !== JSON.stringify(defined[key]))
    .map(
      (key) =>
        `${key}: the manifest says ${JSON.stringify(declared[key])}, the definition ${JSON.stringify(defined[key])}`,
    );
  if (differences.length > 0) {
    throw new ChainManifestMismatchError(
      `chain "${chain.name}" does not match its manifest (declare the same in both): ${differences.join("; ")}`,
    );
  }
  return chain;
}
