// Runs one `chaind` invocation: registers the command tree lazily (only the command that runs is
// imported, src/cli/lazy-command.ts), parses, and turns an error into what the user sees and the exit
// status (src/cli/report-error.ts). The entry file only calls `runChaind`.
import type { Command } from "commander";
import { spellBooleanValues } from "./boolean-flag-values.ts";
import { CHAIND_COMMANDS } from "./command-list.ts";
import { refuseNonDirectories } from "./directory-paths.ts";
import { refuseEmptyPaths } from "./empty-paths.ts";
import type { CliIo } from "./io.ts";
import { addLazyCommands, type CommandSpec } from "./lazy-command.ts";
import { reportError } from "./report-error.ts";
import { rootProgram, showGlobalFlagsInHelp } from "./root.ts";
import { ROOT_OPTION_SHAPE } from "./root-options.ts";

/**
 * Runs `chaind <args>` (argv without the node and script paths) and returns the exit status.
 *
 * @example
 * process.exitCode = await runChaind(process.argv.slice(2));
 */
export async function runChaind(
  args: readonly string[],
  // Only the two streams: commands that read stdin or the environment choose how (the prompt reader must
  // let go of stdin once answered), which they do only when not handed one.
  io: CliIo = { stdout: process.stdout, stderr: process.stderr },
  commands: readonly CommandSpec[] = CHAIND_COMMANDS,
): Promise<number> {
  try {
    const program = rootProgram(io);
    await addLazyCommands(program, commands, args, io, ROOT_OPTION_SHAPE);
    showGlobalFlagsInHelp(program);
    refuseNonDirectories(program);
    refuseEmptyPaths(program);
    exitOverride(program);
    await program.parseAsync(spellBooleanValues(program, args), { from: "user" });
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
