// protobuf-es packs every Any it reads from JSON with a `type.googleapis.com/<name>` type URL;
// Cosmos chains write `/<name>`, and an Any inside signed bytes is hashed as written. So after
// reading JSON we put the Cosmos form back, at every depth (Anys packed inside Anys included).
import { type DescMessage, fromBinary, type Message, type Registry, toBinary } from "@bufbuild/protobuf";

const GOOGLE_PREFIX = "type.googleapis.com/";

/**
 * Rewrites, in place, every `google.protobuf.Any` in `message` (of type `desc`) from the
 * `type.googleapis.com/<name>` form to `/<name>`, unpacking and repacking nested Anys whose type
 * `registry` knows. Returns the same message.
 *
 * @example cosmosAnyTypeUrls(TxSchema, fromJson(TxSchema, json, { registry }), registry)
 */
export function cosmosAnyTypeUrls<T extends Message>(desc: DescMessage, message: T, registry: Registry): T {
  visit(desc, message as unknown as Record<string, unknown>, registry);
  return message;
}

function visit(desc: DescMessage, message: Record<string, unknown>, registry: Registry): void {
  if (desc.typeName === "google.protobuf.Any") {
    fixAny(message, registry);
    return;
  }
  for (const field of desc.fields) {
    let value: unknown;
    if (field.oneof !== undefined) {
      const selected = message[field.oneof.localName] as { case: string | undefined; value?: unknown };
      if (selected.case !== field.localName) continue;
      value = selected.value;
    } else {
      value = message[field.localName];
    }
    if (value === undefined) continue;
    if (field.fieldKind === "message") visit(field.message, value as Record<string, unknown>, registry);
    else if (field.fieldKind === "list" && field.listKind === "message") {
      for (const item of value as Record<string, unknown>[]) visit(field.message, item, registry);
    } else if (field.fieldKind === "map" && field.mapKind === "message") {
      for (const item of Object.values(value as Record<string, Record<string, unknown>>)) {
        visit(field.message, item, registry);
      }
    }
  }
}

function fixAny(any: Record<string, unknown>, registry: Registry): void {
  let typeUrl = any.typeUrl as string;
  if (typeUrl.startsWith(GOOGLE_PREFIX)) {
    typeUrl = `/${typeUrl.slice(GOOGLE_PREFIX.length)}`;
    any.typeUrl = typeUrl;
  }
  const inner = registry.getMessage(typeUrl.slice(typeUrl.lastIndexOf("/") + 1));
  if (inner === undefined || !mayContainAny(inner, new Set())) return;
  const unpacked = fromBinary(inner, any.value as Uint8Array);
  visit(inner, unpacked as unknown as Record<string, unknown>, registry);
  any.value = toBinary(inner, unpacked);
}

// Repacking re-encodes the bytes; skip it for types that cannot hold an Any so that their bytes
// stay exactly as the JSON reader produced them.
function mayContainAny(desc: DescMessage, seen: Set<string>): boolean {
  if (desc.typeName === "google.protobuf.Any") return true;
  if (seen.has(desc.typeName)) return false;
  seen.add(desc.typeName);
  for (const field of desc.fields) {
    const nested =
      field.fieldKind === "message"
        ? field.message
        : (field.fieldKind === "list" && field.listKind === "message") ||
            (field.fieldKind === "map" && field.mapKind === "message")
          ? field.message
          : undefined;
    if (nested !== undefined && mayContainAny(nested, seen)) return true;
  }
  return false;
}
