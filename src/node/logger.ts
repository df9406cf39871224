// The node's logger: pino, with `--log_level` and `--log_format json|plain` (docs/CONTRACT.md §8; config.toml's
// `log_level` / `log_format` when the flags are not given, src/cli/commands/node-logger.ts). JSON lines are
// pino's own; plain lines are a short human form (`12:00:01.234 INF message key=value ...`) written by a
// tiny formatter, since no pretty-printer package is installed. Logs go to stderr so that stdout stays
// for what a command prints on purpose (the endpoint banner, JSON output).
import { type Logger, pino, stdSerializers } from "pino";
import { type LogLevelFilter, mostVerboseLevel, parseLogLevel, shownByFilter } from "../config/log-level.ts";
import { isUserFacing } from "../errors/user-error.ts";

/** Where log lines go (process.stderr by default; tests pass a buffer). */
export interface LogSink {
  write(text: string): unknown;
}

/** Options of {@link createNodeLogger}. */
export interface NodeLoggerOptions {
  /**
   * pino level name: trace, debug, info, warn, error, fatal (or silent); or per-module levels such as
   * `x/upgrade:debug,*:info` (src/config/log-level.ts).
   */
  level?: string;
  format?: "json" | "plain";
  sink?: LogSink;
}

const LEVEL_TAGS: Record<number, string> = { 10: "TRC", 20: "DBG", 30: "INF", 40: "WRN", 50: "ERR", 60: "FTL" };
// Fields pino adds to every line that the plain form shows in its own way or not at all.
const PLAIN_SKIPPED = new Set(["level", "time", "pid", "hostname", "msg"]);

/**
 * A pino logger writing JSON or plain lines to `sink` (stderr by default).
 *
 * @example const logger = createNodeLogger({ level: "info", format: "plain" }); logger.info({ height: 5 }, "committed");
 */
export function createNodeLogger(options: NodeLoggerOptions = {}): Logger {
  const sink = options.sink ?? process.stderr;
  const level = options.level ?? "info";
  const filter = level.includes(":") ? parseLogLevel(level) : undefined;
  const settings = {
    level: filter === undefined ? level : mostVerboseLevel(filter),
    serializers: { err: serializeLoggedError },
  };
  const shown = (line: string) => filter === undefined || filter.modules.size === 0 || lineShown(filter, line);
  if (options.format === "json") {
    return pino(settings, { write: (line: string) => void (shown(line) && sink.write(line)) });
  }
  return pino(settings, { write: (line: string) => void (shown(line) && sink.write(plainLine(line))) });
}

// Per-module levels: pino runs at the most verbose one, and each line is kept or dropped here by its module's level.
function lineShown(filter: LogLevelFilter, jsonLine: string): boolean {
  try {
    const record = JSON.parse(jsonLine) as { level?: unknown; module?: unknown };
    return typeof record.level !== "number" || shownByFilter(filter, record.level, record.module);
  } catch {
    return true;
  }
}

/**
 * pino's error serializer, without the stack for an error the operator acts on (a `UserError`: bad input,
 * a file, the network, or a deliberate stop such as the upgrade halt): that line is the expected, documented
 * outcome, and a stack would read as a crash and print the install paths (docs/CONTRACT.md §12). Bugs keep theirs.
 */
export function serializeLoggedError(err: unknown): unknown {
  const serialized = stdSerializers.err(err as Error);
  if (!isUserFacing(err) || typeof serialized !== "object" || serialized === null) return serialized;
  const { stack: _stack, ...rest } = serialized as unknown as Record<string, unknown>;
  return rest;
}

/** Turns one pino JSON line into `HH:MM:SS.mmm LVL msg key=value ...\n`. */
export function plainLine(jsonLine: string): string {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(jsonLine) as Record<string, unknown>;
  } catch {
    return jsonLine.endsWith("\n") ? jsonLine : `${jsonLine}\n`;
  }
  const time = typeof record.time === "number" ? new Date(record.time).toISOString().slice(11, 23) : "";
  const tag = LEVEL_TAGS[record.level as number] ?? String(record.level);
  const fields = Object.entries(record)
    .filter(([key]) => !PLAIN_SKIPPED.has(key))
    .map(([key, value]) => `${key}=${plainValue(value)}`);
  const message = typeof record.msg === "string" ? record.msg : "";
  return `${[time, tag, message, ...fields].filter((part) => part !== "").join(" ")}\n`;
}

function plainValue(value: unknown): string {
  if (typeof value === "string") return /[\s"=]/.test(value) || value === "" ? JSON.stringify(value) : value;
  if (value !== null && typeof value === "object" && "message" in value && "type" in value) {
    // pino's serialised error: the message is what an operator needs on one line.
    return JSON.stringify((value as { message: unknown }).message);
  }
  return JSON.stringify(value);
}
