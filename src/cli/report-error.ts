// How an error that ends a `chaind` command reaches the user — decided here and nowhere else. Commander's
// own errors (usage, --help) are already printed; a user-facing error (src/errors/user-error.ts: bad
// input, configuration, files, network, a halt) prints `Error: <message>` on one line and exits with its
// status; anything else is a bug and prints its stack so it can be reported.
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
    stderr.write(`Error: ${userMessage(err)}\n`);
    const exitCode = (err as { exitCode?: unknown }).exitCode;
    return typeof exitCode === "number" && exitCode !== 0 ? exitCode : 1;
  }
  stderr.write(`Error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  return 1;
}
