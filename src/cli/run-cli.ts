// The CLI runner a chain's entry point hands its chain to (chain/cmd/chaind.ts for the reference chain, like
// simapp's simd main.go). Expected failures (CliError and other errors that carry an exit code) print their message
// to stderr and exit with their code; anything else is a bug and prints its stack.
//
// `status` is answered before the command tree is loaded (src/cli/commands/status-command.ts says why).
import { type Command, CommanderError } from "commander";
import { useChain } from "../runtime/current-chain.ts";
import type { ChainDefinition } from "../runtime/release.ts";
import { commandWord } from "./early-dispatch.ts";

function applyExitOverride(command: Command): void {
  command.exitOverride();
  for (const sub of command.commands) applyExitOverride(sub);
}

/**
 * Runs the `chaind` command tree for `chain` on `argv` (process.argv shape) and sets `process.exitCode`.
 *
 * @example
 * // my-chain/cmd/mychaind.ts
 * import { runCli } from "chaind/cli";
 * import { myChain } from "../app.ts";
 * await runCli(myChain);
 */
export async function runCli(chain: ChainDefinition, argv: string[] = process.argv): Promise<void> {
  if (commandWord(argv.slice(2)) === "status") {
    const { runStatusCommand } = await import("./commands/status-command.ts");
    process.exitCode = await runStatusCommand(argv.slice(2));
    return;
  }
  useChain(chain);
  const { rootCommand } = await import("./root.ts");
  const program = rootCommand();
  applyExitOverride(program);
  try {
    await program.parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      // Commander already printed help or the usage error.
      process.exitCode = err.exitCode;
    } else {
      const error = err as Error & { exitCode?: unknown };
      const exitCode = typeof error.exitCode === "number" ? error.exitCode : 1;
      // Errors meant for the user carry an exit code or are one of the CLI-facing error classes
      // (every module's *CliError, config and RPC errors); anything else is a bug worth its stack.
      const known =
        typeof error.exitCode === "number" ||
        /CliError$/.test(error.name) ||
        ["ConfigError", "RpcError", "QueryError", "KeyringError"].includes(error.name);
      process.stderr.write(`Error: ${known ? error.message : (error.stack ?? String(error))}\n`);
      process.exitCode = exitCode;
    }
  }
}
