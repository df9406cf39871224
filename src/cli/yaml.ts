// Text output of the CLI: upstream prints query results as YAML converted from their JSON form,
// so `-o text` (the default) and `-o json` always show the same fields with the same values.
import { yamlScalar } from "../client/keyring/key-output.ts";

// A string that a YAML reader would take for a number, boolean, null or timestamp is written
// double-quoted (as upstream's YAML encoder does: `height: "130"`); other strings are plain when
// safe and single-quoted otherwise.
const NON_STRING =
  /^(?:|~|null|true|false|yes|no|on|off|y|n|[-+]?(?:\d[\d_]*)?\.?\d[\d_]*(?:[eE][-+]?\d+)?|0x[0-9a-fA-F]+|\d{4}-\d\d-\d\d(?:[Tt ].*)?)$/i;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Renders a JSON value as block-style YAML (keys in their JSON order), ending with a newline. */
export function toYaml(value: unknown): string {
  const json = JSON.parse(JSON.stringify(value ?? null)) as Json;
  if (isScalar(json)) return `${scalar(json)}\n`;
  return render(json, 0).join("\n") + "\n";
}

function isScalar(value: Json): value is null | boolean | number | string {
  return value === null || typeof value !== "object";
}

function scalar(value: null | boolean | number | string): string {
  if (value === null) return "null";
  if (typeof value === "string") return NON_STRING.test(value) ? JSON.stringify(value) : yamlScalar(value);
  return String(value);
}

function render(value: Json, indent: number): string[] {
  const pad = " ".repeat(indent);
  if (Array.isArray(value)) {
    if (value.length === 0) return [`${pad}[]`];
    const lines: string[] = [];
    for (const item of value) {
      if (isScalar(item) || isEmpty(item)) {
        lines.push(`${pad}- ${isScalar(item) ? scalar(item) : emptyOf(item)}`);
        continue;
      }
      const inner = render(item, indent + 2);
      lines.push(`${pad}- ${inner[0].trimStart()}`, ...inner.slice(1));
    }
    return lines;
  }
  const object = value as { [key: string]: Json };
  const keys = Object.keys(object);
  if (keys.length === 0) return [`${pad}{}`];
  const lines: string[] = [];
  for (const key of keys) {
    const item = object[key];
    const name = yamlScalar(key);
    if (isScalar(item)) lines.push(`${pad}${name}: ${scalar(item)}`);
    else if (isEmpty(item)) lines.push(`${pad}${name}: ${emptyOf(item)}`);
    else if (Array.isArray(item)) lines.push(`${pad}${name}:`, ...render(item, indent));
    else lines.push(`${pad}${name}:`, ...render(item, indent + 2));
  }
  return lines;
}

function isEmpty(value: Json): boolean {
  return Array.isArray(value)
    ? value.length === 0
    : typeof value === "object" && value !== null && Object.keys(value).length === 0;
}

function emptyOf(value: Json): string {
  return Array.isArray(value) ? "[]" : "{}";
}
