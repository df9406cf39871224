// config.toml's `log_level` and `log_format`: the defaults of the `--log_level` / `--log_format` flags of every
// command that runs a node, as upstream's server takes them (an explicit flag wins; src/cli/commands/node-logger.ts).
// Read synchronously and on their own, before the node loads (and checks) the whole file, since the logger exists
// first; a bad value here is left to that check.
import { homePaths } from "./home.ts";
import { LOG_LEVEL_EXPECTED, parseLogLevel } from "./log-level.ts";
import { parseTomlText, TomlFieldReader } from "./toml-reader.ts";

const { readFileSync } = process.getBuiltinModule("node:fs");

/** A node's log settings as config.toml gives them. */
export interface LogSettings {
  logLevel: string;
  logFormat: "plain" | "json";
}

/** Reads and checks `log_level` and `log_format` (their defaults when absent); shared with loadNodeConfig. */
export function readLogSettings(read: TomlFieldReader): LogSettings {
  const logLevel = read.string("log_level", "info");
  if (parseLogLevel(logLevel) === undefined) read.problem("log_level", LOG_LEVEL_EXPECTED, logLevel);
  return { logLevel, logFormat: read.oneOf("log_format", ["plain", "json"], "plain") };
}

/**
 * The log settings of `<home>/config/config.toml`, each when it is there and valid; undefined when the file cannot be
 * read or parsed. Never throws: the node loads (and checks) the whole file right after, and reports every problem
 * of it at once, these two keys' included (loadNodeConfig), in its usual words.
 * @example homeLogSettings("/var/lib/chaind") // { logLevel: "info", logFormat: "plain" }
 */
export function homeLogSettings(home: string): Partial<LogSettings> | undefined {
  const file = homePaths(home).configToml;
  let read: TomlFieldReader;
  try {
    read = new TomlFieldReader(file, parseTomlText(readFileSync(file, "utf8"), file));
  } catch {
    return undefined;
  }
  const level = read.raw("log_level");
  const format = read.raw("log_format");
  return {
    logLevel: typeof level === "string" && parseLogLevel(level) !== undefined ? level : undefined,
    logFormat: format === "plain" || format === "json" ? format : undefined,
  };
}
