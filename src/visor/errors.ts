/** Options shared by every chainvisor error: extra lines for the operator and the underlying cause. */
export interface VisorErrorOptions {
  details?: string[];
  cause?: unknown;
}

/** An error chainvisor reports to the operator; `details` are extra lines that say what to do about it. */
export class VisorError extends Error {
  readonly details: string[];

  constructor(message: string, options: VisorErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "VisorError";
    this.details = options.details ?? [];
  }
}

/** Every configuration problem found at once, one per line (cosmovisor joins its errors the same way). */
export class VisorConfigError extends VisorError {
  readonly problems: string[];

  constructor(problems: string[]) {
    super(problems.join("\n"));
    this.name = "VisorConfigError";
    this.problems = problems;
  }
}

/** The message of any thrown value, for log lines. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}

/** The errno code of a Node.js system error, or undefined. */
export function errorCode(error: unknown): string | undefined {
  if (typeof error === "object" && error !== null && "code" in error) {
    const code = (error as { code: unknown }).code;
    return typeof code === "string" ? code : undefined;
  }
  return undefined;
}

/**
 * Renders a file-system error the way Go prints an *os.PathError (`stat /x: no such file or directory`), because
 * cosmovisor's messages embed that form and operators grep for it. Node's own text is `ENOENT: no such file or
 * directory, stat '/x'`; the description sits between the code and the syscall.
 */
export function goPathError(op: string, path: string, error: unknown): string {
  const message = errorMessage(error);
  const match = /^[A-Z0-9]+: (.*?), \w+ '.*'$/s.exec(message);
  return `${op} ${path}: ${match ? match[1] : message}`;
}

/**
 * The full text of an error for the operator: the message, then its detail lines, indented.
 */
export function describeError(error: unknown): string {
  const lines = [errorMessage(error)];
  if (error instanceof VisorError) lines.push(...error.details.map((detail) => `  ${detail}`));
  return lines.join("\n");
}
