// Which chain the CLI commands and node tools of this process serve. The chain's entry point (chain/cmd/chaind.ts
// for the reference chain) sets it once before the command runs; library callers may pass a chain explicitly
// instead. Until set, it is the standard chain: the standard modules and one release, nothing of a chain's own.
// A chain may be set lazily (src/runtime/lazy-chain.ts): its manifest answers at once, its definition only
// once loaded.

import { chainIdentity, currentChainIdentity, setCurrentChainIdentity } from "../config/chain-identity.ts";
import { setBinaryName, setDefaultHome } from "../config/home.ts";
import { setBech32Prefixes } from "../crypto/bech32.ts";
import { isLazyChain, type LazyChain } from "./lazy-chain.ts";
import { type ChainDefinition, type ChainManifest, defineChain } from "./release.ts";

/** The standard module set and one release "v1": what a process serves before a chain is set. */
export const STANDARD_CHAIN: ChainDefinition = defineChain({
  name: "chaind",
  releases: [{ name: "v1", version: "1.0.0" }],
});

let current: ChainDefinition = STANDARD_CHAIN;
let pending: LazyChain | undefined;

/**
 * Makes `chain` the one this process serves (the CLI runner calls it). A lazy chain's definition is
 * loaded by {@link loadCurrentChain}.
 *
 * @example useChain(myChain);
 */
export function useChain(chain: ChainDefinition | LazyChain): void {
  // Checked first: a chain whose identity cannot work changes nothing.
  const next = chainIdentity(isLazyChain(chain) ? chain.manifest : chain);
  if (isLazyChain(chain)) pending = chain;
  else {
    current = chain;
    pending = undefined;
  }
  setCurrentChainIdentity(next);
  const identity = next;
  // The chain's binary keeps its own default home (~/.<name>), as each Cosmos SDK app has its DefaultNodeHome,
  // and its own address prefixes everywhere an address is read or written in this process.
  setBinaryName(identity.binary);
  // Only a declared home is pinned: the default ~/.<binary> follows $HOME when it changes later (tests).
  const declared = (isLazyChain(chain) ? chain.manifest : chain).identity?.defaultHome;
  setDefaultHome(declared === undefined || declared === "" ? undefined : identity.defaultHome);
  setBech32Prefixes(identity.bech32);
}

/** The identity of the chain this process serves (kept in src/config/chain-identity.ts, below every reader). */
export { currentChainIdentity };

/** The chain this process serves (see {@link useChain}); a lazy chain must have been loaded first. */
export function currentChain(): ChainDefinition {
  if (pending !== undefined) {
    throw new Error(
      `chain "${pending.manifest.name}" is not loaded yet: call loadCurrentChain() before currentChain()`,
    );
  }
  return current;
}

/** What this process serves without loading its modules: the lazy chain's manifest, else the chain itself. */
export function currentChainManifest(): ChainManifest {
  return pending?.manifest ?? current;
}

/** Loads the lazy chain set by {@link useChain} (if any) and returns the chain this process serves. */
export async function loadCurrentChain(): Promise<ChainDefinition> {
  if (pending !== undefined) {
    current = await pending.load();
    pending = undefined;
  }
  return current;
}
