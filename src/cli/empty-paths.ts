// Path-valued flags and arguments refuse an empty string, once for the whole command tree. An empty value
// would otherwise stand for something the user did not name: `resolveHome("")` is the default home and
// `resolve("")` the current directory, so `replay --from ''` replayed ~/.chaind. Which values are paths is
// read from their placeholder (`--home <dir>`, `<file>`), so a new path flag is covered as long as it uses
// one of PATH_PLACEHOLDERS; src/cli/empty-paths.test.ts runs every one of them with ''.
import type { Argument, Command, Option } from "commander";
import { CliError } from "../client/cli/errors.ts";

/** The placeholders that name a file or directory: `<dir>`, `[file]`, `<proposal-json>`, … */
export const PATH_PLACEHOLDERS: ReadonlySet<string> = new Set([
  "dir",
  "home",
  "file",
  "path",
  "archive",
  "keyfile",
  "proposal-json",
  "validator-json",
]);

/** The one line an empty path gets, naming the flag (`--from`) or argument (`<file>`). */
export function emptyPathMessage(what: string): string {
  return `${what} is empty: expected the path of a file or directory`;
}

/** The placeholder of an option's value (`--home <dir>` → `dir`), or undefined for a flag without a value. */
export function optionPlaceholder(option: Option): string | undefined {
  return /[<[]([^>\]]+?)(?:\.\.\.)?[>\]]/.exec(option.flags)?.[1];
}

/** Whether an option or argument takes a path, by its placeholder. */
export function takesPath(target: Option | Argument): boolean {
  const name = "flags" in target ? optionPlaceholder(target) : target.name();
  return name !== undefined && PATH_PLACEHOLDERS.has(name);
}

/**
 * Makes every path-valued option and argument of `command` and its subcommands refuse `''` with a CliError, which
 * src/cli/report-error.ts prints as one line (commander's own usage errors at the root would add the whole help).
 * Nothing has run when it is thrown: values are parsed before any action. Call once the tree that will parse is built.
 */
export function refuseEmptyPaths(command: Command): void {
  for (const option of command.options) if (takesPath(option)) guard(option);
  for (const argument of command.registeredArguments) if (takesPath(argument)) guard(argument);
  for (const sub of command.commands) refuseEmptyPaths(sub);
}

const guarded = new WeakSet<Option | Argument>();

function guard(target: Option | Argument): void {
  if (guarded.has(target)) return;
  guarded.add(target);
  const parse = target.parseArg;
  const variadic = target.variadic;
  const what = "flags" in target ? (target.long ?? target.flags) : `<${target.name()}>`;
  target.argParser((value: string, previous: unknown) => {
    if (value === "") throw new CliError(emptyPathMessage(what));
    if (parse !== undefined) return parse(value, previous);
    // Without a parser of its own commander collects a variadic value itself; with one, the parser must.
    return variadic ? [...(Array.isArray(previous) ? previous : []), value] : value;
  });
}
