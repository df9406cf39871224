#!/usr/bin/env node
// Entry point of `chaind`, the reference chain's binary (like simapp's simd main.go): hands the chain to the
// framework's CLI runner, which prints user errors as one line and exits with their status.
import { runCli } from "chaind/cli";
import { referenceChain } from "../app.ts";

await runCli(referenceChain);
