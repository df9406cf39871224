// The `chaind` command tree. Thin: each command parses its flags, calls the library and prints.
// Global flags (SPEC §8) live here; every subcommand reads them with `optsWithGlobals()`.
import { Command, Option } from "commander";
import { defaultHome } from "../config/home.ts";
import { clientCommands } from "./commands/client-commands.ts";
import { nodeCommands } from "./commands/node-commands.ts";
import { snapshotsCommand } from "./commands/snapshots-command.ts";
import { statusEntryCommand } from "./commands/status-entry.ts";
import { versionCommand } from "./commands/version.ts";
import { keysCommand } from "./keys-command.ts";

/** Where commands write; tests pass their own buffers. */
export interface CliIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
}

/** The root `chaind` command with every subcommand attached. */
export function rootCommand(io: CliIo = { stdout: process.stdout, stderr: process.stderr }): Command {
  const program = new Command("chaind")
    .description("chaind: a Cosmos-SDK-shaped chain node and client whose heart is the software-upgrade module")
    .option("--home <dir>", "directory for config and data", defaultHome())
    .addOption(
      new Option("--log_level <level>", "log level")
        .choices(["trace", "debug", "info", "warn", "error", "fatal"])
        .default("info"),
    )
    .addOption(new Option("--log_format <format>", "log format").choices(["json", "plain"]).default("plain"))
    .addOption(new Option("-o, --output <format>", "output format").choices(["text", "json"]).default("text"))
    .showHelpAfterError()
    .configureOutput({ writeOut: (s) => void io.stdout.write(s), writeErr: (s) => void io.stderr.write(s) });
  program.addCommand(keysCommand({ stdout: io.stdout, stderr: io.stderr }));
  for (const command of nodeCommands(io)) program.addCommand(command);
  for (const command of clientCommands(io)) program.addCommand(command);
  program.addCommand(snapshotsCommand(io));
  program.addCommand(versionCommand(io));
  program.addCommand(statusEntryCommand(io));
  showGlobalFlagsInHelp(program);
  return program;
}

/** Every subcommand's `--help` lists the global flags too (--home, --log_level, --log_format, -o), as upstream's does. */
function showGlobalFlagsInHelp(command: Command): void {
  command.configureHelp({ ...command.configureHelp(), showGlobalOptions: true });
  for (const sub of command.commands) showGlobalFlagsInHelp(sub);
}
