// One error class for every file under the node's home (app.toml, config.toml, genesis.json and the
// key files): the operator needs the same three facts from each — which file, which key, what was
// expected — so one shape serves them all, and a caller can catch one class before anything starts.
import { UserError } from "../errors/user-error.ts";

/** What went wrong: unreadable file, TOML/JSON syntax, or a value that does not fit. */
export type ConfigErrorCode = "CONFIG_UNREADABLE" | "CONFIG_SYNTAX" | "CONFIG_INVALID";

/** One problem in one file. Every field except `file` is optional; the message is built from them. */
export interface ConfigProblem {
  /** The file's path as given (usually absolute, under the home directory). */
  file: string;
  /** Dotted key, e.g. `api.address` or `consensus_params.block.max_bytes`. */
  key?: string;
  /** 1-based line and column, for syntax errors. */
  line?: number;
  column?: number;
  /** What a valid value looks like, e.g. `a non-negative integer`. */
  expected?: string;
  /** The offending value as written (already described, see describeValue). */
  got?: string;
  /** Free text when `expected`/`got` do not fit (e.g. a syntax error's reason). */
  reason?: string;
}

/** Renders one problem as `<file>: <key>: expected <x>, got <y>` (or the closest shape that fits). */
export function formatProblem(problem: ConfigProblem): string {
  let text = problem.file;
  if (problem.line !== undefined) {
    text += `: line ${problem.line}`;
    if (problem.column !== undefined) text += `, column ${problem.column}`;
  }
  if (problem.key !== undefined && problem.key !== "") text += `: ${problem.key}`;
  if (problem.expected !== undefined) {
    text += `: expected ${problem.expected}`;
    text += problem.got === undefined ? ", but the key is missing" : `, got ${problem.got}`;
    if (problem.reason !== undefined) text += ` (${problem.reason})`;
  } else if (problem.reason !== undefined) {
    text += `: ${problem.reason}`;
  }
  return text;
}

/**
 * A file under the home directory is missing, malformed or holds a bad value. The message lists every
 * problem found, one per line, each naming the file, the key and what was expected.
 *
 * @example
 * try { await loadAppConfig(home) } catch (e) { if (e instanceof ConfigError) console.error(e.message) }
 */
export class ConfigError extends UserError {
  override readonly name = "ConfigError";
  readonly code: ConfigErrorCode;
  readonly problems: readonly ConfigProblem[];

  constructor(
    problems: ConfigProblem | readonly ConfigProblem[],
    options?: { code?: ConfigErrorCode; cause?: unknown },
  ) {
    const list = Array.isArray(problems) ? [...problems] : [problems as ConfigProblem];
    super(list.map(formatProblem).join("\n"), options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = options?.code ?? "CONFIG_INVALID";
    this.problems = list;
  }

  /** The file of the first problem (every problem of one load names the same file). */
  get file(): string {
    return this.problems[0]?.file ?? "";
  }
}

/** Describes a parsed TOML/JSON value the way the operator wrote it, for the `got` part of a message. */
export function describeValue(value: unknown, objectWord = "a table"): string {
  const text = describeInner(value, 0, objectWord);
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}

function describeInner(value: unknown, depth: number, objectWord: string): string {
  if (value === undefined) return "nothing";
  if (value === null) return "null";
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number" || typeof value === "bigint" || typeof value === "boolean") return String(value);
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? "an invalid date" : value.toISOString();
  if (Array.isArray(value)) {
    if (depth > 1) return "[...]";
    return `[${value.map((item) => describeInner(item, depth + 1, objectWord)).join(", ")}]`;
  }
  if (typeof value === "object") return objectWord;
  return String(value);
}

/** The ConfigError for a file that cannot be read (missing, a directory, no permission). */
export function unreadableFileError(file: string, error: unknown, hint?: string): ConfigError {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  let reason = code === "ENOENT" ? "file not found" : `cannot read the file (${code ?? String(error)})`;
  if (hint !== undefined) reason += `; ${hint}`;
  return new ConfigError({ file, reason }, { code: "CONFIG_UNREADABLE", cause: error });
}
