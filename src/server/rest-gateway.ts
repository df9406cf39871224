// The REST gateway (docs/CONTRACT.md §7): fastify in front of the same served routes gRPC uses, called in
// process. Routing is ours (rest-router.ts) so that unknown paths are 404, other methods 405 with
// `Allow`, and routes come only from the annotations. Every answer is JSON; errors are
// `{"code":<gRPC code>,"message":"...","details":[]}`.

import type { Server as HttpServer, OutgoingHttpHeaders } from "node:http";
import type { Socket } from "node:net";
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import type { Logger } from "pino";
import { GrpcCode } from "../app/errors.ts";
import { currentBinaryName } from "../config/home.ts";
import { type CorsPolicy, corsDecision } from "./cors.ts";
import { answerConnectAsRequest, createTimedHttpServer, type HttpListenerOptions } from "./http-listener.ts";
import type { QueryBackend } from "./query-backend.ts";
import { getPathListener, limitWriteTime, serverTime } from "./rest-get-path.ts";
import { answerQuery, errorAnswer, JSON_TYPE, splitPath } from "./rest-query.ts";
import { RestRouter } from "./rest-router.ts";
import type { ServedRoute } from "./served-routes.ts";
import { RequestError } from "./status.ts";
import { type SwaggerDocument, swaggerDocument } from "./swagger.ts";
import { prefersHtml, swaggerUiAsset, swaggerUiPage } from "./swagger-ui.ts";
import { metricsAnswer, type ServerTelemetry } from "./telemetry.ts";
import { upgradePageHtml } from "./upgrade-page.ts";

// node:http is taken with process.getBuiltinModule, not a value import: an ESM import of it reads every export,
// WebSocket among them, whose getter loads undici (~30 ms of a node's start-up CPU, for nothing it uses).
const { METHODS } = process.getBuiltinModule("node:http");

/** Settings of {@link buildRestGateway}. */
export interface RestGatewayOptions extends HttpListenerOptions {
  backend: QueryBackend;
  /** The served routes in registration order (node services first, then module queries). */
  routes: readonly ServedRoute[];
  /** Serve /swagger (api.swagger). */
  swagger: boolean;
  /** Serve the upgrade status page at /upgrade (api.upgrade-page; upgrade-page.ts). */
  upgradePage?: boolean;
  /** CORS (see cors.ts); undefined = off. */
  cors: CorsPolicy | undefined;
  /** Largest request body in bytes (api.rpc-max-body-bytes). */
  maxBodyBytes: number;
  /** Time to write a whole response, from the end of the request headers; 0 = no limit. */
  writeTimeoutSeconds: number;
  /** Version written into the Swagger document. */
  version?: string;
  logger?: Logger;
  /** app.toml [telemetry] on: GET /metrics?format=prometheus serves it (otherwise /metrics is unknown, 404). */
  telemetry?: ServerTelemetry;
}

/** A built gateway: the fastify app (inject() in tests), its HTTP server, its routes and document. */
export interface RestGateway {
  app: FastifyInstance;
  server: HttpServer;
  router: RestRouter;
  swagger: SwaggerDocument;
}

// Every method Node's parser knows reaches our router, so a known path answers 405 with Allow to
// TRACE, PROPFIND or CONNECT as to PUT (docs/CONTRACT.md §7); CONNECT is handed over by answerConnectAsRequest.
const ALL_METHODS = METHODS;

/** Stands for fastify's schema compilers, which the gateway never needs: a schema added to a route fails loudly here. */
function noSchemaCompiler(): never {
  throw new Error(
    "the REST gateway declares no JSON schemas, so it loads no schema compiler (src/server/rest-gateway.ts)",
  );
}

/**
 * Builds the gateway. It does not listen: hand `server` to a ConnectionGate (servers.ts does),
 * or call `app.inject()`.
 *
 * @example const { app } = buildRestGateway({ backend, routes, swagger: true, cors: undefined, ... });
 */
export function buildRestGateway(options: RestGatewayOptions): RestGateway {
  const router = new RestRouter(options.routes);
  const swagger = swaggerDocument(router.routes, { version: options.version ?? "1.0.0" });
  const swaggerJson = JSON.stringify(swagger);
  let server: HttpServer | undefined;
  let closing = false;
  const app = Fastify({
    serverFactory: (handler) => {
      // Plain GET queries are answered before fastify sees them (rest-get-path.ts).
      const listener = getPathListener(
        {
          backend: options.backend,
          router,
          cors: options.cors,
          writeTimeoutSeconds: options.writeTimeoutSeconds,
          closing: () => closing,
          logger: options.logger,
        },
        handler,
      );
      server = createTimedHttpServer(listener, options);
      answerConnectAsRequest(server);
      return server;
    },
    bodyLimit: options.maxBodyBytes,
    logger: false,
    // No route declares a JSON schema (routes come from the proto annotations and read raw bytes), so fastify's
    // schema compilers are never used; without builders of our own, fastify loads its defaults (ajv and
    // fast-json-stringify, ~60 ms of CPU) when it is created, on every node start before the first block.
    schemaController: { compilersFactory: { buildValidator: noSchemaCompiler, buildSerializer: noSchemaCompiler } },
    // Our own 503 (below) carries the docs/CONTRACT.md §7 body; fastify's would not.
    return503OnClosing: false,
    forceCloseConnections: true,
    exposeHeadRoutes: false,
    // Errors fastify raises itself answer with docs/CONTRACT.md §7's body too.
    clientErrorHandler: (error, socket) => answerClientError(error, socket),
    frameworkErrors: (error, request, reply) => {
      const path = (request.raw.url ?? "/").split("?")[0];
      const message =
        error.code === "FST_ERR_BAD_URL" ? `malformed percent-encoding in the path ${path}` : error.message;
      return sendError(reply, new RequestError(GrpcCode.InvalidArgument, message));
    },
  });
  for (const method of ALL_METHODS) {
    if (!app.supportedMethods.includes(method)) app.addHttpMethod(method, { hasBody: true });
  }
  // A GET's body is read too (fastify skips it by default), so that one over api.rpc-max-body-bytes is 413 as on
  // every other method; the GET fast path (rest-get-path.ts) takes only requests without a body.
  app.addHttpMethod("GET", { hasBody: true, overrideExisting: true });

  // Bodies reach the handler as raw bytes whatever their content type: the route decides.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "buffer" }, (_request, body, done) => done(null, body));

  app.addHook("preClose", async () => {
    closing = true;
  });
  app.addHook("onRequest", async (request, reply) => {
    // Upstream's API server answers every request with X-Server-Time (unix seconds; CometBFT's
    // RecoverAndLogHandler adds it); clients use it to spot clock skew.
    reply.header("x-server-time", serverTime());
    if (closing) return sendError(reply, new RequestError(GrpcCode.Unavailable, "the node is shutting down"));
    if (options.writeTimeoutSeconds > 0) limitWriteTime(request.raw, reply.raw, options.writeTimeoutSeconds);
    const cors = corsDecision(options.cors, request.method, request.headers);
    if (cors.kind === "actual") reply.headers(cors.headers);
    if (cors.kind === "preflight") {
      reply.headers(cors.headers);
      if (cors.status === 204) return reply.code(204).send();
      return sendError(reply, new RequestError(GrpcCode.PermissionDenied, cors.refusal ?? "CORS request refused"));
    }
  });

  const handle = async (request: FastifyRequest, reply: FastifyReply): Promise<unknown> => {
    const url = request.raw.url ?? "/";
    const queryStart = url.indexOf("?");
    const path = queryStart < 0 ? url : url.slice(0, queryStart);
    const query = queryStart < 0 ? "" : url.slice(queryStart + 1);
    try {
      if (path === "/metrics" && options.telemetry !== undefined) {
        if (request.method !== "GET") {
          reply.header("allow", "GET");
          throw new RequestError(
            GrpcCode.Unimplemented,
            `method ${request.method} is not allowed on /metrics; allowed: GET`,
            {
              httpStatus: 405,
            },
          );
        }
        const answer = await metricsAnswer(query, options.telemetry);
        return reply.code(answer.status).header("content-type", answer.contentType).send(answer.body);
      }
      if (path === "/swagger" || path.startsWith("/swagger/")) {
        if (options.swagger) return await serveSwagger(path, request, reply, swaggerJson);
        throw new RequestError(GrpcCode.NotFound, `unknown path ${path}: Swagger is disabled (api.swagger = false)`);
      }
      if (path === "/upgrade" || path === "/upgrade/") {
        if (options.upgradePage === true) return serveUpgradePage(path, request, reply);
        throw new RequestError(
          GrpcCode.NotFound,
          `unknown path ${path}: the upgrade page is disabled (app.toml api.upgrade-page = false)`,
        );
      }
      const match = router.match(request.method, splitPath(path));
      if (match.kind === "none")
        throw new RequestError(GrpcCode.NotFound, `unknown path ${path}: no REST route matches it`);
      if (match.kind === "wrong-method") {
        reply.header("allow", match.allow.join(", "));
        throw new RequestError(
          GrpcCode.Unimplemented,
          `method ${request.method} is not allowed on ${path}; allowed: ${match.allow.join(", ")}`,
          { httpStatus: 405 },
        );
      }
      // The answer is written directly: fastify's send pipeline (onSend hooks, payload checks) costs
      // as much as the query; headers set earlier on the reply (CORS) are carried over.
      const headers = { ...(reply.getHeaders() as OutgoingHttpHeaders) };
      await answerQuery(
        options.backend,
        match.rest,
        match.params,
        query,
        request.body,
        request.headers,
        reply.raw,
        headers,
      );
      reply.hijack();
      return reply;
    } catch (err) {
      return sendError(reply, err, options.logger);
    }
  };

  app.route({ method: [...ALL_METHODS], url: "/*", handler: handle });
  app.route({ method: [...ALL_METHODS], url: "/", handler: handle });
  app.setNotFoundHandler((request, reply) =>
    sendError(reply, new RequestError(GrpcCode.NotFound, `unknown path ${request.url.split("?")[0]}`)),
  );
  app.setErrorHandler((error, _request, reply) => sendError(reply, fastifyErrorStatus(error, options), options.logger));

  if (server === undefined) {
    // serverFactory runs synchronously inside Fastify(); this guards against a future change.
    throw new Error("fastify did not create its HTTP server");
  }
  return { app, server, router, swagger };
}

async function serveSwagger(
  path: string,
  request: FastifyRequest,
  reply: FastifyReply,
  swaggerJson: string,
): Promise<FastifyReply> {
  if (request.method !== "GET" && request.method !== "HEAD") {
    reply.header("allow", "GET, HEAD");
    throw new RequestError(
      GrpcCode.Unimplemented,
      `method ${request.method} is not allowed on ${path}; allowed: GET, HEAD`,
      {
        httpStatus: 405,
      },
    );
  }
  const name = path.slice("/swagger/".length);
  if (
    path === "/swagger/swagger.json" ||
    ((path === "/swagger" || path === "/swagger/") && !prefersHtml(request.headers.accept))
  ) {
    return reply.code(200).header("content-type", JSON_TYPE).send(swaggerJson);
  }
  if (path === "/swagger" || path === "/swagger/" || name === "index.html") {
    return reply
      .code(200)
      .header("content-type", "text/html; charset=utf-8")
      .send(swaggerUiPage("/swagger/swagger.json"));
  }
  const asset = await swaggerUiAsset(name);
  if (asset === undefined) throw new RequestError(GrpcCode.NotFound, `unknown path ${path}`);
  return reply
    .code(200)
    .header("content-type", asset.contentType)
    .header("cache-control", "public, max-age=3600")
    .send(asset.body);
}

function serveUpgradePage(path: string, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (request.method !== "GET" && request.method !== "HEAD") {
    reply.header("allow", "GET, HEAD");
    throw new RequestError(
      GrpcCode.Unimplemented,
      `method ${request.method} is not allowed on ${path}; allowed: GET, HEAD`,
      {
        httpStatus: 405,
      },
    );
  }
  // no-cache: a node upgraded to a new release serves that release's page.
  return reply
    .code(200)
    .header("content-type", "text/html; charset=utf-8")
    .header("cache-control", "no-cache")
    .send(upgradePageHtml(currentBinaryName()));
}

/** Sends the error body for `err` with its status; 500s are logged, never shown with a stack. */
function sendError(reply: FastifyReply, err: unknown, logger?: Logger): FastifyReply {
  const answer = errorAnswer(err, logger);
  return reply.code(answer.httpStatus).header("content-type", JSON_TYPE).send(answer.body);
}

// Errors fastify raises before our handler runs (body too large, malformed framing, ...).
function fastifyErrorStatus(error: unknown, options: RestGatewayOptions): unknown {
  const code = (error as { code?: string }).code;
  const statusCode = (error as { statusCode?: number }).statusCode ?? 500;
  if (code === "FST_ERR_CTP_BODY_TOO_LARGE" || statusCode === 413) {
    return new RequestError(
      GrpcCode.ResourceExhausted,
      `the request body is larger than ${options.maxBodyBytes} bytes (api.rpc-max-body-bytes)`,
      { httpStatus: 413 },
    );
  }
  if (statusCode >= 400 && statusCode < 500) {
    return new RequestError(GrpcCode.InvalidArgument, (error as Error).message);
  }
  return error;
}

/**
 * Errors of the HTTP parser and the server's timeouts, before any request exists (malformed
 * request 400, header too large 431, request not received within api.rpc-read-timeout 408):
 * the docs/CONTRACT.md §7 body, then the connection is closed, as Node and fastify do.
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === "ECONNRESET" || socket.destroyed) return;
  let status = 400;
  let code: number = GrpcCode.InvalidArgument;
  let message = `malformed HTTP request (${error.code ?? "parse error"})`;
  if (error.code === "ERR_HTTP_REQUEST_TIMEOUT") {
    status = 408;
    code = GrpcCode.DeadlineExceeded;
    message = "the request was not received in time (api.rpc-read-timeout)";
  } else if (error.code === "HPE_HEADER_OVERFLOW") {
    status = 431;
    code = GrpcCode.ResourceExhausted;
    message = "the request headers are too large";
  }
  const body = JSON.stringify({ code, message, details: [] });
  if (socket.writable) {
    const reason =
      status === 408 ? "Request Timeout" : status === 431 ? "Request Header Fields Too Large" : "Bad Request";
    socket.write(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: ${JSON_TYPE}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}
