#!/usr/bin/env node
// Entry point of `guestbookd`: the whole chaind command tree (init, keys, genesis, start, tx, query, upgrade …)
// serving the guestbook chain.
import { runCli } from "chaind/cli";
import { guestbookChain } from "../app.ts";

await runCli(guestbookChain);
