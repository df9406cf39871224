// config.toml's `log_level` and `log_format`: the defaults of the `--log_level` / `--log_format` flags of every
// command that runs a node, as upstream's server takes them (an explicit flag wins; src/cli/commands/node-logger.ts).
// Read synchronously and on their own, before the node loads (and checks) the whole file, since the logger exists first.
import { ConfigError } from "./errors.ts";
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
 * The log settings of `<home>/config/config.toml`; undefined when the home has no config.toml (the node's own
 * loading then says what is missing). Throws {@link ConfigError} naming the file and key for a bad value.
 * @example homeLogSettings("/var/lib/chaind") // { logLevel: "info", logFormat: "plain" }
 */
export function homeLogSettings(home: string): LogSettings | undefined {
  const file = homePaths(home).configToml;
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    throw new ConfigError(
      { file, reason: `cannot read it for log_level and log_format: ${(error as Error).message}` },
      { code: "CONFIG_UNREADABLE", cause: error },
    );
  }
  const read = new TomlFieldReader(file, parseTomlText(text, file));
  const settings = readLogSettings(read);
  read.finish();
  return settings;
}
