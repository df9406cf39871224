// The served chain's genesis app_state as the node-side commands see it: every module's default
// genesis (from the chain app's module manager, so a new module's defaults appear without touching this
// file), the bond-denom switch of `init --default-denom`, and module-by-module validation.
import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import { pino } from "pino";
import { GenesisError } from "../app/module-manager.ts";
import { buildChainApp, type ChainApp } from "../runtime/build-app.ts";
import { currentChain, currentChainIdentity } from "../runtime/current-chain.ts";
import type { Release } from "../runtime/release.ts";

/** The modules' default bond and fee denom (docs/CONTRACT.md §1); a chain's own comes from its identity. */
export const DEFAULT_BOND_DENOM = "stake";

/**
 * The chain app of `release` built but not loaded, over a memory store: its module manager, type
 * registry and keepers, for work on genesis files that must not open the node's database.
 */
export async function offlineChainApp(home: string, chainId = "offline", release?: Release): Promise<ChainApp> {
  return buildChainApp({
    chain: currentChain(),
    home,
    chainId,
    release,
    logger: pino({ level: "silent" }),
    backend: "memory",
    deferLoad: true,
  });
}

/**
 * Every module's default genesis, with `denom` as the bond denom (staking's `bond_denom` and the
 * denoms of gov's minimum deposits), as upstream's `init --default-denom` does.
 *
 * @example const appState = await defaultAppState({ home, denom: "stake" });
 */
export async function defaultAppState(parameters: {
  home: string;
  denom?: string;
  release?: Release;
}): Promise<JsonObject> {
  const chain = await offlineChainApp(parameters.home, "offline", parameters.release);
  const appState = chain.moduleManager.defaultGenesis() as JsonObject;
  return withBondDenom(appState, parameters.denom ?? currentChainIdentity().denom);
}

/** A copy of `appState` where the default bond denom is replaced by `denom` wherever genesis names it. */
export function withBondDenom(appState: JsonObject, denom: string): JsonObject {
  const copy = structuredClone(appState) as JsonObject;
  if (denom === DEFAULT_BOND_DENOM) return copy;
  const staking = objectAt(copy, "staking", "params");
  if (staking !== undefined) staking.bond_denom = denom;
  const gov = objectAt(copy, "gov", "params");
  if (gov !== undefined) {
    for (const key of ["min_deposit", "expedited_min_deposit"]) {
      const coins = gov[key];
      if (Array.isArray(coins)) {
        for (const coin of coins) {
          if (isObject(coin) && coin.denom === DEFAULT_BOND_DENOM) coin.denom = denom;
        }
      }
    }
  }
  return copy;
}

/** The bond denom a genesis app_state uses (staking params), or the default. */
export function bondDenomOf(appState: JsonObject): string {
  const denom = objectAt(appState, "staking", "params")?.bond_denom;
  return typeof denom === "string" && denom !== "" ? denom : DEFAULT_BOND_DENOM;
}

/** Result of {@link validateAppState}: undefined when valid, else the module at fault and why. */
export interface AppStateProblem {
  module: string;
  message: string;
}

/**
 * Runs every module's validateGenesis on `appState` (a module without an entry is checked with its
 * default; an entry for a module this release does not have is a problem too).
 */
export function validateAppState(chain: ChainApp, appState: JsonObject): AppStateProblem | undefined {
  try {
    chain.moduleManager.validateGenesis(appState as Record<string, JsonValue>);
    return undefined;
  } catch (err) {
    if (err instanceof GenesisError) return { module: err.module, message: err.message };
    return { module: "unknown", message: (err as Error).message };
  }
}

/** The object at `path` inside `root`, when every step is an object. */
export function objectAt(root: JsonObject, ...path: string[]): JsonObject | undefined {
  let node: JsonValue | undefined = root;
  for (const key of path) {
    if (!isObject(node)) return undefined;
    node = node[key];
  }
  return isObject(node) ? node : undefined;
}

/** True for a JSON object (not an array, not null). */
export function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
