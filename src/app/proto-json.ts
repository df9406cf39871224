// Proto JSON the way Cosmos writes it: proto field names, every field present, Any as
// `{"@type":"/chain.bank.v1beta1.MsgSend",…}`. protobuf-es reads an Any's "@type" into the type URL
// `type.googleapis.com/<name>`; Cosmos type URLs are `/<name>`, and they are part of signed bytes, so
// `fromProtoJson` rewrites every Any (nested ones inside Any values too) to the `/<name>` form.

import {
  create,
  type DescMessage,
  fromBinary,
  fromJson,
  type JsonValue,
  type Message,
  type MessageShape,
  type Registry,
  toBinary,
  toJson,
} from "@bufbuild/protobuf";
import { convertAnyValues } from "./wire-decimals.ts";

const GOOGLE_PREFIX = "type.googleapis.com/";
const MAX_DEPTH = 32;

/** Reads proto JSON into a message, with Cosmos-style Any type URLs (`/<name>`). */
export function fromProtoJson<Desc extends DescMessage>(
  schema: Desc,
  json: JsonValue,
  registry?: Registry,
): MessageShape<Desc> {
  const message = fromJson(schema, json, registry === undefined ? undefined : { registry });
  normalizeAnyTypeUrls(schema, message, registry, 0);
  // fromJson packed Any values with decimal text; Any values always hold upstream's binary form.
  return registry === undefined ? message : convertAnyValues(schema, message, registry, "toWire");
}

/** Writes a message as Cosmos-style proto JSON: proto field names, defaults emitted. */
export function toProtoJson<Desc extends DescMessage>(
  schema: Desc,
  message: MessageShape<Desc>,
  registry?: Registry,
): JsonValue {
  // Any values hold upstream's binary form (LegacyDec as scaled integers); toJson must see decimal text.
  const printable = registry === undefined ? message : convertAnyValues(schema, message, registry, "fromWire");
  return typeFirst(toJson(schema, printable, { useProtoFieldName: true, alwaysEmitImplicit: true, registry }));
}

/** Puts every Any's "@type" first, where upstream's JSON (and people reading it) expect it. */
function typeFirst(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(typeFirst);
  if (value === null || typeof value !== "object") return value;
  const out: { [key: string]: JsonValue } = {};
  if ("@type" in value) out["@type"] = value["@type"] as JsonValue;
  for (const [key, item] of Object.entries(value)) if (key !== "@type") out[key] = typeFirst(item as JsonValue);
  return out;
}

/**
 * Rewrites, in place, every Any inside `message` whose type URL is `type.googleapis.com/<name>` to
 * `/<name>`, re-encoding Any values whose contents changed.
 */
export function normalizeAnyTypeUrls(
  schema: DescMessage,
  message: Message,
  registry: Registry | undefined,
  depth = 0,
): boolean {
  if (depth > MAX_DEPTH) return false;
  let changed = false;
  if (schema.typeName === "google.protobuf.Any") {
    const any = message as unknown as { typeUrl: string; value: Uint8Array };
    if (any.typeUrl.startsWith(GOOGLE_PREFIX)) {
      any.typeUrl = `/${any.typeUrl.slice(GOOGLE_PREFIX.length)}`;
      changed = true;
    }
    const inner = registry?.getMessage(any.typeUrl.slice(any.typeUrl.lastIndexOf("/") + 1));
    if (inner !== undefined) {
      const decoded = fromBinary(inner, any.value);
      if (normalizeAnyTypeUrls(inner, decoded, registry, depth + 1)) {
        any.value = toBinary(inner, create(inner, decoded));
        changed = true;
      }
    }
    return changed;
  }
  const record = message as unknown as Record<string, unknown>;
  for (const field of schema.fields) {
    if (field.fieldKind === "message") {
      const value =
        field.oneof === undefined
          ? record[field.localName]
          : oneofValue(record[field.oneof.localName], field.localName);
      if (value !== undefined && normalizeAnyTypeUrls(field.message, value as Message, registry, depth + 1)) {
        changed = true;
      }
    } else if (field.fieldKind === "list" && field.listKind === "message") {
      for (const item of record[field.localName] as Message[]) {
        if (normalizeAnyTypeUrls(field.message, item, registry, depth + 1)) changed = true;
      }
    } else if (field.fieldKind === "map" && field.mapKind === "message") {
      for (const item of Object.values(record[field.localName] as Record<string, Message>)) {
        if (normalizeAnyTypeUrls(field.message, item, registry, depth + 1)) changed = true;
      }
    }
  }
  return changed;
}

function oneofValue(oneof: unknown, fieldName: string): unknown {
  const value = oneof as { case: string | undefined; value?: unknown } | undefined;
  return value?.case === fieldName ? value.value : undefined;
}
