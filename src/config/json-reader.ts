// Reading the JSON files of the home directory (genesis.json and the key files) with the same kind of
// errors as the TOML files: file, field path (`validators[0].pub_key.value`) and what was expected.
import { readFile } from "node:fs/promises";
import { ConfigError, type ConfigProblem, describeValue, unreadableFileError } from "./errors.ts";

/** Any JSON value. */
export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;
/** A JSON object. */
export type JsonObject = { [key: string]: JsonValue };

/** Parses JSON text; a syntax error becomes a ConfigError naming the file, line and column. */
export function parseJsonText(text: string, file: string): JsonValue {
  try {
    return JSON.parse(text) as JsonValue;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const problem: ConfigProblem = { file, reason: `invalid JSON: ${message.replace(/ in JSON at position.*$/, "")}` };
    const lineColumn = /\(line (\d+) column (\d+)\)/.exec(message);
    const position = /at position (\d+)/.exec(message);
    if (lineColumn !== null) {
      problem.line = Number(lineColumn[1]);
      problem.column = Number(lineColumn[2]);
    } else if (position !== null) {
      const before = text.slice(0, Number(position[1])).split("\n");
      problem.line = before.length;
      problem.column = before[before.length - 1].length + 1;
    } else if (text.trim() === "") {
      problem.reason = "invalid JSON: the file is empty";
    }
    throw new ConfigError(problem, { code: "CONFIG_SYNTAX", cause: error });
  }
}

/** Reads and parses a JSON file; missing or unreadable files are ConfigErrors naming the file. */
export async function readJsonFile(file: string, hint?: string): Promise<JsonValue> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw unreadableFileError(file, error, hint);
  }
  return parseJsonText(text, file);
}

/** True for a plain JSON object (not null, not an array). */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const HEX = /^(?:[0-9a-fA-F]{2})*$/;
const INTEGER_TEXT = /^-?[0-9]+$/;

/** Decodes standard (padded) base64 strictly; undefined when the text is not canonical base64. */
export function decodeBase64(text: string): Uint8Array | undefined {
  if (!BASE64.test(text)) return undefined;
  return new Uint8Array(Buffer.from(text, "base64"));
}

/** Decodes hex (either case); undefined when malformed. */
export function decodeHex(text: string): Uint8Array | undefined {
  if (!HEX.test(text)) return undefined;
  return new Uint8Array(Buffer.from(text, "hex"));
}

/**
 * Typed access to one parsed JSON document by field path (`a.b`, `items[2].c`). Each getter records
 * a problem and returns undefined when the value is absent or malformed; `finish()` throws one
 * ConfigError with every problem.
 */
export class JsonFieldReader {
  readonly file: string;
  readonly problems: ConfigProblem[] = [];
  private readonly root: JsonValue;

  constructor(file: string, root: JsonValue) {
    this.file = file;
    this.root = root;
  }

  /** Records a problem at `key` with the raw value found there. */
  problem(key: string, expected: string, got: unknown, reason?: string): void {
    const entry: ConfigProblem = { file: this.file, key, expected };
    if (got !== undefined) entry.got = describeValue(got, "an object");
    if (reason !== undefined) entry.reason = reason;
    this.problems.push(entry);
  }

  /** The raw value at a path, or undefined when any step is missing. */
  get(key: string): JsonValue | undefined {
    let node: JsonValue | undefined = this.root;
    for (const step of parsePath(key)) {
      if (typeof step === "number") {
        if (!Array.isArray(node)) return undefined;
        node = node[step];
      } else {
        if (!isJsonObject(node)) return undefined;
        node = Object.hasOwn(node, step) ? node[step] : undefined;
      }
      if (node === undefined) return undefined;
    }
    return node;
  }

  /** An object at `key` (required). */
  object(key: string, expected = "an object"): JsonObject | undefined {
    const value = this.get(key);
    if (isJsonObject(value)) return value;
    this.problem(key, expected, value);
    return undefined;
  }

  /** A string at `key`. With `optional`, absence yields `fallback` without a problem. */
  string(key: string, options: { expected?: string; optional?: boolean; fallback?: string } = {}): string | undefined {
    const value = this.get(key);
    if (value === undefined && options.optional) return options.fallback;
    if (typeof value === "string") return value;
    this.problem(key, options.expected ?? "a string", value);
    return undefined;
  }

  /**
   * A 64-bit integer written as a string (CometBFT's form) or as a JSON number small enough to be
   * exact. Bounds from `min`/`max`.
   */
  int64(
    key: string,
    options: { expected: string; min?: bigint; max?: bigint; optional?: boolean; fallback?: bigint },
  ): bigint | undefined {
    const value = this.get(key);
    if (value === undefined && options.optional) return options.fallback;
    let parsed: bigint | undefined;
    let reason: string | undefined;
    if (typeof value === "string" && INTEGER_TEXT.test(value)) parsed = BigInt(value);
    else if (typeof value === "number" && Number.isSafeInteger(value)) parsed = BigInt(value);
    else if (typeof value === "number" && Number.isInteger(value)) reason = "write large numbers as strings";
    const limit = 1n << 63n;
    if (parsed !== undefined && (parsed >= limit || parsed < -limit)) {
      parsed = undefined;
      reason = "outside the 64-bit range";
    }
    if (
      parsed === undefined ||
      (options.min !== undefined && parsed < options.min) ||
      (options.max !== undefined && parsed > options.max)
    ) {
      this.problem(key, options.expected, value, reason);
      return undefined;
    }
    return parsed;
  }

  /** A JSON number that is an integer within [min, max] (CometBFT's int32/int8 fields). */
  smallInt(key: string, options: { expected: string; min: number; max: number }): number | undefined {
    const value = this.get(key);
    if (typeof value === "number" && Number.isInteger(value) && value >= options.min && value <= options.max) {
      return value;
    }
    this.problem(key, options.expected, value);
    return undefined;
  }

  /** Base64 bytes, optionally of an exact length. */
  base64(key: string, options: { expected: string; length?: number }): Uint8Array | undefined {
    const value = this.get(key);
    const bytes = typeof value === "string" ? decodeBase64(value) : undefined;
    if (bytes === undefined || (options.length !== undefined && bytes.length !== options.length)) {
      const reason =
        bytes !== undefined && options.length !== undefined
          ? `decodes to ${bytes.length} bytes, not ${options.length}`
          : undefined;
      this.problem(key, options.expected, value, reason);
      return undefined;
    }
    return bytes;
  }

  /** Hex bytes, optionally of an exact length. With `optional`, absence yields an empty array. */
  hex(key: string, options: { expected: string; length?: number; optional?: boolean }): Uint8Array | undefined {
    const value = this.get(key);
    if (value === undefined && options.optional) return new Uint8Array(0);
    const bytes = typeof value === "string" ? decodeHex(value) : undefined;
    if (bytes === undefined || (options.length !== undefined && bytes.length !== options.length)) {
      this.problem(key, options.expected, value);
      return undefined;
    }
    return bytes;
  }

  /** Throws one ConfigError listing every recorded problem; does nothing when there is none. */
  finish(): void {
    if (this.problems.length > 0) throw new ConfigError(this.problems, { code: "CONFIG_INVALID" });
  }
}

function parsePath(key: string): (string | number)[] {
  const steps: (string | number)[] = [];
  for (const part of key.split(".")) {
    const match = /^([^[]*)((?:\[\d+\])*)$/.exec(part);
    if (match === null) {
      steps.push(part);
      continue;
    }
    if (match[1] !== "") steps.push(match[1]);
    for (const index of match[2].matchAll(/\[(\d+)\]/g)) steps.push(Number(index[1]));
  }
  return steps;
}
