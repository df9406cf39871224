// Reading a TOML config file into typed values with errors an operator can act on: syntax errors
// carry the line, every bad value names the file, the dotted key and what was expected. Problems are
// collected rather than thrown one at a time, so a single run reports everything that is wrong.
import { parse, TomlError } from "smol-toml";
import { DURATION_EXPECTED, parseDurationNanos } from "./duration.ts";
import { ConfigError, type ConfigProblem, describeValue, unreadableFileError } from "./errors.ts";
import { type ListenAddress, parseListenAddress, SCHEME_ADDRESS_EXPECTED } from "./listen-address.ts";

/** A parsed TOML document (integers as bigint, floats as number). */
export type TomlTree = Record<string, unknown>;

/** Parses TOML text; a syntax error becomes a ConfigError naming the file, line and column. */
export function parseTomlText(text: string, file: string): TomlTree {
  try {
    return parse(text, { integersAsBigInt: true }) as TomlTree;
  } catch (error) {
    if (error instanceof TomlError) {
      const reason = error.message.split("\n")[0].replace(/^Invalid TOML document:\s*/, "");
      throw new ConfigError(
        { file, line: error.line, column: error.column, reason: `invalid TOML syntax: ${reason}` },
        { code: "CONFIG_SYNTAX", cause: error },
      );
    }
    throw error;
  }
}

/** Reads and parses a TOML file; a missing or unreadable file is a ConfigError naming it. */
export async function readTomlFile(file: string, hint?: string): Promise<{ text: string; tree: TomlTree }> {
  let text: string;
  try {
    // Looked up here, not imported: node:fs/promises loads ~10 built-in modules (readline among them) that a
    // client command reading only config.toml's rpc.laddr (synchronously) never needs.
    text = await process.getBuiltinModule("node:fs/promises").readFile(file, "utf8");
  } catch (error) {
    throw unreadableFileError(file, error, hint);
  }
  return { text, tree: parseTomlText(text, file) };
}

function isTable(value: unknown): value is TomlTree {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

/** How a TOML value is shown in a message: floats keep a decimal point so `1.0` does not read as `1`. */
function describeToml(value: unknown): string {
  if (typeof value === "number" && Number.isInteger(value)) return value.toFixed(1);
  return describeValue(value);
}

const EXPECTED_BOOLEAN = "true or false";
const EXPECTED_STRING = "a string";
const EXPECTED_STRINGS = "a list of strings";

/** Integer bounds and wording for {@link TomlFieldReader.integer}. */
export interface IntegerRule {
  min?: bigint;
  max?: bigint;
  /** Overrides the generated `expected` text. */
  expected?: string;
}

/**
 * Typed access to one parsed TOML file. Each getter returns the value at a dotted key, or the given
 * default when the key is absent (as upstream does: a missing key keeps its default). A present value
 * of the wrong shape records a problem and yields the default, so later keys are still checked;
 * `finish()` throws one ConfigError listing them all.
 */
export class TomlFieldReader {
  readonly file: string;
  readonly problems: ConfigProblem[] = [];
  private readonly tree: TomlTree;
  private readonly seen = new Set<string>();
  private readonly badParents = new Set<string>();

  constructor(file: string, tree: TomlTree) {
    this.file = file;
    this.tree = tree;
  }

  /** Records a problem at `key`. `got` is the raw value (described for the message). */
  problem(key: string, expected: string, got: unknown, reason?: string): void {
    const entry: ConfigProblem = { file: this.file, key, expected, got: describeToml(got) };
    if (reason !== undefined) entry.reason = reason;
    this.problems.push(entry);
  }

  /** The raw value at a dotted key (undefined when absent), marking the key as known. */
  raw(key: string): unknown {
    this.seen.add(key);
    const parts = key.split(".");
    let node: unknown = this.tree;
    for (let i = 0; i < parts.length; i++) {
      if (!isTable(node)) {
        const parent = parts.slice(0, i).join(".");
        if (!this.badParents.has(parent)) {
          this.badParents.add(parent);
          this.problem(parent, `a table ([${parent}] section)`, node);
        }
        return undefined;
      }
      node = node[parts[i]];
      if (node === undefined) return undefined;
    }
    return node;
  }

  /** A string value. `nonEmpty` rejects "". */
  string(key: string, fallback: string, options?: { nonEmpty?: boolean; expected?: string }): string {
    const value = this.raw(key);
    if (value === undefined) return fallback;
    const expected = options?.expected ?? (options?.nonEmpty ? "a non-empty string" : EXPECTED_STRING);
    if (typeof value !== "string" || (options?.nonEmpty && value.trim() === "")) {
      this.problem(key, expected, value);
      return fallback;
    }
    return value;
  }

  /** A string that must be one of `allowed`. */
  oneOf<T extends string>(key: string, allowed: readonly T[], fallback: T): T {
    const value = this.raw(key);
    if (value === undefined) return fallback;
    if (typeof value !== "string" || !(allowed as readonly string[]).includes(value)) {
      this.problem(key, `one of ${allowed.map((a) => JSON.stringify(a)).join(", ")}`, value);
      return fallback;
    }
    return value as T;
  }

  /** A boolean (TOML true/false only; strings like "true" are refused, as they are a typo upstream too). */
  boolean(key: string, fallback: boolean): boolean {
    const value = this.raw(key);
    if (value === undefined) return fallback;
    if (typeof value !== "boolean") {
      this.problem(key, EXPECTED_BOOLEAN, value);
      return fallback;
    }
    return value;
  }

  /**
   * An integer, written either as a TOML integer or as a string of digits (upstream writes several
   * numbers as strings, e.g. `pruning-keep-recent = "0"`). Bounds from `rule`.
   */
  integer(key: string, fallback: bigint, rule: IntegerRule = {}): bigint {
    const value = this.raw(key);
    if (value === undefined) return fallback;
    const expected = rule.expected ?? integerExpected(rule);
    let parsed: bigint | undefined;
    if (typeof value === "bigint") parsed = value;
    else if (typeof value === "string" && /^[+-]?[0-9]+$/.test(value.trim())) parsed = BigInt(value.trim());
    if (parsed === undefined || (rule.min !== undefined && parsed < rule.min)) {
      this.problem(key, expected, value);
      return fallback;
    }
    if (rule.max !== undefined && parsed > rule.max) {
      // The generic wording ("a non-negative integer") does not say why a huge value fails.
      this.problem(key, expected, value, `the largest allowed value is ${rule.max}`);
      return fallback;
    }
    return parsed;
  }

  /** A non-negative integer that fits a JS number (counts, byte sizes, ports). */
  count(key: string, fallback: number, rule: { min?: number; max?: number; expected?: string } = {}): number {
    const integerRule: IntegerRule = {
      min: BigInt(rule.min ?? 0),
      max: BigInt(rule.max ?? Number.MAX_SAFE_INTEGER),
    };
    if (rule.expected !== undefined) integerRule.expected = rule.expected;
    return Number(this.integer(key, BigInt(fallback), integerRule));
  }

  /** A list of strings. */
  stringList(key: string, fallback: readonly string[]): string[] {
    const value = this.raw(key);
    if (value === undefined) return [...fallback];
    if (!Array.isArray(value) || !value.every((item) => typeof item === "string")) {
      this.problem(key, EXPECTED_STRINGS, value);
      return [...fallback];
    }
    return value as string[];
  }

  /** A Go-style duration string ("1s", "500ms"), returned in milliseconds; negative values refused. */
  durationMs(key: string, fallbackMs: number): number {
    const value = this.raw(key);
    if (value === undefined) return fallbackMs;
    const nanos = typeof value === "string" ? parseDurationNanos(value.trim()) : undefined;
    if (nanos === undefined || nanos < 0n) {
      this.problem(key, nanos === undefined ? DURATION_EXPECTED : "a duration that is not negative", value);
      return fallbackMs;
    }
    return Number(nanos) / 1e6;
  }

  /** Leaf keys present in the file but never read, minus `ignored` (exact keys, or prefixes ending in "."). */
  unknownKeys(ignored: readonly string[] = []): string[] {
    const out: string[] = [];
    const visit = (node: TomlTree, prefix: string): void => {
      for (const [name, value] of Object.entries(node)) {
        const key = prefix === "" ? name : `${prefix}.${name}`;
        if (isTable(value) && !this.seen.has(key)) {
          visit(value, key);
          continue;
        }
        if (this.seen.has(key)) continue;
        if (ignored.some((rule) => (rule.endsWith(".") ? key.startsWith(rule) : key === rule))) continue;
        out.push(key);
      }
    };
    visit(this.tree, "");
    return out.sort();
  }

  /** Throws one ConfigError listing every recorded problem; does nothing when there is none. */
  finish(): void {
    if (this.problems.length > 0) throw new ConfigError(this.problems, { code: "CONFIG_INVALID" });
  }
}

function integerExpected(rule: IntegerRule): string {
  if (rule.min === 0n && (rule.max === undefined || rule.max >= BigInt(Number.MAX_SAFE_INTEGER))) {
    return "a non-negative integer";
  }
  if (rule.min === 1n && (rule.max === undefined || rule.max >= BigInt(Number.MAX_SAFE_INTEGER))) {
    return "a positive integer";
  }
  if (rule.min !== undefined && rule.max !== undefined) return `an integer from ${rule.min} to ${rule.max}`;
  if (rule.min !== undefined) return `an integer of at least ${rule.min}`;
  if (rule.max !== undefined) return `an integer of at most ${rule.max}`;
  return "an integer";
}

/** Reads a `tcp://host:port` / `unix:///path` key (api.address, rpc.laddr, p2p.laddr). */
export function readSchemeAddress(read: TomlFieldReader, key: string, fallback: string): ListenAddress {
  const text = read.string(key, fallback);
  const parsed = parseListenAddress(text);
  if (parsed !== undefined) return parsed;
  read.problem(key, SCHEME_ADDRESS_EXPECTED, text);
  return parseListenAddress(fallback) as ListenAddress;
}
