// One REST query from a matched route to the bytes on the wire, shared by the gateway's two entries:
// fastify's handler (every method, tests' inject()) and the socket-side GET path (rest-get-path.ts)
// that skips fastify for the common case. Both build the request message, resolve the height, run
// the route and print the answer here, so they cannot drift apart.
import type { IncomingHttpHeaders, OutgoingHttpHeaders, ServerResponse } from "node:http";
import { create, type JsonValue, type Message } from "@bufbuild/protobuf";
import type { Logger } from "pino";
import { GrpcCode } from "../app/errors.ts";
import { gatewayJsonString, messageFromGatewayJson } from "../app/gateway-json.ts";
import { GATEWAY_HEIGHT_HEADER, HEIGHT_HEADER, parseHeightHeader } from "./height.ts";
import type { QueryBackend } from "./query-backend.ts";
import { applyQueryParameters, setFieldFromText } from "./request-mapping.ts";
import type { RestRoute } from "./rest-router.ts";
import { callRoute, heightFor, runModuleRoute } from "./served-routes.ts";
import { RequestError, statusOf } from "./status.ts";

/** Every answer's content type. */
export const JSON_TYPE = "application/json; charset=utf-8";

/**
 * The decoded path segments (the path split on "/" without the leading empty one); a malformed
 * percent-encoding is a RequestError.
 */
export function splitPath(path: string): string[] {
  const raw = path.slice(1).split("/");
  // Most paths have nothing to decode.
  if (!path.includes("%")) return raw;
  try {
    return raw.map((segment) => decodeURIComponent(segment));
  } catch {
    throw new RequestError(GrpcCode.InvalidArgument, `malformed percent-encoding in the path ${path}`);
  }
}

// A "%" not followed by two hex digits: Go's url.ParseQuery (upstream's gateway) refuses the query with it, where
// URLSearchParams would silently keep the text.
const BAD_ESCAPE = /%(?![0-9A-Fa-f]{2})/;

/** Throws a RequestError when the query string holds a malformed percent-encoding. */
export function assertQueryEscapes(query: string): void {
  const bad = BAD_ESCAPE.exec(query);
  if (bad === null) return;
  const found = query.slice(bad.index, bad.index + 3);
  throw new RequestError(
    GrpcCode.InvalidArgument,
    `malformed percent-encoding ${JSON.stringify(found)} in the query string: expected "%" and two hex digits`,
  );
}

/**
 * Runs the query `rest` names and writes its 200 answer: `headers` first (x-server-time, CORS),
 * then the content headers and the height used. Errors (bad parameters, bad height, the handler's)
 * are thrown for the caller to answer.
 */
export async function answerQuery(
  backend: QueryBackend,
  rest: RestRoute,
  params: Map<string, string>,
  query: string,
  body: unknown,
  requestHeaders: IncomingHttpHeaders,
  response: ServerResponse,
  headers: OutgoingHttpHeaders,
): Promise<void> {
  const message = requestMessage(rest, params, query, body, backend);
  const requested = parseHeightHeader(heightValues(requestHeaders));
  const route = rest.route;
  let answer: Message;
  let used: bigint;
  if (route.moduleHandler !== undefined) {
    // Module queries (nearly all): no callRoute layer in between.
    used = heightFor(backend, route, requested);
    answer = await runModuleRoute(backend, route.moduleHandler, message, used);
  } else {
    const result = await callRoute(backend, route, message, requested);
    answer = result.response;
    used = result.height;
  }
  const text = gatewayJsonString(route.output, answer, backend.registry);
  const height = String(used);
  headers["content-type"] = JSON_TYPE;
  headers["content-length"] = Buffer.byteLength(text);
  headers[HEIGHT_HEADER] = height;
  headers[GATEWAY_HEIGHT_HEADER] = height;
  response.writeHead(200, headers);
  response.end(text);
}

/** The status and JSON body of an error answer; 500s are logged, never shown with a stack. */
export function errorAnswer(err: unknown, logger?: Logger): { httpStatus: number; body: string } {
  const status = statusOf(err);
  if (status.httpStatus >= 500 && status.httpStatus !== 501) logger?.error({ err }, "REST request failed");
  return {
    httpStatus: status.httpStatus,
    body: JSON.stringify({ code: status.grpcCode, message: status.message, details: [] }),
  };
}

const NO_VALUES: readonly string[] = [];

function heightValues(headers: IncomingHttpHeaders): readonly string[] {
  const plain = headers[HEIGHT_HEADER];
  const gateway = headers[GATEWAY_HEIGHT_HEADER];
  if (plain === undefined && gateway === undefined) return NO_VALUES;
  const values: string[] = [];
  for (const value of [plain, gateway]) {
    if (value === undefined) continue;
    // Node joins a repeated custom header with ", ".
    for (const part of (Array.isArray(value) ? value : [value]).flatMap((v) => v.split(","))) values.push(part);
  }
  return values;
}

function requestMessage(
  rest: RestRoute,
  params: Map<string, string>,
  query: string,
  body: unknown,
  backend: QueryBackend,
): Message {
  const { input } = rest.route;
  if (query.includes("%")) assertQueryEscapes(query);
  let message: Message;
  if (rest.binding.body === "*") {
    message = bodyMessage(rest, body, backend);
  } else {
    message = create(input);
    // Parsed only when the request has fields left for it, as upstream does.
    if (query !== "" && input.fields.length > rest.pathFields.size) {
      applyQueryParameters(input, message, new URLSearchParams(query), rest.pathFields);
    }
  }
  for (const [field, value] of params) setFieldFromText(input, message, field, [value], false);
  return message;
}

function bodyMessage(rest: RestRoute, body: unknown, backend: QueryBackend): Message {
  const { input } = rest.route;
  const bytes = body instanceof Buffer ? body : Buffer.alloc(0);
  const text = bytes.toString("utf8").trim();
  // An empty body is an empty request: the method then says what is missing ("invalid empty tx").
  if (text === "") return create(input);
  let json: JsonValue;
  try {
    json = JSON.parse(text) as JsonValue;
  } catch (err) {
    throw new RequestError(GrpcCode.InvalidArgument, `the request body is not JSON: ${(err as Error).message}`);
  }
  try {
    return messageFromGatewayJson(input, json, backend.registry);
  } catch (err) {
    throw new RequestError(
      GrpcCode.InvalidArgument,
      `the request body is not a valid ${input.typeName}: ${(err as Error).message}`,
    );
  }
}
