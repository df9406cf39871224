// Runs one `chaind` invocation: builds the command tree, parses, and turns an error into what the
// user sees and the exit status (src/cli/report-error.ts). The entry file only calls this.
import type { Command } from "commander";
import { reportError } from "./report-error.ts";
import { type CliIo, rootCommand } from "./root.ts";

/** Runs `chaind <args>` (without the node and script paths) and returns the exit status. */
export async function runChaind(args: readonly string[], io: CliIo = process): Promise<number> {
  const program = rootCommand(io);
  exitOverride(program);
  try {
    await program.parseAsync([...args], { from: "user" });
    return typeof process.exitCode === "number" ? process.exitCode : 0;
  } catch (err) {
    return reportError(err, io.stderr);
  }
}

// Commander exits the process on usage errors unless told to throw; throwing lets one place decide.
function exitOverride(command: Command): void {
  command.exitOverride();
  for (const sub of command.commands) exitOverride(sub);
}
