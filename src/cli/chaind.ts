#!/usr/bin/env node
// Entry point of `chaind`: everything, including what an error prints, happens in main.ts.
import { runChaind } from "./main.ts";

process.exitCode = await runChaind(process.argv.slice(2));
