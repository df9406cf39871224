// The Swagger 2.0 document of the REST gateway, built from the same route table and message
// descriptors the gateway serves, so the two cannot drift (docs/CONTRACT.md §7). Schemas describe the JSON the
// gateway prints: proto field names, 64-bit integers as strings, enums by name, bytes as base64.

import { type DescField, type DescMessage, ScalarType } from "@bufbuild/protobuf";
import { currentBinaryName } from "../config/home.ts";
import { HEIGHT_HEADER } from "./height.ts";
import { pageCapOf } from "./page-caps.ts";
import type { RestRoute } from "./rest-router.ts";

/** A JSON Schema fragment as Swagger 2.0 writes it. */
export type SwaggerSchema = Record<string, unknown>;

/** The Swagger document (only the parts we write). */
export interface SwaggerDocument {
  swagger: "2.0";
  info: { title: string; description: string; version: string };
  consumes: string[];
  produces: string[];
  paths: Record<string, Record<string, unknown>>;
  definitions: Record<string, SwaggerSchema>;
}

const STATUS_DEFINITION = "chain.gateway.Status";
// How deep query parameters are listed for nested request messages (pagination.key is depth 2).
const MAX_QUERY_DEPTH = 3;

/**
 * Builds the document for `routes` (the gateway's reachable routes).
 *
 * @example swaggerDocument(router.routes, { version: "1.0.0" }).paths["/chain/upgrade/v1beta1/current_plan"].get
 */
export function swaggerDocument(
  routes: readonly RestRoute[],
  info: { version: string /** The binary named in the title (default: this process's chain). */; binary?: string },
): SwaggerDocument {
  const definitions: Record<string, SwaggerSchema> = {
    [STATUS_DEFINITION]: {
      type: "object",
      description: "An error: the gRPC status code, a message and (always empty) details.",
      properties: {
        code: { type: "integer", format: "int32" },
        message: { type: "string" },
        details: { type: "array", items: { $ref: "#/definitions/google.protobuf.Any" } },
      },
    },
  };
  definitions["google.protobuf.Any"] = wellKnownSchema("google.protobuf.Any") ?? {};
  const paths: Record<string, Record<string, unknown>> = {};
  const usedIds = new Set<string>();
  for (const rest of routes) {
    const { binding, route } = rest;
    paths[binding.swaggerPath] ??= {};
    paths[binding.swaggerPath][binding.method.toLowerCase()] = operation(rest, definitions, usedIds);
    addDefinition(route.output, definitions);
  }
  return {
    swagger: "2.0",
    info: {
      title: `${info.binary ?? currentBinaryName()} REST gateway`,
      description:
        "Every query and service method of the node over HTTP/JSON, derived from the google.api.http annotations. " +
        `Send the ${HEIGHT_HEADER} header to query the state at an earlier height.`,
      version: info.version,
    },
    consumes: ["application/json"],
    produces: ["application/json"],
    paths,
    definitions,
  };
}

function operation(rest: RestRoute, definitions: Record<string, SwaggerSchema>, usedIds: Set<string>): unknown {
  const { route, binding } = rest;
  const parameters: Record<string, unknown>[] = [];
  for (const fieldPath of binding.pathFields) {
    const field = fieldAt(route.input, fieldPath);
    parameters.push({ name: fieldPath, in: "path", required: true, ...parameterType(field) });
  }
  if (binding.body === "*") {
    addDefinition(route.input, definitions);
    parameters.push({ name: "body", in: "body", required: true, schema: ref(route.input) });
  } else {
    queryParameters(route.input, "", rest.pathFields, 1, new Set(), parameters);
    const method = `${route.service.typeName}.${route.method.name}`;
    for (const parameter of parameters) {
      const cap = pageCapOf(method, String(parameter.name));
      if (cap !== undefined) Object.assign(parameter, cap);
    }
  }
  if (route.heightBound) {
    parameters.push({
      name: HEIGHT_HEADER,
      in: "header",
      required: false,
      type: "string",
      pattern: "^[0-9]+$",
      description: "Run the query against the state at this height (0 or absent: the latest).",
    });
  }
  let operationId = `${route.service.typeName.replaceAll(".", "_")}_${route.method.name}`;
  while (usedIds.has(operationId)) operationId += "_";
  usedIds.add(operationId);
  return {
    operationId,
    summary: `${route.service.typeName}/${route.method.name}`,
    tags: [route.service.typeName],
    parameters,
    responses: {
      "200": {
        description: "A successful response.",
        schema: ref(route.output),
        headers: { [HEIGHT_HEADER]: { type: "string", description: "The height the query ran at." } },
      },
      default: { description: "An error response.", schema: { $ref: `#/definitions/${STATUS_DEFINITION}` } },
    },
  };
}

function queryParameters(
  desc: DescMessage,
  prefix: string,
  exclude: ReadonlySet<string>,
  depth: number,
  seen: Set<string>,
  out: Record<string, unknown>[],
): void {
  for (const field of desc.fields) {
    const name = `${prefix}${field.name}`;
    if (exclude.has(name)) continue;
    if (field.fieldKind === "message") {
      const wellKnown = wellKnownSchema(field.message.typeName);
      if (wellKnown !== undefined && field.message.typeName !== "google.protobuf.Any") {
        out.push({ name, in: "query", required: false, ...wellKnown });
      } else if (wellKnown === undefined && depth < MAX_QUERY_DEPTH && !seen.has(field.message.typeName)) {
        const nested = new Set(seen).add(field.message.typeName);
        queryParameters(field.message, `${name}.`, exclude, depth + 1, nested, out);
      }
      continue;
    }
    if (field.fieldKind === "map" || (field.fieldKind === "list" && field.listKind === "message")) continue;
    out.push({ name, in: "query", required: false, ...parameterType(field) });
  }
}

// A parameter's type (non-body parameters take type/format/items, not a schema).
function parameterType(field: DescField): Record<string, unknown> {
  if (field.fieldKind === "list") {
    let items: SwaggerSchema = { type: "string" };
    if (field.listKind === "enum") items = enumSchema(field.enum.values.map((v) => v.name));
    else if (field.listKind === "scalar") items = scalarSchema(field.scalar);
    return { type: "array", items, collectionFormat: "multi" };
  }
  if (field.fieldKind === "enum") {
    const names = field.enum.values.map((v) => v.name);
    return { ...enumSchema(names), default: names[0] };
  }
  if (field.fieldKind === "scalar") return scalarSchema(field.scalar);
  return { type: "string" };
}

function enumSchema(names: string[]): SwaggerSchema {
  return { type: "string", enum: names };
}

function scalarSchema(type: ScalarType): SwaggerSchema {
  switch (type) {
    case ScalarType.BOOL:
      return { type: "boolean" };
    case ScalarType.INT32:
    case ScalarType.SINT32:
    case ScalarType.SFIXED32:
      return { type: "integer", format: "int32" };
    case ScalarType.UINT32:
    case ScalarType.FIXED32:
      return { type: "integer", format: "int64", minimum: 0 };
    case ScalarType.INT64:
    case ScalarType.SINT64:
    case ScalarType.SFIXED64:
      return { type: "string", format: "int64", pattern: "^-?[0-9]+$" };
    case ScalarType.UINT64:
    case ScalarType.FIXED64:
      return { type: "string", format: "uint64", pattern: "^[0-9]+$" };
    case ScalarType.FLOAT:
      return { type: "number", format: "float" };
    case ScalarType.DOUBLE:
      return { type: "number", format: "double" };
    case ScalarType.BYTES:
      return { type: "string", format: "byte" };
    default:
      return { type: "string" };
  }
}

function wellKnownSchema(typeName: string): SwaggerSchema | undefined {
  switch (typeName) {
    case "google.protobuf.Timestamp":
      return { type: "string", format: "date-time" };
    case "google.protobuf.Duration":
      return { type: "string", description: 'A duration in seconds with an "s" suffix, e.g. "1.5s".' };
    case "google.protobuf.Any":
      return {
        type: "object",
        description: 'A message of the type named by "@type", with that type\'s fields.',
        properties: { "@type": { type: "string" } },
        additionalProperties: {},
      };
    default:
      return undefined;
  }
}

function ref(desc: DescMessage): SwaggerSchema {
  return { $ref: `#/definitions/${desc.typeName}` };
}

function addDefinition(desc: DescMessage, definitions: Record<string, SwaggerSchema>): void {
  if (definitions[desc.typeName] !== undefined) return;
  const wellKnown = wellKnownSchema(desc.typeName);
  if (wellKnown !== undefined) {
    definitions[desc.typeName] = wellKnown;
    return;
  }
  const properties: Record<string, SwaggerSchema> = {};
  definitions[desc.typeName] = { type: "object", properties };
  for (const field of desc.fields) properties[field.name] = fieldSchema(field, definitions);
}

function fieldSchema(field: DescField, definitions: Record<string, SwaggerSchema>): SwaggerSchema {
  const messageSchema = (desc: DescMessage): SwaggerSchema => {
    addDefinition(desc, definitions);
    return ref(desc);
  };
  switch (field.fieldKind) {
    case "scalar":
      return scalarSchema(field.scalar);
    case "enum":
      return enumSchema(field.enum.values.map((v) => v.name));
    case "message":
      return messageSchema(field.message);
    case "list":
      return {
        type: "array",
        items:
          field.listKind === "message"
            ? messageSchema(field.message)
            : field.listKind === "enum"
              ? enumSchema(field.enum.values.map((v) => v.name))
              : scalarSchema(field.scalar),
      };
    case "map":
      return {
        type: "object",
        additionalProperties:
          field.mapKind === "message"
            ? messageSchema(field.message)
            : field.mapKind === "enum"
              ? enumSchema(field.enum.values.map((v) => v.name))
              : scalarSchema(field.scalar),
      };
  }
}

function fieldAt(desc: DescMessage, fieldPath: string): DescField {
  let current = desc;
  const names = fieldPath.split(".");
  let field: DescField | undefined;
  for (const name of names) {
    field = current.fields.find((f) => f.name === name);
    if (field === undefined) throw new Error(`${desc.typeName} has no field ${fieldPath}`);
    if (field.fieldKind === "message") current = field.message;
  }
  return field as DescField;
}
