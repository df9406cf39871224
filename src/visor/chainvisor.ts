#!/usr/bin/env node
// chainvisor: the upgrade sidecar of chaind. It shares no code with the node, so it keeps working when the node is
// broken. See README.md in this folder for the operator's guide.
import { main } from "./cli.ts";

process.exit(await main({ args: process.argv.slice(2), env: process.env }));
