// The CLI's one error type for expected failures: the root prints the message to stderr (no
// stack trace) and exits with `exitCode`. Anything else reaching the root is a bug and is printed
// with its stack.

/** An error meant for the user: printed to stderr, then the process exits with `exitCode` (default 1). */
export class CliError extends Error {
  readonly exitCode: number;

  constructor(message: string, options: ErrorOptions & { exitCode?: number } = {}) {
    super(message, options);
    this.name = "CliError";
    this.exitCode = options.exitCode ?? 1;
  }
}
