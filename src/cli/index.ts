// Public entry point of the CLI (`chaind/cli`): the runner a chain's binary calls with its chain definition,
// or with a light manifest and a loader of the definition (`lazyChain`) so light commands start fast.

export type { ChainIdentityOptions } from "../config/chain-identity.ts";
export { type LazyChain, lazyChain } from "../runtime/lazy-chain.ts";
export type { ChainManifest } from "../runtime/release.ts";
export { runCli } from "./run-cli.ts";
