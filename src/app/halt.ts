// Halting the state machine on purpose. A PreBlock or EndBlock hook (the upgrade module's guard) or
// the app's halt-height/halt-time check throws HaltError; FinalizeBlock then fails without staging
// anything for the block, and the driver (embedded engine or ABCI server) stops the process with
// `exitCode` once it has flushed what it must.
import { UserError } from "../errors/user-error.ts";

/** Why the node halts. */
export type HaltReason = "upgrade" | "halt-height" | "halt-time" | "other";

/**
 * Thrown to stop block execution; `exitCode` is the status the process should exit with. A deliberate
 * stop the operator asked for (a plan, halt-height), so it is user-facing: one line, no stack.
 */
export class HaltError extends UserError {
  readonly reason: HaltReason;

  constructor(message: string, options: { exitCode: number; reason?: HaltReason; cause?: unknown }) {
    super(message, { cause: options.cause, exitCode: options.exitCode });
    this.name = "HaltError";
    this.reason = options.reason ?? "other";
  }
}

/** Exit status for a halt requested by app.toml's halt-height / halt-time (an orderly stop). */
export const CONFIG_HALT_EXIT_CODE = 0;

/** True when `err` is a HaltError (also across realms, by name). */
export function isHaltError(err: unknown): err is HaltError {
  return err instanceof HaltError;
}
