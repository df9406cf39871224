#!/usr/bin/env node
// Entry point of `chaind`. Everything, including lazy command loading and what an error prints, is in
// main.ts, so this file stays a few lines wherever it lives. Node's on-disk compile cache (in the OS
// temp dir) is turned on before anything else loads: it roughly halves the start-up CPU of every run
// after the first; when the cache cannot be written Node simply runs without it.
import { enableCompileCache } from "node:module";

enableCompileCache?.();
const { runChaind } = await import("./main.ts");
process.exitCode = await runChaind(process.argv.slice(2));
