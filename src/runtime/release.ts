// What a chain is, for the node and the CLI: its releases, each the set of modules it runs and the one upgrade that
// enters it (the handlers of the earlier ones come from its line, release-history.ts). A chain developer writes one
// ChainDefinition (the reference chain's is chain/app.ts) and hands it to the CLI runner; the framework builds the
// App of the chosen release (build-app.ts).
import type { AppModule } from "../app/module.ts";
import type { ModuleCliRef } from "../app/module-cli.ts";
import type { ChainIdentityOptions } from "../config/chain-identity.ts";
import { reportUncaughtUserErrors } from "../errors/uncaught-user-error.ts";
import { UserError } from "../errors/user-error.ts";
import type { Upgrade } from "../x/upgrade/install.ts";
import type { StandardKeepers } from "./keepers.ts";

/** One release of a chain: a binary's module set and the upgrade that takes a chain to it. */
export interface Release {
  /** The release name (what CHAIND_RELEASE or the chain's release variable selects), e.g. "v2". */
  name: string;
  /** Software version reported by ABCI Info and `version`. */
  version: string;
  /**
   * The release(s) this one takes a chain over from, oldest upgrade path first (v2: ["v1"]); the last one is this
   * release's predecessor on its line. The line gives the upgrade handlers the release keeps (`upgradeHistory`) and
   * the releases a replay (one process switching rules at each upgrade height) walks back to genesis.
   */
  upgradesFrom?: string[];
  /**
   * The release's modules besides the standard set (auth, bank, staking, gov, upgrade, genutil), or a standard one
   * replaced (same name): e.g. bank at consensus version 2 with its migration (see `withMigrations`).
   */
  modules?(keepers: StandardKeepers): AppModule[];
  /**
   * The upgrade that takes a chain from the predecessor (`upgradesFrom`) to this release: its plan name, store
   * changes, handler and checks. Only this release's own: the handlers of the earlier upgrades, which the release
   * must keep (a release missing the one of an applied upgrade halts with `wrong app version …`, exit 21), are
   * derived from the releases before it (`upgradeHistory`, release-history.ts). Required when `upgradesFrom` is
   * set; on a release without predecessor it is the upgrade that entered it from a release this chain does not carry.
   */
  upgrade?: Upgrade;
}

/** A release as `version` and release selection see it: its name and version, nothing that loads its modules. */
export interface ReleaseManifest {
  /** The release name, e.g. "v2". */
  name: string;
  /** Software version reported by ABCI Info and `version`. */
  version: string;
  /**
   * The release(s) this one takes a chain over from, as the full definition's `upgradesFrom` (a lazy chain's loader
   * checks they agree): `version --long -o json` lists the release line from them without loading any module.
   */
  upgradesFrom?: string[];
}

/**
 * A chain described without its modules: what `chaind version` and release selection need, cheap to load
 * (a chain's entry point hands it to the CLI runner with a loader of the full definition, src/runtime/lazy-chain.ts).
 */
export interface ChainManifest {
  /** The binary and app name ("chaind"), reported by ABCI Info and `version`. */
  name: string;
  /** Every release this tree can run as. */
  releases: readonly ReleaseManifest[];
  /** The release run when the release variable is unset. Default: the first. */
  defaultRelease?: string;
  /** The environment variable naming the release (default `CHAIND_RELEASE`). */
  releaseEnv?: string;
  /**
   * The CLIs of the chain's own modules (src/app/module-cli.ts): their `query`/`tx` subcommands and the types the
   * CLI's registry learns. The standard modules' come with the framework; one here with a standard module's name
   * replaces it. Light (each loads its module's CLI only when its command runs), so it belongs in the manifest.
   */
  moduleClis?: readonly ModuleCliRef[];
  /**
   * What sets the chain apart: bech32 prefixes, denom, dev chain id, binary name, default home
   * (src/config/chain-identity.ts; the reference chain's values where left out).
   */
  identity?: ChainIdentityOptions;
}

/** A chain: its binary name, its releases and how a process picks one. */
export interface ChainDefinition extends ChainManifest {
  /** Every release this tree can run as. */
  releases: Release[];
}

/** The environment variable that selects a release when a chain names none. */
export const DEFAULT_RELEASE_ENV = "CHAIND_RELEASE";

/** The release of `chain` named `name` (unset or empty: the chain's default); an unknown name lists the known ones. */
export function releaseNamed<C extends ChainManifest>(chain: C, name: string | undefined): C["releases"][number] {
  const fallback = chain.defaultRelease ?? chain.releases[0]?.name;
  const chosen = name === undefined || name === "" ? fallback : name;
  const release = chain.releases.find((r) => r.name === chosen);
  if (release === undefined) {
    const env = chain.releaseEnv ?? DEFAULT_RELEASE_ENV;
    throw new ReleaseSelectionError(
      `unknown release "${chosen}" (${env}): expected one of ${chain.releases.map((r) => r.name).join(", ")}`,
    );
  }
  return release;
}

/** The release this process runs as: the chain's release variable, else its default. */
export function currentRelease<C extends ChainManifest>(
  chain: C,
  env: NodeJS.ProcessEnv = process.env,
): C["releases"][number] {
  return releaseNamed(chain, env[chain.releaseEnv ?? DEFAULT_RELEASE_ENV]);
}

/** A release name the chain does not have; carries exit status 1 and prints as one line. */
export class ReleaseSelectionError extends UserError {
  constructor(message: string) {
    super(message);
    this.name = "ReleaseSelectionError";
  }
}

/**
 * A chain definition that cannot work (`defineChain`): the chain developer's own mistake, so it prints as one line,
 * even when it is thrown while the chain's binary imports its definition, before the CLI runner runs.
 */
export class ChainDefinitionError extends UserError {
  constructor(message: string) {
    super(message);
    this.name = "ChainDefinitionError";
  }
}

// A non-lazy chain's binary imports its definition before it calls runCli, so nothing catches this error yet: the
// process-wide report makes it one line rather than Node's stack (a test or caller that catches it is unaffected).
function definitionError(message: string): ChainDefinitionError {
  reportUncaughtUserErrors();
  return new ChainDefinitionError(message);
}

/**
 * Checks a chain definition: at least one release, distinct release names, a default that exists, predecessors
 * (`upgradesFrom`) that name releases of the chain, an `upgrade` on every release that has a predecessor, and
 * distinct upgrade names. Returns the chain for chaining.
 *
 * @example export const myChain = defineChain({ name: "mychaind", releases: [v1, v2] });
 */
export function defineChain(chain: ChainDefinition): ChainDefinition {
  if (chain.releases.length === 0) throw definitionError(`chain "${chain.name}" has no release: expected at least one`);
  const names = new Set<string>();
  for (const release of chain.releases) {
    if (names.has(release.name))
      throw definitionError(`chain "${chain.name}": release "${release.name}" is listed twice`);
    names.add(release.name);
  }
  const upgrades = new Map<string, string>();
  for (const release of chain.releases) {
    for (const from of release.upgradesFrom ?? []) {
      if (!names.has(from)) {
        throw definitionError(
          `chain "${chain.name}": release "${release.name}" upgrades from unknown release "${from}"`,
        );
      }
    }
    if ((release.upgradesFrom ?? []).length > 0 && release.upgrade === undefined) {
      throw definitionError(
        `chain "${chain.name}": release "${release.name}" upgrades from "${release.upgradesFrom?.at(-1)}" but names no \`upgrade\`: expected the upgrade that enters it`,
      );
    }
    const upgrade = release.upgrade?.name;
    if (upgrade === undefined) continue;
    const other = upgrades.get(upgrade);
    if (other !== undefined) {
      throw definitionError(
        `chain "${chain.name}": releases "${other}" and "${release.name}" both name upgrade "${upgrade}": a release names only the upgrade it adds`,
      );
    }
    upgrades.set(upgrade, release.name);
  }
  if (chain.defaultRelease !== undefined && !names.has(chain.defaultRelease)) {
    throw definitionError(
      `chain "${chain.name}": default release "${chain.defaultRelease}" is not one of its releases`,
    );
  }
  return chain;
}
