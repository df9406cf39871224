// A user-facing error nobody catches, reported as the CLI reports one: `Error: <message>` on one line and its exit
// status, no stack (docs/CONTRACT.md §12). For mistakes found before the CLI runner runs: a chain's binary imports
// its definition first, and a non-lazy chain's defineChain throws at that import, where no runner's catch is around.
import { isUserFacing, userMessage } from "./user-error.ts";

let installed = false;

/**
 * From now on, an uncaught user-facing error ends the process with one line on stderr and its exit status; any
 * other uncaught error prints as Node prints it (its stack) with status 1. Stands aside when another handler is
 * installed (node's test runner, an application's own), which then decides. Installs once per process.
 * @example reportUncaughtUserErrors(); throw new ChainDefinitionError("…"); // at import: `Error: …`, exit 1
 */
export function reportUncaughtUserErrors(): void {
  if (installed) return;
  installed = true;
  process.on("uncaughtException", (err) => {
    if (process.listenerCount("uncaughtException") > 1) return;
    if (isUserFacing(err)) {
      process.stderr.write(`Error: ${userMessage(err)}\n`);
      const exitCode = (err as { exitCode?: unknown }).exitCode;
      process.exit(typeof exitCode === "number" && exitCode !== 0 ? exitCode : 1);
    }
    // node:util only here, not an ES import: every command's start loads this file, and node:util's ES facade reads
    // each of its lazy exports (parseArgs, MIMEType, …), loading their modules for nothing.
    process.stderr.write(`${process.getBuiltinModule("node:util").inspect(err)}\n`);
    process.exit(1);
  });
}
