// protobuf-es writes `type.googleapis.com/<name>` into every Any it builds from JSON, while Cosmos
// type URLs are `/<name>`. Since an Any inside a signed body is hashed as bytes, parsing tx JSON
// must put the upstream form back, at every depth (Anys packed inside Anys included).
import { type DescMessage, fromBinary, type Message, type Registry, toBinary } from "@bufbuild/protobuf";
import { isReflectMessage, reflect } from "@bufbuild/protobuf/reflect";

const googlePrefix = "type.googleapis.com/";

function fixAny(any: Record<string, unknown>, registry: Registry): void {
  const typeUrl = any.typeUrl as string;
  if (typeUrl.startsWith(googlePrefix)) any.typeUrl = `/${typeUrl.slice(googlePrefix.length)}`;
  const inner = registry.getMessage((any.typeUrl as string).slice((any.typeUrl as string).lastIndexOf("/") + 1));
  if (inner === undefined) return;
  const unpacked = fromBinary(inner, any.value as Uint8Array);
  cosmosAnyTypeUrls(inner, unpacked, registry);
  any.value = toBinary(inner, unpacked);
}

/**
 * Rewrites, in place, every `google.protobuf.Any` type URL in `message` from protobuf-es'
 * `type.googleapis.com/<name>` form to the Cosmos `/<name>` form, unpacking nested Anys through
 * `registry`. Returns the same message.
 */
export function cosmosAnyTypeUrls<T extends Message>(desc: DescMessage, message: T, registry: Registry): T {
  if (desc.typeName === "google.protobuf.Any") {
    fixAny(message as unknown as Record<string, unknown>, registry);
    return message;
  }
  const r = reflect(desc, message);
  for (const field of desc.fields) {
    if (!r.isSet(field)) continue;
    if (field.fieldKind === "message") {
      const value = r.get(field);
      cosmosAnyTypeUrls(field.message, value.message, registry);
    } else if (field.fieldKind === "list" && field.listKind === "message") {
      for (const item of r.get(field)) {
        if (isReflectMessage(item)) cosmosAnyTypeUrls(field.message, item.message, registry);
      }
    } else if (field.fieldKind === "map" && field.mapKind === "message") {
      for (const [, item] of r.get(field)) {
        if (isReflectMessage(item)) cosmosAnyTypeUrls(field.message, item.message, registry);
      }
    }
  }
  return message;
}
