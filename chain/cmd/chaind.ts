#!/usr/bin/env node
// Entry point of `chaind`, the reference chain's binary (like simapp's simd main.go): hands the chain to the
// framework's CLI runner, which loads only the command that runs and prints user errors as one line. The chain
// goes as its light manifest plus a loader of app.ts, which only the commands using its modules call. Node's
// on-disk compile cache goes on before anything else loads (hence the dynamic imports): it roughly halves
// the start-up CPU of every run after the first; when the cache cannot be written Node runs without it.
import { enableCompileCache } from "node:module";

enableCompileCache?.();
const { lazyChain, runCli } = await import("chaind/cli");
const { referenceManifest } = await import("../manifest.ts");
await runCli(lazyChain(referenceManifest, async () => (await import("../app.ts")).referenceChain));
