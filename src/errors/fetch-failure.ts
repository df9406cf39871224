// fetch reports every network problem as "fetch failed" (a TypeError); the reason — refused, unknown host,
// reset, TLS — is in its cause, or in the first of an AggregateError's (one per address tried). A message for
// the user needs that reason (docs/CONTRACT.md §12: one line plus its cause).

/**
 * The message of a failed fetch with its reason: `fetch failed (connect ECONNREFUSED 127.0.0.1:1)`. Any other
 * error gives its own message.
 *
 * @example fetchFailure(err) // "fetch failed (getaddrinfo ENOTFOUND example.invalid)"
 */
export function fetchFailure(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  const reason = fetchFailureCause(err)?.message ?? "";
  return reason === "" || message.includes(reason) ? message : `${message} (${reason})`;
}

/**
 * The system error behind a failed fetch (with its `code`, e.g. ECONNREFUSED): the TypeError's cause, or the first
 * of an AggregateError's. Undefined for any other error.
 */
export function fetchFailureCause(err: unknown): (Error & { code?: string }) | undefined {
  let cause = err instanceof TypeError ? err.cause : undefined;
  if (cause instanceof AggregateError && cause.errors.length > 0) cause = cause.errors[0];
  return cause instanceof Error ? cause : undefined;
}
