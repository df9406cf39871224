// The one YAML printer (`-o text` of every command, key output): JSON converted to YAML the way upstream's CLI
// prints it (sequences inside mappings not indented, strings quoted when they would read back as another type,
// keys sorted unless the caller keeps the JSON order).
import type { JsonValue } from "@bufbuild/protobuf";

/** Options of {@link toYaml}. */
export interface YamlOptions {
  /** Sort mapping keys (upstream's JSON-to-YAML does); false keeps the JSON order. Default true. */
  sortKeys?: boolean;
}

/**
 * YAML of a JSON value (anything else is first passed through JSON, as `JSON.stringify` sees it).
 *
 * @example toYaml({ module_versions: [{ name: "auth", version: "1" }] })
 *   // 'module_versions:\n- name: auth\n  version: "1"\n'
 */
export function toYaml(input: unknown, options: YamlOptions = {}): string {
  const value = JSON.parse(JSON.stringify(input ?? null)) as JsonValue;
  const sort = options.sortKeys ?? true;
  if (isMapping(value)) return mappingLines(value, "", sort).join("\n") + (Object.keys(value).length > 0 ? "\n" : "");
  if (Array.isArray(value)) return `${sequenceLines(value, "", sort).join("\n")}${value.length > 0 ? "\n" : ""}`;
  return `${yamlScalar(value)}\n`;
}

function isMapping(value: JsonValue): value is { [key: string]: JsonValue } {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function mappingLines(map: { [key: string]: JsonValue }, indent: string, sort: boolean): string[] {
  const keys = sort ? Object.keys(map).sort() : Object.keys(map);
  if (keys.length === 0) return [`${indent}{}`];
  const lines: string[] = [];
  for (const key of keys) {
    const value = map[key];
    const head = `${indent}${yamlString(key)}:`;
    if (isMapping(value) && Object.keys(value).length > 0) {
      lines.push(head, ...mappingLines(value, `${indent}  `, sort));
    } else if (Array.isArray(value) && value.length > 0) {
      lines.push(head, ...sequenceLines(value, indent, sort));
    } else {
      lines.push(`${head} ${inline(value)}`);
    }
  }
  return lines;
}

function sequenceLines(items: JsonValue[], indent: string, sort: boolean): string[] {
  const lines: string[] = [];
  for (const item of items) {
    if ((isMapping(item) && Object.keys(item).length > 0) || (Array.isArray(item) && item.length > 0)) {
      const nested = isMapping(item)
        ? mappingLines(item, `${indent}  `, sort)
        : sequenceLines(item, `${indent}  `, sort);
      lines.push(`${indent}- ${nested[0].slice(indent.length + 2)}`, ...nested.slice(1));
    } else {
      lines.push(`${indent}- ${inline(item)}`);
    }
  }
  return lines;
}

function inline(value: JsonValue): string {
  if (isMapping(value)) return "{}";
  if (Array.isArray(value)) return "[]";
  return yamlScalar(value);
}

function yamlScalar(value: null | boolean | number | string): string {
  if (value === null) return "null";
  if (typeof value === "string") return yamlString(value);
  return String(value);
}

// Plain scalars that YAML 1.1 would read as null, a boolean, a number or a timestamp.
const NON_STRING =
  /^(?:~|null|Null|NULL|y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF|[-+]?(?:\.[0-9]+|[0-9][0-9_]*(?:\.[0-9_]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?0x[0-9a-fA-F_]+|[-+]?0b[01_]+|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)|\d{4}-\d\d?-\d\d?(?:(?:[Tt]|[ \t]+)\d\d?:\d\d:\d\d(?:\.\d*)?(?:[ \t]*(?:Z|[-+]\d\d?(?::\d\d)?))?)?)$/;

/** A YAML string scalar: plain when safe, double-quoted when it would read as another type, else single-quoted. */
export function yamlString(text: string): string {
  if (text === "" || NON_STRING.test(text)) return JSON.stringify(text);
  if (/[\u0000-\u001f\u007f\u2028\u2029]/.test(text)) return JSON.stringify(text);
  const plain =
    !/^[\s\-?:,[\]{}#&*!|>'"%@`]/.test(text) &&
    !/\s$/.test(text) &&
    !text.includes(": ") &&
    !text.includes(" #") &&
    !text.endsWith(":");
  if (plain) return text;
  return `'${text.replace(/'/g, "''")}'`;
}
