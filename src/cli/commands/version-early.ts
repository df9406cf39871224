// `chaind version` in its plain forms, answered before the command parser loads: supervisors and scripts
// run it often, and loading commander and the command tree costs more than the answer. Only argv the
// parser would accept as exactly these flags takes this path (`version`, `--long` after it, `-o`/`--output`
// text|json anywhere); anything else — help, other global flags, a misspelling, a release variable naming
// no release — goes through the full parser, which prints what it always did.
import type { ChainManifest } from "../../runtime/release.ts";
import { type VersionFlags, versionText } from "./version-output.ts";

const OUTPUTS = new Set(["text", "json"]);

/** The flags of a plain `version` invocation, or undefined when `args` (argv after the program) is anything else. */
export function plainVersionFlags(args: readonly string[]): VersionFlags | undefined {
  const flags: VersionFlags = { output: "text" };
  let sawCommand = false;
  for (let i = 0; i < args.length; i++) {
    const token = args[i] as string;
    if (token === "version" && !sawCommand) sawCommand = true;
    else if (token === "--long" && sawCommand) flags.long = true;
    else if ((token === "-o" || token === "--output") && OUTPUTS.has(args[i + 1] ?? ""))
      flags.output = args[++i] as string;
    else if (token.startsWith("--output=") && OUTPUTS.has(token.slice("--output=".length)))
      flags.output = token.slice("--output=".length);
    else return undefined;
  }
  return sawCommand ? flags : undefined;
}

/**
 * Prints `version`'s answer for `args` when they are a plain invocation and returns true; false (nothing
 * printed) when the full parser must run.
 */
export function tryPlainVersion(
  args: readonly string[],
  chain: ChainManifest,
  stdout: { write(text: string): unknown },
): boolean {
  const flags = plainVersionFlags(args);
  if (flags === undefined) return false;
  let text: string;
  try {
    text = versionText(chain, flags);
  } catch {
    return false; // e.g. an unknown release: the full path reports it as it always has
  }
  stdout.write(text);
  return true;
}
