// "No exception other than the project's own errors": a parser fed hostile input may refuse it, but only with one of
// the error classes the project throws on purpose (each carries a message written for the operator). A TypeError,
// RangeError or SyntaxError escaping means the parser tripped over the input instead of judging it.
import assert from "node:assert/strict";

/** An error class, e.g. `ConfigError` or `UserError`. */
// biome-ignore lint/suspicious/noExplicitAny: error constructors take any arguments
export type ErrorClass = abstract new (...args: any[]) => Error;

/** JavaScript's own error classes: when one of these is the cause of an own error, the parser wrapped a crash. */
const BUG_CLASSES: readonly ErrorClass[] = [TypeError, ReferenceError];

/**
 * Asserts that `error` is an instance of one of `allowed`, with a non-empty message; with `noBugCause`, also that no
 * error in its `cause` chain is a TypeError or ReferenceError (for parsers that wrap whatever they catch, which would
 * otherwise hide a crash behind their own class). `input` is shown when the assertion fails.
 */
export function assertOwnError(
  error: unknown,
  allowed: readonly ErrorClass[],
  input: unknown,
  options: { noBugCause?: boolean } = {},
): void {
  const shown = describeInput(input);
  if (!allowed.some((kind) => error instanceof kind)) {
    assert.fail(`expected one of ${allowed.map((kind) => kind.name).join(", ")} for ${shown}, got ${describe(error)}`);
  }
  assert.ok((error as Error).message.trim() !== "", `empty error message for ${shown}`);
  if (options.noBugCause !== true) return;
  for (let cause = (error as Error).cause, depth = 0; cause !== undefined && depth < 20; depth++) {
    if (BUG_CLASSES.some((kind) => cause instanceof kind)) {
      assert.fail(`${describe(error)} for ${shown} wraps a crash: ${describe(cause)}`);
    }
    cause = cause instanceof Error ? cause.cause : undefined;
  }
}

/**
 * Runs `parse(input)`; returns its value, or undefined when it threw one of `allowed` (anything else fails the test).
 */
export function parseOrOwnError<T>(
  parse: () => T,
  allowed: readonly ErrorClass[],
  input: unknown,
  options: { noBugCause?: boolean } = {},
): T | undefined {
  try {
    return parse();
  } catch (error) {
    assertOwnError(error, allowed, input, options);
    return undefined;
  }
}

/** The async twin of {@link parseOrOwnError}. */
export async function parseOrOwnErrorAsync<T>(
  parse: () => Promise<T>,
  allowed: readonly ErrorClass[],
  input: unknown,
  options: { noBugCause?: boolean } = {},
): Promise<T | undefined> {
  try {
    return await parse();
  } catch (error) {
    assertOwnError(error, allowed, input, options);
    return undefined;
  }
}

function describe(error: unknown): string {
  if (error instanceof Error) return `${error.constructor.name}: ${error.message}\n${error.stack ?? ""}`;
  return `a thrown ${typeof error}: ${String(error)}`;
}

function describeInput(input: unknown): string {
  const text =
    input instanceof Uint8Array ? `bytes ${Buffer.from(input).toString("hex")}` : JSON.stringify(input, bigintText);
  return text === undefined ? String(input) : text.length > 2000 ? `${text.slice(0, 2000)}...` : text;
}

function bigintText(_key: string, value: unknown): unknown {
  return typeof value === "bigint" ? `${value}n` : value;
}
