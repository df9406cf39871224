// The gateway's socket-side path for plain GET queries. A GET with no body on a known route is
// answered straight from Node's request event: fastify's per-request machinery (request/reply
// objects, the hook chain, its own routing of "/*", the reply pipeline) costs about as much as a
// small query itself. Everything the contract says of an answer is produced by the same code as
// fastify's handler (rest-query.ts): headers, CORS, heights, error shapes. Anything else (other
// methods, bodies, Swagger, unknown or malformed paths, a closing server) goes to fastify unchanged.
import type { IncomingMessage, OutgoingHttpHeaders, RequestListener, ServerResponse } from "node:http";
import type { Logger } from "pino";
import { type CorsPolicy, corsDecision } from "./cors.ts";
import type { QueryBackend } from "./query-backend.ts";
import { answerQuery, errorAnswer, JSON_TYPE, splitPath } from "./rest-query.ts";
import type { RestRouter } from "./rest-router.ts";

/** What the GET path needs of the gateway. */
export interface GetPathOptions {
  backend: QueryBackend;
  router: RestRouter;
  cors: CorsPolicy | undefined;
  /** Time to write a whole response, from the end of the request headers; 0 = no limit. */
  writeTimeoutSeconds: number;
  /** True once the gateway is closing (fastify then answers 503). */
  closing(): boolean;
  logger?: Logger;
}

/** A request listener answering plain GET queries itself and handing every other request to `fallback`. */
export function getPathListener(options: GetPathOptions, fallback: RequestListener): RequestListener {
  return (request, response) => {
    if (request.url !== undefined && ABSOLUTE_FORM.test(request.url)) request.url = originForm(request.url);
    if (!serveGet(options, request, response)) fallback(request, response);
  };
}

// RFC 9112 §3.2.2: a server must accept a request target in absolute form ("GET http://host/path") as
// well as the usual "/path"; Go's net/http (upstream's gateway) does. Routing, here and in fastify, reads
// the path, so the scheme and authority are dropped before either sees the request.
const ABSOLUTE_FORM = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i;

function originForm(url: string): string {
  const rest = url.replace(ABSOLUTE_FORM, "");
  return rest.startsWith("/") ? rest : `/${rest}`;
}

function serveGet(options: GetPathOptions, request: IncomingMessage, response: ServerResponse): boolean {
  if (request.method !== "GET" || options.closing()) return false;
  const requestHeaders = request.headers;
  const length = requestHeaders["content-length"];
  if (requestHeaders["transfer-encoding"] !== undefined || (length !== undefined && length !== "0")) return false;
  const url = request.url ?? "/";
  const queryStart = url.indexOf("?");
  const path = queryStart < 0 ? url : url.slice(0, queryStart);
  if (path === "/swagger" || path.startsWith("/swagger/")) return false;
  let segments: string[];
  try {
    segments = splitPath(path);
  } catch {
    return false;
  }
  const match = options.router.match("GET", segments);
  if (match.kind !== "found" || match.rest.binding.body === "*") return false;
  const cors = corsDecision(options.cors, "GET", requestHeaders);
  if (cors.kind === "preflight") return false;

  const headers: OutgoingHttpHeaders = { "x-server-time": serverTime() };
  if (cors.kind === "actual") Object.assign(headers, cors.headers);
  if (options.writeTimeoutSeconds > 0) limitWriteTime(request, response, options.writeTimeoutSeconds);
  const query = queryStart < 0 ? "" : url.slice(queryStart + 1);
  answerQuery(options.backend, match.rest, match.params, query, undefined, requestHeaders, response, headers).catch(
    (err: unknown) => {
      if (response.headersSent) {
        request.socket.destroy();
        return;
      }
      const answer = errorAnswer(err, options.logger);
      headers["content-type"] = JSON_TYPE;
      headers["content-length"] = Buffer.byteLength(answer.body);
      response.writeHead(answer.httpStatus, headers);
      response.end(answer.body);
    },
  );
  return true;
}

let serverTimeSecond = -1;
let serverTimeText = "";

/**
 * The X-Server-Time header upstream's API server puts on every answer (unix seconds; CometBFT's
 * RecoverAndLogHandler adds it); clients use it to spot clock skew.
 */
export function serverTime(): string {
  const second = Math.floor(Date.now() / 1000);
  if (second !== serverTimeSecond) {
    serverTimeSecond = second;
    serverTimeText = String(second);
  }
  return serverTimeText;
}

/** Go's WriteTimeout: a response not written in time loses its connection. */
export function limitWriteTime(request: IncomingMessage, response: ServerResponse, seconds: number): void {
  const timer = setTimeout(() => {
    if (!response.writableFinished) request.socket.destroy();
  }, seconds * 1000);
  timer.unref();
  response.once("close", () => clearTimeout(timer));
}
