// Compares one of our messages, field by field, with the object cosmjs-types decoded from our bytes.
// Identical re-encoded bytes alone cannot tell two swapped fields of the same type apart; reading
// every value back under its upstream name can.
import type { DescField, DescMessage, Message } from "@bufbuild/protobuf";
import { protoCamelCase } from "@bufbuild/protobuf/reflect";
import { decimalToWire, legacyDecFields } from "../../src/app/wire-decimals.ts";

type Plain = Record<string, unknown>;

/**
 * The property name cosmjs-types uses for a field: the lowerCamelCase of the proto name. This is
 * the default JSON name; it differs from `jsonName` only where a schema sets `json_name` (CometBFT
 * does, e.g. `gas_wanted`), which cosmjs-types ignores.
 */
export function cosmjsFieldName(field: DescField): string {
  return protoCamelCase(field.name);
}

function isPlain(value: unknown): value is Plain {
  return typeof value === "object" && value !== null && !(value instanceof Uint8Array) && !Array.isArray(value);
}

function sameScalar(ours: unknown, theirs: unknown): boolean {
  if (ours instanceof Uint8Array && theirs instanceof Uint8Array) {
    return ours.length === theirs.length && ours.every((b, i) => b === theirs[i]);
  }
  return ours === theirs;
}

function show(value: unknown): string {
  if (value instanceof Uint8Array) return `bytes[${Array.from(value).join(",")}]`;
  if (typeof value === "bigint") return `${value}n`;
  return JSON.stringify(value) ?? String(value);
}

function compareValue(
  field: DescField,
  kind: "scalar" | "enum" | "message",
  ours: unknown,
  theirs: unknown,
  at: string,
  out: string[],
): void {
  if (kind === "message") {
    const desc = field.message;
    if (desc === undefined || !isPlain(theirs)) {
      out.push(`${at}: cosmjs-types decoded ${show(theirs)}, expected a message`);
      return;
    }
    compareMessage(desc, ours as Message, theirs, at, out);
    return;
  }
  // A LegacyDec is decimal text in our messages and upstream's scaled integer in cosmjs-types' (its binary form).
  if (kind === "scalar" && legacyDecFields(field.parent).includes(field)) {
    const expected = decimalToWire(ours as string);
    if (theirs !== expected) {
      out.push(`${at}: LegacyDec ${show(ours)} should decode as ${show(expected)}, cosmjs-types ${show(theirs)}`);
    }
    return;
  }
  if (!sameScalar(ours, theirs)) out.push(`${at}: ours ${show(ours)}, cosmjs-types ${show(theirs)}`);
}

function elementKind(field: DescField): "scalar" | "enum" | "message" {
  if (field.fieldKind === "list") return field.listKind;
  if (field.fieldKind === "map") return field.mapKind;
  return field.fieldKind;
}

/**
 * Appends to `out` one line per difference between our message and cosmjs-types' decoded object:
 * a field cosmjs-types does not know under our JSON name, or a value that came back different.
 */
export function compareMessage(desc: DescMessage, ours: Message, theirs: Plain, at: string, out: string[]): void {
  const values = ours as unknown as Plain;
  for (const field of desc.fields) {
    const name = cosmjsFieldName(field);
    const path = `${at}.${name}`;
    if (!(name in theirs)) {
      out.push(`${path}: cosmjs-types has no field of this name (field ${field.number})`);
      continue;
    }
    const theirValue = theirs[name];
    let ourValue: unknown;
    if (field.oneof !== undefined) {
      const selected = values[field.oneof.localName] as { case?: string; value?: unknown };
      ourValue = selected.case === field.localName ? selected.value : undefined;
    } else {
      ourValue = values[field.localName];
    }
    const kind = elementKind(field);
    if (field.fieldKind === "list") {
      const ourList = ourValue as unknown[];
      if (!Array.isArray(theirValue) || theirValue.length !== ourList.length) {
        out.push(`${path}: ours has ${ourList.length} elements, cosmjs-types decoded ${show(theirValue)}`);
        continue;
      }
      for (let i = 0; i < ourList.length; i++)
        compareValue(field, kind, ourList[i], theirValue[i], `${path}[${i}]`, out);
    } else if (field.fieldKind === "map") {
      const ourMap = ourValue as Plain;
      const theirMap = isPlain(theirValue) ? theirValue : {};
      const keys = Object.keys(ourMap);
      if (Object.keys(theirMap).join() !== keys.join()) {
        out.push(`${path}: map keys differ: ours ${show(keys)}, cosmjs-types ${show(Object.keys(theirMap))}`);
        continue;
      }
      for (const key of keys) compareValue(field, kind, ourMap[key], theirMap[key], `${path}[${key}]`, out);
    } else if (ourValue === undefined) {
      if (theirValue !== undefined && field.fieldKind === "message") {
        out.push(`${path}: unset in ours, cosmjs-types decoded ${show(theirValue)}`);
      }
    } else {
      compareValue(field, kind, ourValue, theirValue, path, out);
    }
  }
}

/** JSON names present in cosmjs-types' decoded object but missing from our descriptor. */
export function extraCosmjsFields(desc: DescMessage, theirs: Plain): string[] {
  const ours = new Set(desc.fields.map(cosmjsFieldName));
  return Object.keys(theirs)
    .filter((k) => !ours.has(k))
    .sort();
}
