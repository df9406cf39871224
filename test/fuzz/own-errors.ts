// "No exception other than the project's own errors": a parser fed hostile input may refuse it, but only with one of
// the error classes the project throws on purpose (each carries a message written for the operator). A TypeError,
// RangeError or SyntaxError escaping means the parser tripped over the input instead of judging it.
import assert from "node:assert/strict";

/** An error class, e.g. `ConfigError` or `UserError`. */
// biome-ignore lint/suspicious/noExplicitAny: error constructors take any arguments
export type ErrorClass = abstract new (...args: any[]) => Error;

/** Options of {@link assertOwnError}. */
export interface OwnErrorOptions {
  /**
   * Also require that no error in the `cause` chain is a crash (see {@link isCrash}): for parsers that wrap whatever
   * they catch, which would otherwise hide a crash behind their own class.
   */
  noBugCause?: boolean;
}

// The messages V8 gives a TypeError when code uses a value it did not check (undefined, null, the wrong kind).
const CRASH_MESSAGE =
  /Cannot read properties|Cannot set properties|is not a function|is not iterable|is not a constructor|Cannot convert undefined or null|Cannot destructure/;

/**
 * Whether an error is a crash rather than a refusal. A ReferenceError always is. A TypeError is one when V8 wrote it
 * (a property of undefined, a call of a non-function) or when it was thrown from the project's code or from Node's
 * internals called by it; a TypeError thrown by a library with a message of its own is that library's way of refusing
 * input (TextDecoder for invalid UTF-8 under protobuf-es, @scure/base for a malformed bech32 string).
 */
export function isCrash(error: unknown): boolean {
  if (error instanceof ReferenceError) return true;
  if (!(error instanceof TypeError)) return false;
  if (CRASH_MESSAGE.test(error.message)) return true;
  const frames = (error.stack ?? "").split("\n").filter((line) => line.trimStart().startsWith("at "));
  const thrower = frames.find((line) => !line.includes("node:"));
  return thrower === undefined || !thrower.includes("/node_modules/");
}

/**
 * Asserts that `error` is an instance of one of `allowed`, with a non-empty message (see {@link OwnErrorOptions} for
 * the check of its causes). `input` is shown when the assertion fails.
 */
export function assertOwnError(
  error: unknown,
  allowed: readonly ErrorClass[],
  input: unknown,
  options: OwnErrorOptions = {},
): void {
  const shown = describeInput(input);
  if (!allowed.some((kind) => error instanceof kind)) {
    assert.fail(`expected one of ${allowed.map((kind) => kind.name).join(", ")} for ${shown}, got ${describe(error)}`);
  }
  assert.ok((error as Error).message.trim() !== "", `empty error message for ${shown}`);
  if (options.noBugCause !== true) return;
  for (let cause = (error as Error).cause, depth = 0; cause !== undefined && depth < 20; depth++) {
    if (isCrash(cause)) {
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
  options: OwnErrorOptions = {},
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
  options: OwnErrorOptions = {},
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
