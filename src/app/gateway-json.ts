// The gateway's JSON: what upstream's REST gateway prints (Cosmos SDK v0.50's grpc-gateway marshaller), which is
// not quite proto3 JSON. Proto field names, every field present in declaration order, 64-bit
// integers as strings, enums by name, unset messages and empty bytes as `null`, empty lists `[]`,
// `Any` as `{"@type":"/<name>",...fields}`. The CLI's `-o json` can reuse it so both print alike.

import {
  type DescEnum,
  type DescField,
  type DescMessage,
  fromJson,
  type JsonValue,
  type Message,
  type Registry,
  ScalarType,
  toJson,
} from "@bufbuild/protobuf";
import { base64Encode } from "@bufbuild/protobuf/wire";
import { cosmosAnyTypeUrls } from "./any-type-url.ts";
import { timestampJson } from "./timestamp-json.ts";
import { convertAnyValues, fromWireBinary } from "./wire-decimals.ts";

/** Thrown when a message cannot be printed (an Any of a type the registry does not know). */
export class GatewayJsonError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "GatewayJsonError";
  }
}

/**
 * The gateway JSON value of `message` (a message of type `desc`). `registry` resolves the types
 * inside `Any` fields.
 *
 * @example gatewayJson(QueryCurrentPlanResponseSchema, create(QueryCurrentPlanResponseSchema), registry) // { plan: null }
 */
export function gatewayJson(desc: DescMessage, message: Message, registry: Registry): JsonValue {
  return writeMessage(desc, message as unknown as Record<string, unknown>, registry);
}

/** {@link gatewayJson} as compact JSON text. */
export function gatewayJsonString(desc: DescMessage, message: Message, registry: Registry): string {
  return JSON.stringify(gatewayJson(desc, message, registry));
}

/**
 * Reads a request body (proto JSON: proto or lowerCamel names, unknown keys ignored) into a message
 * of type `desc`. `Any` values get Cosmos `/<name>` type URLs. Throws the decoder's Error.
 */
export function messageFromGatewayJson<T extends Message>(desc: DescMessage, json: JsonValue, registry: Registry): T {
  const message = fromJson(desc, json, { ignoreUnknownFields: true, registry }) as T;
  // fromJson packed Any values with decimal text; Any values always hold upstream's binary form.
  return convertAnyValues(desc, cosmosAnyTypeUrls(desc, message, registry), registry, "toWire") as T;
}

function writeMessage(desc: DescMessage, message: Record<string, unknown>, registry: Registry): JsonValue {
  if (desc.typeName === "google.protobuf.Any") return writeAny(message, registry);
  if (desc.typeName === "google.protobuf.Timestamp") {
    const text = timestampJson(message.seconds as bigint, message.nanos as number);
    if (text !== undefined) return text;
  }
  // Other well-known types (Timestamp, Duration, wrappers, Struct) have a JSON form of their own.
  if (desc.file.name.startsWith("google/protobuf/")) return toJson(desc, message as unknown as Message);
  const out: Record<string, JsonValue> = {};
  for (const field of desc.fields) {
    if (field.oneof !== undefined) {
      const selected = message[field.oneof.localName] as { case: string | undefined; value?: unknown };
      // Only the member that is set appears, as upstream's marshaller prints oneofs.
      if (selected.case === field.localName) out[field.name] = writeField(field, selected.value, registry);
      continue;
    }
    out[field.name] = writeField(field, message[field.localName], registry);
  }
  return out;
}

function writeField(field: DescField, value: unknown, registry: Registry): JsonValue {
  switch (field.fieldKind) {
    case "scalar":
      return writeScalar(field.scalar, value);
    case "enum":
      return writeEnum(field.enum, value as number);
    case "message":
      return value === undefined ? null : writeMessage(field.message, value as Record<string, unknown>, registry);
    case "list": {
      const items = value as unknown[];
      switch (field.listKind) {
        case "scalar":
          return items.map((item) => writeScalar(field.scalar, item));
        case "enum":
          return items.map((item) => writeEnum(field.enum, item as number));
        case "message":
          return items.map((item) => writeMessage(field.message, item as Record<string, unknown>, registry));
      }
      break;
    }
    case "map": {
      const entries = value as Record<string, unknown>;
      const out: Record<string, JsonValue> = {};
      for (const key of Object.keys(entries)) {
        const item = entries[key];
        if (field.mapKind === "scalar") out[key] = writeScalar(field.scalar, item);
        else if (field.mapKind === "enum") out[key] = writeEnum(field.enum, item as number);
        else out[key] = writeMessage(field.message, item as Record<string, unknown>, registry);
      }
      return out;
    }
  }
  return null;
}

function writeScalar(type: ScalarType, value: unknown): JsonValue {
  switch (type) {
    case ScalarType.INT64:
    case ScalarType.UINT64:
    case ScalarType.SINT64:
    case ScalarType.FIXED64:
    case ScalarType.SFIXED64:
      return String(value);
    case ScalarType.BYTES: {
      const bytes = value as Uint8Array;
      // Upstream's Go code holds absent bytes as nil, which its marshaller prints as null.
      return bytes.length === 0 ? null : base64Encode(bytes);
    }
    case ScalarType.FLOAT:
    case ScalarType.DOUBLE: {
      const number = value as number;
      if (Number.isNaN(number)) return "NaN";
      if (number === Number.POSITIVE_INFINITY) return "Infinity";
      if (number === Number.NEGATIVE_INFINITY) return "-Infinity";
      return number;
    }
    default:
      return value as JsonValue;
  }
}

function writeEnum(desc: DescEnum, value: number): JsonValue {
  // An open enum may hold a number the schema does not name: print the number.
  return desc.value[value]?.name ?? value;
}

function writeAny(any: Record<string, unknown>, registry: Registry): JsonValue {
  const typeUrl = any.typeUrl as string;
  if (typeUrl === "") return null;
  const typeName = typeUrl.slice(typeUrl.lastIndexOf("/") + 1);
  const inner = registry.getMessage(typeName);
  if (inner === undefined) {
    throw new GatewayJsonError(`cannot print an Any of type ${typeUrl}: the type is not registered with the app`);
  }
  // Decoding is lazy: the packed bytes are only read here, when the value is printed.
  const message = fromBinaryLoose(inner, any.value as Uint8Array);
  const body = writeMessage(inner, message, registry);
  if (inner.file.name.startsWith("google/protobuf/")) return { "@type": typeUrl, value: body };
  return { "@type": typeUrl, ...(body as Record<string, JsonValue>) };
}

function fromBinaryLoose(desc: DescMessage, bytes: Uint8Array): Record<string, unknown> {
  try {
    return fromWireBinary(desc, bytes) as unknown as Record<string, unknown>;
  } catch (err) {
    throw new GatewayJsonError(`cannot print an Any of type ${desc.typeName}: ${(err as Error).message}`);
  }
}
