#!/usr/bin/env node
// Entry point of `chaind`. Expected failures (CliError and other errors that carry an exit code)
// print their message to stderr and exit with their code; anything else is a bug and prints its stack.
// `status` is answered before the command tree is loaded (src/cli/commands/status-command.ts says why).
import { CommanderError } from "commander";
import { commandWord } from "./early-dispatch.ts";

function applyExitOverride(command: import("commander").Command): void {
  command.exitOverride();
  for (const sub of command.commands) applyExitOverride(sub);
}

if (commandWord(process.argv.slice(2)) === "status") {
  const { runStatusCommand } = await import("./commands/status-command.ts");
  process.exitCode = await runStatusCommand(process.argv.slice(2));
} else {
  await runCommandTree();
}

async function runCommandTree(): Promise<void> {
  const { rootCommand } = await import("./root.ts");
  const program = rootCommand();
  applyExitOverride(program);
  try {
    await program.parseAsync(process.argv);
  } catch (err) {
    report(err);
  }
}

function report(err: unknown): void {
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
