// Lazy command loading. Importing every command's implementation (protobuf descriptors, the store, the
// node, the client) costs far more than running `chaind version`, so the root registers each top-level
// command from a light description and imports the implementation only of the command that runs.
// `chaind --help` (or no command at all) loads them all, so help lists every command as before.
import { Command } from "commander";
import type { CliIo } from "./io.ts";

/** A top-level command, described without importing its implementation. */
export interface CommandSpec {
  name: string;
  aliases?: readonly string[];
  description: string;
  /**
   * Imports the implementation and builds the full command. `args` is the argv after the command's
   * name, so a command with subcommands can load only the one that runs (empty: load them all).
   */
  load(io: CliIo, args: readonly string[]): Promise<Command>;
}

/** Root options that take a value (so the token after them is not the command's name). */
export interface RootOptionShape {
  /** Every spelling of an option that takes a value, e.g. `["--home", "-o", "--output"]`. */
  valueOptions: readonly string[];
}

/**
 * The name (or alias) of the command `args` runs, `help <command>`'s argument, or undefined when no
 * command is named (root help, no arguments); `rest` is what follows the name in `args`.
 */
export function targetCommand(
  args: readonly string[],
  shape: RootOptionShape,
): { name: string | undefined; rest: readonly string[] } {
  let helpAt: number | undefined;
  for (let i = 0; i < args.length; i++) {
    const token = args[i] as string;
    if (token === "--") {
      const at = helpAt === undefined && args[i + 1] === "help" ? i + 2 : i + 1;
      return { name: args[at], rest: args.slice(at + 1) };
    }
    if (token.startsWith("-") && token !== "-") {
      if (!token.includes("=") && shape.valueOptions.includes(token)) i++;
      continue;
    }
    if (token === "help" && helpAt === undefined) {
      helpAt = i;
      continue;
    }
    return { name: token, rest: args.slice(i + 1) };
  }
  return { name: undefined, rest: [] };
}

/**
 * Adds `specs` to `root`: the command `args` runs is loaded in full, every other one is a stub holding
 * its name, aliases and description (enough for commander to route to the one that runs). With no
 * command named (root `--help`, no arguments) or an unknown one, every command is loaded, so the root's
 * help lists each with its arguments exactly as before.
 */
export async function addLazyCommands(
  root: Command,
  specs: readonly CommandSpec[],
  args: readonly string[],
  io: CliIo,
  shape: RootOptionShape,
): Promise<void> {
  const target = targetCommand(args, shape);
  const named = (spec: CommandSpec) => spec.name === target.name || (spec.aliases ?? []).includes(target.name ?? "");
  // No command (commander prints the parent's help, which lists them all), or one that does not exist (its one-line
  // error suggests the nearest name: "Did you mean query?"): every command is loaded.
  const loadAll = !specs.some(named);
  const commands = await Promise.all(
    specs.map((spec) => (loadAll ? spec.load(io, []) : named(spec) ? spec.load(io, target.rest) : stub(spec))),
  );
  for (const command of commands) root.addCommand(command);
}

function stub(spec: CommandSpec): Command {
  const command = new Command(spec.name).description(spec.description);
  if (spec.aliases !== undefined) command.aliases([...spec.aliases]);
  return command;
}
