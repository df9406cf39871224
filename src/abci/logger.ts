// The logger the ABCI server writes to: the structured subset of pino that the node's other parts also use.

/** A pino-compatible logger (pino's Logger satisfies it). */
export interface AbciLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** Discards everything; the default when no logger is given. */
export const silentAbciLogger: AbciLogger = { info() {}, warn() {}, error() {} };
