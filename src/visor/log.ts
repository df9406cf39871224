/** Where chainvisor's own log lines go; the node's output never passes through it. */
export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

/** Parameters of {@link createLogger}. */
export interface CreateLoggerParameters {
  /** Destination; stderr by default so the node's stdout stays clean for tools that parse it. */
  write?: (line: string) => void;
  /** Clock, for tests. */
  now?: () => Date;
}

/**
 * A logger printing plain lines `<ISO time> chainvisor <message>` (warnings and errors say so after the name).
 * @example createLogger().info("upgrade detected")
 */
export function createLogger(parameters: CreateLoggerParameters = {}): Logger {
  const write = parameters.write ?? ((line: string) => process.stderr.write(line));
  const now = parameters.now ?? (() => new Date());
  const line = (level: string, message: string) => {
    write(`${now().toISOString()} chainvisor ${level}${message}\n`);
  };
  return {
    info: (message) => line("", message),
    warn: (message) => line("warning: ", message),
    error: (message) => line("error: ", message),
  };
}

/** A logger that drops everything (for library calls whose caller does its own reporting). */
export const silentLogger: Logger = { info: () => {}, warn: () => {}, error: () => {} };
