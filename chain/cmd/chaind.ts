#!/usr/bin/env node
// Entry point of `chaind`, the reference chain's binary (like simapp's simd main.go): hands the chain to the
// framework's CLI runner, which loads only the command that runs and prints user errors as one line. Node's
// on-disk compile cache goes on before anything else loads (hence the dynamic imports): it roughly halves
// the start-up CPU of every run after the first; when the cache cannot be written Node runs without it.
import { enableCompileCache } from "node:module";

enableCompileCache?.();
const { runCli } = await import("chaind/cli");
const { referenceChain } = await import("../app.ts");
await runCli(referenceChain);
