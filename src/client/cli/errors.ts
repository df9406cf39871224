// The CLI's own error for expected failures. It is a UserError (src/errors/user-error.ts), so the entry
// point (src/cli/report-error.ts) prints its message on one line and exits with `exitCode`.
import { UserError, type UserErrorOptions } from "../../errors/user-error.ts";

/** An error meant for the user: printed to stderr, then the process exits with `exitCode` (default 1). */
export class CliError extends UserError {
  constructor(message: string, options: UserErrorOptions = {}) {
    super(message, options);
    this.name = "CliError";
  }
}
