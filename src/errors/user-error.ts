// The one base class for errors whose message is meant for the person running a command: a mistake in
// their input, configuration or files, a network they pointed us at, or a deliberate stop (an upgrade
// halt). The CLI entry point (src/cli/report-error.ts) prints these as one line and everything else —
// a bug — with its stack. Deciding by class, not by a list of names, means a new error type chooses
// its side where it is declared and cannot be forgotten somewhere else.
//
// This folder sits at the bottom of the import graph: it imports nothing, so any layer may use it.

/** Options of a {@link UserError}: the underlying cause and the process exit status (default 1). */
export interface UserErrorOptions {
  cause?: unknown;
  exitCode?: number;
}

/**
 * An error caused by input, configuration, files or the network, or a deliberate stop: the CLI prints
 * its message on one line (no stack trace) and exits with `exitCode`.
 *
 * @example
 * class GenesisError extends UserError { override name = "GenesisError"; }
 * throw new GenesisError(`${file}: "chain_id" is empty; expected the chain's id`);
 */
export class UserError extends Error {
  /** The process exit status when this error ends a command. */
  readonly exitCode: number;

  constructor(message: string, options: UserErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "UserError";
    this.exitCode = options.exitCode ?? 1;
  }
}

/**
 * A Node.js system error (`ENOENT`, `ENOTDIR`, `EACCES`, `EADDRINUSE`, `ECONNREFUSED`, …): the operating
 * system refused a file or network operation, so the cause lies in the machine or the paths and
 * addresses the user gave, not in our code. Recognised by shape (a string `code` and a `syscall`),
 * which every system error has.
 */
export function isSystemError(err: unknown): err is NodeJS.ErrnoException {
  if (!(err instanceof Error)) return false;
  const { code, syscall } = err as NodeJS.ErrnoException;
  return typeof code === "string" && typeof syscall === "string";
}

/** True for errors the user can act on: a {@link UserError} or a system error ({@link isSystemError}). */
export function isUserFacing(err: unknown): err is Error {
  return err instanceof UserError || isSystemError(err);
}

/**
 * The text of a user-facing error: its message, followed by its cause when the cause is a system error
 * the message does not already name (by its code, path or address) — e.g. which address was in use.
 */
export function userMessage(err: Error): string {
  const message = escapeJsonSnippets(err.message);
  const cause = err.cause;
  if (!isSystemError(cause)) return message;
  const names = [cause.code, cause.path, (cause as { address?: unknown }).address];
  const named = names.some((name) => typeof name === "string" && message.includes(name));
  return named ? message : `${message}: ${cause.message}`;
}

// V8's JSON.parse errors quote the text they failed on (`Unexpected token 'g', "garbage\n" is not valid
// JSON`, or `…"…snippet…"… is not valid JSON` for long text), raw line breaks included. Many messages embed
// them (a proposal, tx, genesis or upgrade-info file that is not JSON); escaping the breaks inside the quote
// keeps the error on one line, as docs/CONTRACT.md §12 asks.
const JSON_SNIPPET = /(', )("|\.\.\.")([\s\S]*?)("|"\.\.\.) is not valid JSON/g;

function escapeJsonSnippets(message: string): string {
  if (!message.includes(" is not valid JSON")) return message;
  return message.replace(
    JSON_SNIPPET,
    (_all, lead: string, open: string, body: string, close: string) =>
      `${lead}${open}${body.replaceAll("\r", "\\r").replaceAll("\n", "\\n")}${close} is not valid JSON`,
  );
}
