// Which chain the CLI commands and node tools of this process serve. The chain's entry point (chain/cmd/chaind.ts
// for the reference chain) sets it once before the command runs; library callers may pass a chain explicitly
// instead. Until set, it is the standard chain: the standard modules and one release, nothing of a chain's own.
import { type ChainDefinition, defineChain } from "./release.ts";

/** The standard module set and one release "v1": what a process serves before a chain is set. */
export const STANDARD_CHAIN: ChainDefinition = defineChain({
  name: "chaind",
  releases: [{ name: "v1", version: "1.0.0" }],
});

let current: ChainDefinition = STANDARD_CHAIN;

/**
 * Makes `chain` the one this process serves (the CLI runner calls it).
 *
 * @example useChain(myChain);
 */
export function useChain(chain: ChainDefinition): void {
  current = chain;
}

/** The chain this process serves (see {@link useChain}). */
export function currentChain(): ChainDefinition {
  return current;
}
