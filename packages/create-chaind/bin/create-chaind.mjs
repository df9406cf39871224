#!/usr/bin/env node
// `create-chaind <dir> --name <chain> [--prefix <p>] [--denom <d>] [--chain-id <id>] [--binary <b>] [--chaind <spec>]`:
// writes a chain project built on the chaind package into <dir> (which must be missing or empty). The template
// (../template) is a complete small chain: the standard modules plus a `guestbook` module with its Msg, Query,
// genesis, generated protobuf code and CLI, releases v1 and v2 (upgrade "v2"), and a test. Plain JavaScript with
// Node's built-ins only, so `npm create chaind` runs it before anything is installed.
import { parseArgs } from "node:util";
import { main } from "../src/scaffold.mjs";

try {
  const { values, positionals } = parseArgs({
    args: process.argv.slice(2),
    allowPositionals: true,
    options: {
      name: { type: "string" },
      binary: { type: "string" },
      prefix: { type: "string" },
      denom: { type: "string" },
      "chain-id": { type: "string" },
      chaind: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  const written = await main(values, positionals);
  if (written) process.stdout.write(written);
} catch (err) {
  process.stderr.write(`create-chaind: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
}
