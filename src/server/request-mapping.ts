// Filling a request message from path variables and query parameters (docs/CONTRACT.md §7): nested fields by
// dot notation (`pagination.limit`), repeated fields by repetition (`denoms=a&denoms=b`), proto or
// lowerCamel names, 64-bit integers and enums by name or number, bytes as standard or URL-safe
// base64. Unknown keys are ignored, as upstream's gateway does; a value that does not fit its field
// is a 400 naming the parameter, the expected form and what was sent.
import {
  create,
  type DescEnum,
  type DescField,
  type DescMessage,
  fromJson,
  type Message,
  ScalarType,
} from "@bufbuild/protobuf";
import { base64Decode } from "@bufbuild/protobuf/wire";
import { GrpcCode } from "../app/errors.ts";
import { RequestError } from "./status.ts";

type Fields = Record<string, unknown>;

/**
 * Sets the dotted field `name` of `message` (of type `desc`) from its text values: the first value
 * for a singular field, all of them for a repeated one. Unknown names are ignored when `lenient`
 * (query parameters) and an error otherwise (path variables are checked when routes are derived).
 *
 * @example setFieldFromText(QueryAllBalancesRequestSchema, request, "pagination.limit", ["5"], true)
 */
export function setFieldFromText(
  desc: DescMessage,
  message: Message,
  name: string,
  values: readonly string[],
  lenient: boolean,
): void {
  const names = name.split(".");
  let current = message as unknown as Fields;
  let currentDesc = desc;
  for (let index = 0; index < names.length; index++) {
    const field = findField(currentDesc, names[index]);
    if (field === undefined) {
      if (lenient) return;
      throw badRequest(`parameter "${name}": ${currentDesc.typeName} has no field "${names[index]}"`);
    }
    const last = index === names.length - 1;
    if (last) {
      assign(current, field, name, values);
      return;
    }
    if (field.fieldKind !== "message") {
      throw badRequest(
        `parameter "${name}": "${names.slice(0, index + 1).join(".")}" is not a message, so it has no field "${names[index + 1]}"`,
      );
    }
    current = childMessage(current, field);
    currentDesc = field.message;
  }
}

/**
 * Applies query parameters to `message`, skipping the fields in `exclude` (bound by the path, so a
 * query parameter cannot override them).
 */
export function applyQueryParameters(
  desc: DescMessage,
  message: Message,
  query: URLSearchParams,
  exclude: ReadonlySet<string>,
): void {
  for (const key of new Set(query.keys())) {
    if (exclude.has(key) || exclude.has(protoNameOf(desc, key))) continue;
    setFieldFromText(desc, message, key, query.getAll(key), true);
  }
}

// A lowerCamel key (`countTotal`) names the same field as its proto name; path exclusions are by
// proto name, so translate the key's last part for the check.
function protoNameOf(desc: DescMessage, key: string): string {
  const names = key.split(".");
  let current: DescMessage | undefined = desc;
  const out: string[] = [];
  for (const name of names) {
    const field: DescField | undefined = current === undefined ? undefined : findField(current, name);
    out.push(field?.name ?? name);
    current = field?.fieldKind === "message" ? field.message : undefined;
  }
  return out.join(".");
}

function findField(desc: DescMessage, name: string): DescField | undefined {
  return desc.fields.find((field) => field.name === name || field.jsonName === name);
}

function childMessage(parent: Fields, field: DescField & { fieldKind: "message" }): Fields {
  if (field.oneof !== undefined) {
    const selected = parent[field.oneof.localName] as { case: string | undefined; value?: unknown };
    if (selected.case === field.localName) return selected.value as Fields;
    const value = create(field.message) as unknown as Fields;
    parent[field.oneof.localName] = { case: field.localName, value };
    return value;
  }
  const existing = parent[field.localName] as Fields | undefined;
  if (existing !== undefined) return existing;
  const value = create(field.message) as unknown as Fields;
  parent[field.localName] = value;
  return value;
}

function assign(target: Fields, field: DescField, name: string, values: readonly string[]): void {
  const first = values[0] ?? "";
  switch (field.fieldKind) {
    case "scalar":
      setSingular(target, field, parseScalar(field.scalar, first, name));
      return;
    case "enum":
      setSingular(target, field, parseEnum(field.enum, first, name));
      return;
    case "list":
      if (field.listKind === "scalar") {
        target[field.localName] = values.map((value) => parseScalar(field.scalar, value, name));
        return;
      }
      if (field.listKind === "enum") {
        target[field.localName] = values.map((value) => parseEnum(field.enum, value, name));
        return;
      }
      throw badRequest(`parameter "${name}": a repeated message field cannot be set from a query parameter`);
    case "message":
      setSingular(target, field, parseWellKnown(field.message, first, name));
      return;
    case "map":
      throw badRequest(`parameter "${name}": a map field cannot be set from a query parameter`);
  }
}

function setSingular(target: Fields, field: DescField, value: unknown): void {
  if (field.oneof !== undefined) target[field.oneof.localName] = { case: field.localName, value };
  else target[field.localName] = value;
}

// Only well-known types with a text form can take a single value; other messages are set field by field.
function parseWellKnown(desc: DescMessage, text: string, name: string): Message {
  const wellKnown: Record<string, (text: string) => unknown> = {
    "google.protobuf.Timestamp": (t) => t,
    "google.protobuf.Duration": (t) => t,
    "google.protobuf.StringValue": (t) => t,
    "google.protobuf.BoolValue": (t) => parseBool(t, name),
  };
  const toJsonValue = wellKnown[desc.typeName];
  if (toJsonValue === undefined) {
    const example = desc.fields[0]?.name ?? "field";
    throw badRequest(
      `parameter "${name}" is a ${desc.typeName} message: set its fields one by one, e.g. "${name}.${example}"`,
    );
  }
  try {
    return fromJson(desc, toJsonValue(text) as string);
  } catch {
    const form = desc.typeName === "google.protobuf.Timestamp" ? "an RFC 3339 time" : `a ${desc.typeName} in JSON form`;
    throw badRequest(`invalid value for parameter "${name}": expected ${form}, got "${text}"`);
  }
}

const INT = /^[+-]?[0-9]+$/;
const UINT = /^\+?[0-9]+$/;
const INT32_RANGE = [-(2n ** 31n), 2n ** 31n - 1n] as const;
const UINT32_RANGE = [0n, 2n ** 32n - 1n] as const;
const INT64_RANGE = [-(2n ** 63n), 2n ** 63n - 1n] as const;
const UINT64_RANGE = [0n, 2n ** 64n - 1n] as const;

function parseScalar(type: ScalarType, text: string, name: string): unknown {
  switch (type) {
    case ScalarType.STRING:
      return text;
    case ScalarType.BOOL:
      return parseBool(text, name);
    case ScalarType.INT32:
    case ScalarType.SINT32:
    case ScalarType.SFIXED32:
      return Number(parseInteger(text, name, INT, INT32_RANGE, "a 32-bit integer"));
    case ScalarType.UINT32:
    case ScalarType.FIXED32:
      return Number(parseInteger(text, name, UINT, UINT32_RANGE, "an unsigned 32-bit integer"));
    case ScalarType.INT64:
    case ScalarType.SINT64:
    case ScalarType.SFIXED64:
      return parseInteger(text, name, INT, INT64_RANGE, "a 64-bit integer");
    case ScalarType.UINT64:
    case ScalarType.FIXED64:
      return parseInteger(text, name, UINT, UINT64_RANGE, "an unsigned 64-bit integer");
    case ScalarType.FLOAT:
    case ScalarType.DOUBLE: {
      const value = Number(text);
      if (text.trim() === "" || Number.isNaN(value)) {
        if (text === "NaN") return Number.NaN;
        throw badRequest(`invalid value for parameter "${name}": expected a number, got "${text}"`);
      }
      return value;
    }
    case ScalarType.BYTES:
      return parseBytes(text, name);
  }
}

function parseInteger(
  text: string,
  name: string,
  form: RegExp,
  [min, max]: readonly [bigint, bigint],
  expected: string,
): bigint {
  if (!form.test(text)) throw badRequest(`invalid value for parameter "${name}": expected ${expected}, got "${text}"`);
  const value = BigInt(text);
  if (value < min || value > max) {
    throw badRequest(
      `invalid value for parameter "${name}": ${text} is out of range for ${expected} (${min} to ${max})`,
    );
  }
  return value;
}

const TRUE = new Set(["true", "True", "TRUE", "t", "T", "1"]);
const FALSE = new Set(["false", "False", "FALSE", "f", "F", "0"]);

function parseBool(text: string, name: string): boolean {
  if (TRUE.has(text)) return true;
  if (FALSE.has(text)) return false;
  throw badRequest(`invalid value for parameter "${name}": expected true or false, got "${text}"`);
}

function parseEnum(desc: DescEnum, text: string, name: string): number {
  const byName = desc.values.find((value) => value.name === text);
  if (byName !== undefined) return byName.number;
  if (/^[+-]?[0-9]+$/.test(text)) {
    const number = Number(text);
    if (desc.value[number] !== undefined) return number;
  }
  const names = desc.values.map((value) => value.name).join(", ");
  throw badRequest(`invalid value for parameter "${name}": expected one of ${names} (or its number), got "${text}"`);
}

const STD_BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const URL_BASE64 = /^[A-Za-z0-9_-]*={0,2}$/;

function parseBytes(text: string, name: string): Uint8Array {
  // A "+" that was not percent-encoded arrives as a space (form decoding); no base64 has spaces.
  const value = text.replaceAll(" ", "+");
  const padded = value.replace(/=+$/, "");
  if (padded.length % 4 === 1 || !(STD_BASE64.test(value) || URL_BASE64.test(value))) {
    throw badRequest(
      `invalid value for parameter "${name}": expected base64 (standard or URL-safe), got "${text}"; percent-encode "+", "/" and "=" in URLs`,
    );
  }
  return base64Decode(value);
}

function badRequest(message: string): RequestError {
  return new RequestError(GrpcCode.InvalidArgument, message);
}
