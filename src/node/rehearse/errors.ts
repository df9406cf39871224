// The rehearsal's bad-input error: one line on stderr, exit status 1 (src/cli/report-error.ts prints UserErrors so).
import { UserError } from "../../errors/user-error.ts";

/** A rehearsal that cannot be done (unknown upgrade, height not held, a snapshot that does not fit); says why. */
export class RehearsalError extends UserError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "RehearsalError";
  }
}
