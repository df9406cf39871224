// Small pieces the node-side commands share: the global flags, upstream's sorted-JSON printing, and
// how to show the command a user should type to run this same binary. (Which errors print as one line
// is decided by the errors' classes, in src/cli/report-error.ts.)
import { existsSync, realpathSync } from "node:fs";
import { dirname, isAbsolute, join, relative } from "node:path";
import { isSea } from "node:sea";
import type { Command } from "commander";
import { resolveHome } from "../../config/index.ts";

/** The root's global flags as a command sees them. */
export interface GlobalFlags {
  home: string;
  logLevel: string;
  logFormat: "json" | "plain";
  output: "text" | "json";
}

/** Reads the global flags (`--home` resolved to an absolute path, `~` expanded). */
export function globalFlags(command: Command): GlobalFlags {
  const options = command.optsWithGlobals() as Record<string, unknown>;
  return {
    home: resolveHome(typeof options.home === "string" ? options.home : undefined),
    logLevel: typeof options.log_level === "string" ? options.log_level : "info",
    logFormat: options.log_format === "json" ? "json" : "plain",
    output: options.output === "json" ? "json" : "text",
  };
}

/** JSON with object keys sorted at every level and one-space indentation (upstream's init output). */
export function sortedJson(value: unknown): string {
  return JSON.stringify(sortKeys(value), null, 1);
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, sortKeys((value as Record<string, unknown>)[key])]),
    );
  }
  return value;
}

/**
 * How to run this same binary from the current directory: a single-file release itself, an older release's launcher
 * (which runs `<root>/lib/node/bin/node`), otherwise the Node binary and the script, relative when
 * they are under the working directory (`node_modules/.bin/node chain/cmd/chaind.mjs`).
 */
export function chaindInvocation(): string {
  // A single-file release (src/release/launcher.ts) is itself the program.
  if (isSea()) return shownPath(process.execPath);
  const launcher = join(dirname(process.execPath), "..", "..", "..", "bin", "chaind");
  if (process.execPath.endsWith(join("lib", "node", "bin", "node")) && existsSync(launcher)) return shownPath(launcher);
  const script = process.argv[1] ?? "chaind";
  if (!/\.(ts|js|mjs)$/.test(script)) return shownPath(script);
  return `${shownNode()} ${shownPath(script)}`;
}

// node_modules/.bin/node (a symlink to the pinned runtime) reads better than the runtime's real path.
function shownNode(): string {
  const pinned = join(process.cwd(), "node_modules", ".bin", "node");
  try {
    if (realpathSync(pinned) === realpathSync(process.execPath)) return join("node_modules", ".bin", "node");
  } catch {
    // No pinned runtime here: show the one running.
  }
  return shownPath(process.execPath);
}

function shownPath(path: string): string {
  if (!isAbsolute(path)) return path;
  const fromCwd = relative(process.cwd(), path);
  return fromCwd !== "" && !fromCwd.startsWith("..") && !isAbsolute(fromCwd) ? fromCwd : path;
}
