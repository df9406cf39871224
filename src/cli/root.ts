// The `chaind` root: its global flags (docs/CONTRACT.md §8; every subcommand reads them with `optsWithGlobals()`)
// and the top-level commands of src/cli/command-list.ts. `chaind` itself adds only the command that
// runs (src/cli/main.ts); `rootCommand` loads the whole tree, for tests and tools that walk it.
import { Command, InvalidArgumentError, Option } from "commander";
import { defaultHome } from "../config/home.ts";
import { LOG_LEVEL_NAMES, parseLogLevel } from "../config/log-level.ts";
import { currentChainManifest } from "../runtime/current-chain.ts";

import { CHAIND_COMMANDS } from "./command-list.ts";
import { refuseNonDirectories } from "./directory-paths.ts";
import { refuseEmptyPaths } from "./empty-paths.ts";
import type { CliIo } from "./io.ts";

export type { CliIo } from "./io.ts";
export { ROOT_OPTION_SHAPE } from "./root-options.ts";

/**
 * The root command with its global flags and no subcommands, named after the chain this process serves (`chaind`,
 * or a chain developer's `mychaind`: its help says `Usage: mychaind …`).
 */
export function rootProgram(io: CliIo = { stdout: process.stdout, stderr: process.stderr }): Command {
  const name = currentChainManifest().name;
  // No showHelpAfterError(): a usage error at the root (unknown command or option, a bad choice) is one line, as
  // every subcommand's is (docs/CONTRACT.md §12); `chaind --help` and `chaind` alone still print the help.
  return new Command(name)
    .description(`${name}: a Cosmos-SDK-shaped chain node and client whose heart is the software-upgrade module`)
    .option("--home <dir>", "directory for config and data", defaultHome())
    .addOption(
      new Option("--log_level <level>", 'log level, or per-module levels such as "x/upgrade:debug,*:info"')
        .argParser(logLevelArgument)
        .default("info", "config.toml log_level, else info"),
    )
    .addOption(
      new Option("--log_format <format>", "log format")
        .choices(["json", "plain"])
        .default("plain", "config.toml log_format, else plain"),
    )
    .addOption(new Option("-o, --output <format>", "output format").choices(["text", "json"]).default("text"))
    .configureOutput({ writeOut: (s) => void io.stdout.write(s), writeErr: (s) => void io.stderr.write(s) });
}

// A plain level or CometBFT's per-module form; the refusal keeps commander's wording for a bad choice.
function logLevelArgument(value: string): string {
  if (parseLogLevel(value) !== undefined) return value;
  throw new InvalidArgumentError(
    `Allowed choices are ${LOG_LEVEL_NAMES.join(", ")}, or per-module levels such as "x/upgrade:debug,*:info".`,
  );
}

/** The root `chaind` command with every subcommand loaded. */
export async function rootCommand(io: CliIo = { stdout: process.stdout, stderr: process.stderr }): Promise<Command> {
  const program = rootProgram(io);
  for (const spec of CHAIND_COMMANDS) program.addCommand(await spec.load(io, []));
  showGlobalFlagsInHelp(program);
  refuseNonDirectories(program);
  refuseEmptyPaths(program);
  return program;
}

/** Every subcommand's `--help` lists the global flags too (call once the tree is built) (--home, --log_level, --log_format, -o), as upstream's does. */
export function showGlobalFlagsInHelp(command: Command): void {
  command.configureHelp({ ...command.configureHelp(), showGlobalOptions: true });
  for (const sub of command.commands) showGlobalFlagsInHelp(sub);
}
