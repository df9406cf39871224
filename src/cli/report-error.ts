// How an error that ends a `chaind` command reaches the user — decided here and nowhere else. Commander's
// own errors (usage, --help) are already printed; a user-facing error (src/errors/user-error.ts: bad
// input, configuration, files, network, a halt) prints `Error: <message>` on one line and exits with its
// status (an orderly stop with status 0, such as halt-height, prints its message alone); anything else is a
// bug and prints its stack so it can be reported.
import { CommanderError } from "commander";
import { isUserFacing, userMessage } from "../errors/user-error.ts";

/** Where the report goes. */
export interface ErrorSink {
  write(text: string): unknown;
}

/**
 * Prints what the user should see for `err` on `stderr` and returns the process exit status.
 *
 * @example
 * try { await program.parseAsync(argv) } catch (err) { process.exitCode = reportError(err, process.stderr) }
 */
export function reportError(err: unknown, stderr: ErrorSink): number {
  if (err instanceof CommanderError) return err.exitCode;
  if (isUserFacing(err)) {
    const exitCode = (err as { exitCode?: unknown }).exitCode;
    // Status 0 is an orderly stop the operator asked for (app.toml halt-height / halt-time reached while the
    // node was still catching up): say why it stopped, not "Error".
    if (exitCode === 0) {
      stderr.write(`${userMessage(err)}\n`);
      return 0;
    }
    stderr.write(`Error: ${userMessage(err)}\n`);
    return typeof exitCode === "number" ? exitCode : 1;
  }
  stderr.write(`Error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  return 1;
}
