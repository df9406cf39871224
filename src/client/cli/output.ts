// Printing client-command results. `-o json` prints one line of JSON; `-o text` prints the same value as
// YAML with keys sorted alphabetically, the way upstream converts its JSON output to YAML, so both
// formats always show the same fields with the same values (64-bit integers stay quoted strings).
import type { DescMessage, JsonValue, Message, Registry } from "@bufbuild/protobuf";
import { gatewayJson } from "../../app/gateway-json.ts";
import { toYaml } from "../yaml.ts";
import type { OutputFormat } from "./flags.ts";

/** Where client commands write. */
export interface OutputStreams {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
}

/** Writes `value` to stdout in `format`. */
export function printValue(out: OutputStreams["stdout"], format: OutputFormat, value: JsonValue): void {
  out.write(formatValue(format, value));
}

/** The text `printValue` writes (with its trailing newline). */
export function formatValue(format: OutputFormat, value: JsonValue): string {
  return format === "json" ? `${JSON.stringify(value)}\n` : toYaml(sortKeys(value));
}

/**
 * A message as the CLI prints it: proto field names, every field present, 64-bit integers as strings,
 * unset messages `null`, Any with `@type` (the REST gateway's JSON, so both print alike).
 */
export function messageJson(schema: DescMessage, message: Message, registry: Registry): JsonValue {
  return gatewayJson(schema, message, registry);
}

/** A copy of `value` with every object's keys in alphabetical order (arrays keep their order). */
export function sortKeys(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== "object") return value;
  const sorted: { [key: string]: JsonValue } = {};
  for (const key of Object.keys(value).sort()) sorted[key] = sortKeys(value[key] as JsonValue);
  return sorted;
}
