#!/usr/bin/env node
// Entry point of `__BINARY__`: the whole chaind command tree (init, keys, genesis, dev, start, tx, query, upgrade,
// release …) serving this chain.
import { runCli } from "chaind/cli";
import { chain } from "../app.ts";

await runCli(chain);
