// Directory-valued flags (`--home <dir>`, `--keyring-dir <dir>`, `replay --from <home>`, …) refuse a path that
// exists and is not a directory, once for the whole command tree. Left to the commands, a regular file given as
// --home surfaced as whatever read under it first: a raw `ENOTDIR: not a directory, open '<home>/keyring-test/…'`,
// or `init` calling it an unreadable upgrade-info.json. Upstream's client fails on such a home too (it cannot
// create its config under it). A path that does not exist passes: `init`, `dev` and `keys add` create it, the
// others report what they miss.
import { dirname, resolve } from "node:path";
import type { Command, Option } from "commander";
import { CliError } from "../client/cli/errors.ts";
import { optionPlaceholder } from "./empty-paths.ts";

// node:fs is taken with process.getBuiltinModule, not an ES import: every command's tree loads this file, and an ES
// import of node:fs builds its facade, whose lazy exports (the streams, `promises`, `Dir`) load a dozen more built-in
// modules that a query never uses (docs/PERFORMANCE.md, "Start-up at the CLI and at the upgrade").
const { statSync } = process.getBuiltinModule("node:fs");

/** The placeholders that name a directory. */
export const DIRECTORY_PLACEHOLDERS: ReadonlySet<string> = new Set(["dir", "home"]);

/** The one line a directory flag given a non-directory gets. */
export function notADirectoryMessage(flag: string, path: string): string {
  return `${flag} ${path} is not a directory: expected the path of a directory`;
}

/**
 * Makes every directory-valued option of `command` and its subcommands refuse an existing non-directory with a
 * CliError, printed as one line by src/cli/report-error.ts before any action runs. Call before refuseEmptyPaths
 * (which then refuses '' first), once the tree that will parse is built.
 */
export function refuseNonDirectories(command: Command): void {
  for (const option of command.options) {
    const placeholder = optionPlaceholder(option);
    if (placeholder !== undefined && DIRECTORY_PLACEHOLDERS.has(placeholder)) guard(option);
  }
  for (const sub of command.commands) refuseNonDirectories(sub);
}

const guarded = new WeakSet<Option>();

function guard(option: Option): void {
  if (guarded.has(option)) return;
  guarded.add(option);
  const parse = option.parseArg;
  const flag = option.long ?? option.flags;
  option.argParser((value: string, previous: unknown) => {
    if (value !== "" && isNonDirectory(value)) {
      throw new CliError(notADirectoryMessage(flag, value));
    }
    return parse === undefined ? value : parse(value, previous);
  });
}

// True when something other than a directory is at `path`, or at the nearest of its parents that exists (a path under
// a regular file: stat calls that "no entry" too, and the command would then fail with ENOTDIR).
function isNonDirectory(path: string): boolean {
  for (let at = resolve(path); ; at = dirname(at)) {
    const stats = statSync(at, { throwIfNoEntry: false });
    if (stats !== undefined) return !stats.isDirectory();
    if (dirname(at) === at) return false;
  }
}
