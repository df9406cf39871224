// The command tree of `chainvisor`. Every command resolves to an exit code; only the entry point exits.
import { Command, CommanderError, Option } from "commander";
import { addUpgradeCommand } from "./commands/add-upgrade.ts";
import { initCommand } from "./commands/init.ts";
import { prepareUpgradeCommand } from "./commands/prepare-upgrade.ts";
import { collectStatus, formatStatus } from "./commands/status.ts";
import { versionCommand } from "./commands/version.ts";
import { type Env, loadConfig } from "./config.ts";
import { describeError, VisorConfigError, VisorError } from "./errors.ts";
import { createLogger, type Logger } from "./log.ts";
import { runNode } from "./run-loop.ts";

/** What {@link main} needs from its surroundings. */
export interface MainParameters {
  /** Arguments after the program name. */
  args: readonly string[];
  env: Env;
  log?: Logger;
  stdout?: (text: string) => void;
}

/**
 * Runs one chainvisor command and resolves with its exit code.
 * @example process.exit(await main({ args: process.argv.slice(2), env: process.env }))
 */
export async function main(parameters: MainParameters): Promise<number> {
  const log = parameters.log ?? createLogger();
  const stdout = parameters.stdout ?? ((text: string) => process.stdout.write(text));
  const env = parameters.env;
  let exitCode = 0;
  const program = new Command()
    .name("chainvisor")
    .description(
      "Runs a chain node and switches it to the next release at an upgrade height.\n" +
        "Configured by environment variables (DAEMON_HOME, DAEMON_NAME, ...): see src/visor/README.md.",
    )
    .enablePositionalOptions()
    .exitOverride()
    // No help after a usage error: the error is one line (docs/CONTRACT.md §12); `--help` prints the help.
    .configureOutput({ writeOut: stdout, writeErr: (text) => process.stderr.write(text) });

  program
    .command("init")
    .description(
      "install the genesis release: copy the executable to chainvisor/genesis/bin and create the current link",
    )
    .argument("[path]", "path to the node executable", nonEmptyPath)
    .action(async (path: string | undefined) => {
      await initCommand(loadConfig(env, "init"), path, log);
    });

  program
    .command("run")
    .description("run the node with the given arguments and upgrade it when an upgrade is due")
    .argument("[node-args...]", "passed to the node unchanged")
    .helpOption(false)
    .allowUnknownOption()
    .allowExcessArguments()
    .passThroughOptions()
    .action(async () => {
      // Everything after `run` belongs to the node, `--` and `--help` included.
      exitCode = await runNode({ config: loadConfig(env), args: parameters.args.slice(1), log });
    });

  program
    .command("add-upgrade")
    .description("install a release for an upgrade by hand: copy the executable to chainvisor/upgrades/<name>/bin")
    .argument("<name>", "upgrade (plan) name; lower-cased for the directory")
    .argument("<path>", "path to the node executable of that release", nonEmptyPath)
    .option(
      "--upgrade-height <height>",
      "also write data/upgrade-info.json so the switch happens at this height (no governance)",
    )
    .option("--force", "overwrite an existing executable and upgrade-info.json")
    .action(async (name: string, path: string, options: { upgradeHeight?: string; force?: boolean }) => {
      await addUpgradeCommand(loadConfig(env), name, path, options, log);
    });

  program
    .command("prepare-upgrade")
    .description("download and verify the release of the plan the node has scheduled, ahead of the halt")
    .option("--watch", "keep polling the node until a scheduled plan's release is staged")
    .action(async (options: { watch?: boolean }) => {
      await prepareUpgradeCommand(loadConfig(env), { watch: options.watch === true }, log);
    });

  program
    .command("status")
    .description("show the current release, the installed upgrades and the node's scheduled plan")
    .addOption(new Option("-o, --output <format>", "output format").choices(["text", "json"]).default("text"))
    .action(async (options: { output: string }) => {
      const status = await collectStatus(loadConfig(env));
      stdout(options.output === "json" ? `${JSON.stringify(status, null, 2)}\n` : formatStatus(status));
    });

  program
    .command("version")
    .description("print chainvisor's version, then the current release's (`<binary> version`)")
    .addOption(new Option("-o, --output <format>", "output format").choices(["text", "json"]).default("text"))
    .option("--no-app-version", "print only chainvisor's version")
    .action(async (options: { output: "text" | "json"; appVersion: boolean }) => {
      exitCode = await versionCommand(() => loadConfig(env), options, stdout);
    });

  try {
    await program.parseAsync([...parameters.args], { from: "user" });
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode;
    if (error instanceof VisorConfigError) {
      log.error(`invalid configuration:\n${error.problems.map((problem) => `  ${problem}`).join("\n")}`);
      return 1;
    }
    log.error(describeError(error));
    return 1;
  }
}

/**
 * A path argument refuses '' before the command runs (as chaind's path flags do, src/cli/empty-paths.ts): an empty
 * string names no file, and the error says so rather than what a file operation on it would report.
 */
function nonEmptyPath(value: string): string {
  if (value === "")
    throw new VisorError("<path> is empty: expected the path of the node executable or release archive");
  return value;
}
