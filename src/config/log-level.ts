// What `--log_level` and config.toml's `log_level` accept: one level (`info`) or CometBFT's and the SDK's
// per-module form (`x/upgrade:debug,*:error`). A node's log lines that carry a `module` field (x/upgrade, snapshots,
// grpc-js, …) are shown from that module's level; every other line, and a module the list does not name, from the
// `*` entry (`info` when the list has none). The node's logger applies it (src/node/logger.ts).

/** The level names a log level names (pino's, which match the SDK's zerolog names). */
export const LOG_LEVEL_NAMES = ["trace", "debug", "info", "warn", "error", "fatal"] as const;

/** One level name. */
export type LogLevelName = (typeof LOG_LEVEL_NAMES)[number];

/** A parsed log level: the level of lines without a named module, and the per-module levels. */
export interface LogLevelFilter {
  defaultLevel: LogLevelName;
  modules: ReadonlyMap<string, LogLevelName>;
}

/** What a log level must look like, for the one-line errors that refuse one. */
export const LOG_LEVEL_EXPECTED =
  'one of trace, debug, info, warn, error, fatal, or per-module levels such as "x/upgrade:debug,*:info"';

// pino's numeric values, to compare levels.
const LEVEL_VALUES: Record<LogLevelName, number> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60 };

/**
 * Parses a log level; undefined when it is malformed (the caller names the flag or the file in its error).
 * @example parseLogLevel("x/upgrade:debug,*:error") // { defaultLevel: "error", modules: Map { "x/upgrade" => "debug" } }
 */
export function parseLogLevel(text: string): LogLevelFilter | undefined {
  if (isLevelName(text)) return { defaultLevel: text, modules: new Map() };
  if (!text.includes(":")) return undefined;
  const modules = new Map<string, LogLevelName>();
  let defaultLevel: LogLevelName = "info";
  for (const entry of text.split(",")) {
    const parts = entry.split(":");
    if (parts.length !== 2) return undefined;
    const [module, level] = parts.map((part) => part.trim());
    if (module === "" || !isLevelName(level)) return undefined;
    if (module === "*") defaultLevel = level;
    else if (modules.has(module)) return undefined;
    else modules.set(module, level);
  }
  return { defaultLevel, modules };
}

/** The most verbose level the filter shows anywhere (the level the logger itself must run at). */
export function mostVerboseLevel(filter: LogLevelFilter): LogLevelName {
  let lowest = filter.defaultLevel;
  for (const level of filter.modules.values()) if (LEVEL_VALUES[level] < LEVEL_VALUES[lowest]) lowest = level;
  return lowest;
}

/** Whether a line at pino level value `level` from `module` (undefined: no module field) is shown. */
export function shownByFilter(filter: LogLevelFilter, level: number, module: unknown): boolean {
  const threshold = (typeof module === "string" ? filter.modules.get(module) : undefined) ?? filter.defaultLevel;
  return level >= LEVEL_VALUES[threshold];
}

function isLevelName(text: string): text is LogLevelName {
  return (LOG_LEVEL_NAMES as readonly string[]).includes(text);
}
