// The logger of a command that runs a node (start, dev, replay): `--log_level` / `--log_format` when given, else
// the home's config.toml `log_level` / `log_format`, else info and plain — upstream's server takes config.toml's
// values as the flags' defaults the same way, so an operator sets them once in the home.
import type { Command } from "commander";
import type { Logger } from "pino";
import { homeLogSettings, type LogSettings } from "../../config/home-log-settings.ts";
import { createNodeLogger } from "../../node/logger.ts";
import { globalFlags } from "./cli-support.ts";

/**
 * The node logger for `command`, whose config.toml is the one of `configHome` (the home the node runs from).
 * @example const logger = nodeLogger(cmd, home);
 */
export function nodeLogger(command: Command, configHome: string): Logger {
  const { logLevel, logFormat } = nodeLogSettings(command, configHome);
  return createNodeLogger({ level: logLevel, format: logFormat });
}

/** The log level and format {@link nodeLogger} uses: each flag when given, else config.toml's, else the default. */
export function nodeLogSettings(command: Command, configHome: string): LogSettings {
  const flags = globalFlags(command);
  const given = (key: string) => {
    const source = command.getOptionValueSourceWithGlobals(key);
    return source !== undefined && source !== "default";
  };
  const levelGiven = given("log_level");
  const formatGiven = given("log_format");
  const fromConfig = levelGiven && formatGiven ? undefined : homeLogSettings(configHome);
  return {
    logLevel: levelGiven ? flags.logLevel : (fromConfig?.logLevel ?? flags.logLevel),
    logFormat: formatGiven ? flags.logFormat : (fromConfig?.logFormat ?? flags.logFormat),
  };
}
