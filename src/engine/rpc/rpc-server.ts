// The consensus RPC over HTTP (node:http), as CometBFT v0.38 serves it: JSON-RPC 2.0 POSTed to "/" (single or
// batch; a request without id is a notification and gets no answer; errors come back with HTTP 200), and the
// GET URI form "/<method>?arg=value" (answers carry id -1; errors come back with HTTP 500). WebSocket
// (`/websocket`, subscriptions included) is served by ws-hub.ts on the server's `upgrade` event.

import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { redactPaths } from "../../app/redact-paths.ts";
import type { EngineLogger } from "../engine.ts";
import { createLimitedRpcServer, type RpcConnectionLimits } from "./connection-limits.ts";
import type { Json } from "./json-shapes.ts";
import { jsonRpcId, RpcCode, RpcErrorReply } from "./rpc-error.ts";
import type { RpcMethod } from "./rpc-method-types.ts";
import { RPC_METHODS, type RpcContext } from "./rpc-methods.ts";
import { type Args, argsFromJsonRpc, argsFromUri } from "./rpc-params.ts";
import { handshakeRefusal, handshakeRefusalAnswer } from "./ws-handshake.ts";
import { WsHub, type WsHubOptions, type WsOutputStats } from "./ws-hub.ts";

/** Where and how to serve. */
export interface RpcServerOptions {
  context: RpcContext;
  /** TCP host/port (port 0 picks one) or a unix socket path. */
  listen: { host: string; port: number } | { path: string };
  /** rpc.max_body_bytes (default 1000000). */
  maxBodyBytes?: number;
  /** rpc.max_request_batch_size (default 10; 0 = unlimited). */
  maxBatchSize?: number;
  /** rpc.max_open_connections and the read/write timeouts (CometBFT's defaults when absent). */
  limits?: RpcConnectionLimits;
  logger?: EngineLogger;
  /** WebSocket limits (config.toml max_subscription_clients / max_subscriptions_per_client; output bounds). */
  websocket?: WsHubOptions;
}

type JsonRpcId = string | number | null;

class BodyTooLargeError extends Error {}

function readBody(req: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    req.on("data", (chunk: Buffer) => {
      if (failed) return;
      size += chunk.length;
      if (size > limit) {
        failed = true;
        reject(new BodyTooLargeError("http: request body too large"));
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => {
      if (!failed) resolve(Buffer.concat(chunks).toString("utf8"));
    });
    req.on("error", (e) => {
      if (!failed) reject(e);
    });
    // A connection closed before the body ended (e.g. by the read timeout) settles the read too.
    req.on("close", () => {
      if (!failed && !req.complete) reject(new Error("the connection closed before the request body ended"));
    });
  });
}

/** The header CometBFT puts on a cacheable method's answer (WriteCacheableRPCResponseHTTP). */
const CACHEABLE = { "cache-control": "public, max-age=86400" } as const;

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = `${JSON.stringify(body, null, 2)}\n`;
  res.writeHead(status, { ...headers, "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

/**
 * Whether CometBFT sends this call's answer as cacheable (RPCFunc.cacheableWithArgs): the method is, and no
 * argument it names as moving when left at its default (a height: the latest) is absent or zero.
 */
function cacheableWith(method: RpcMethod, args: Args): boolean {
  const rule = method.cacheable;
  if (rule === undefined) return false;
  return rule.unlessZero.every((name) => {
    const v = args[name];
    return v !== undefined && v !== 0n && v !== "" && v !== false && !(v instanceof Uint8Array && v.length === 0);
  });
}

function errorResponse(id: JsonRpcId, error: RpcErrorReply): Json {
  // CometBFT's RPCResponse has `id,omitempty`: an error without a request id (unparseable body, oversized body,
  // oversized batch) carries no id at all, not `"id": null`.
  return id === null ? { jsonrpc: "2.0", error: error.toJson() } : { jsonrpc: "2.0", id, error: error.toJson() };
}

/**
 * Why `request` cannot be a JSON-RPC request (CometBFT's RPCRequest: an object whose id, when present, is a
 * string or a number), as the parse error it is there; undefined when it can.
 */
function unfitRequest(request: unknown): RpcErrorReply | undefined {
  const parseError = (reason: string) => new RpcErrorReply(RpcCode.parseError, `error unmarshaling request: ${reason}`);
  if (typeof request !== "object" || request === null || Array.isArray(request)) {
    return parseError("a request must be a JSON object");
  }
  const id = (request as { id?: unknown }).id;
  if (id !== undefined && id !== null && typeof id !== "string" && typeof id !== "number") {
    return parseError(`json-rpc ID ${JSON.stringify(id)} is of unknown type: expected a string or a number`);
  }
  return undefined;
}

/** Go's http.NotFound, which CometBFT's mux answers for a path that names no method. */
function notFound(res: ServerResponse): void {
  res.writeHead(404, { "content-type": "text/plain; charset=utf-8", "x-content-type-options": "nosniff" });
  res.end("404 page not found\n");
}

function endpointsPage(host: string): string {
  const names = Object.keys(RPC_METHODS).sort();
  const links = names.map((n) => `<a href="//${host}/${n}">//${host}/${n}</a></br>`).join("\n");
  return `<html><body>\n<br>Available endpoints:<br>\n${links}\n</body></html>\n`;
}

/** The running RPC server. */
export class RpcServer {
  private readonly server: Server;
  private readonly options: RpcServerOptions;
  private readonly ws: WsHub;

  private constructor(server: Server, options: RpcServerOptions) {
    this.server = server;
    this.options = options;
    this.ws = new WsHub(options.context.engine, (request) => this.handleOne(request), options.websocket);
    server.on("upgrade", (req, socket, head) => this.ws.handleUpgrade(req, socket, head));
  }

  /** Starts listening; resolves once the socket is bound. */
  static async listen(options: RpcServerOptions): Promise<RpcServer> {
    const server = createLimitedRpcServer(options.limits ?? {});
    const rpc = new RpcServer(server, options);
    server.on("request", (req, res) => {
      // CometBFT's RecoverAndLogHandler stamps every answer, errors and 404s included, with the unix time it began.
      res.setHeader("x-server-time", String(Math.floor(Date.now() / 1000)));
      rpc.handle(req, res).catch((error: unknown) => {
        options.logger?.error({ err: error }, "RPC request failed");
        if (!res.headersSent)
          send(res, 500, errorResponse(null, new RpcErrorReply(RpcCode.internalError, (error as Error).message)));
        else res.end();
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      const done = () => {
        server.off("error", reject);
        resolve();
      };
      if ("path" in options.listen) server.listen(options.listen.path, done);
      else server.listen(options.listen.port, options.listen.host, done);
    });
    return rpc;
  }

  /** The bound TCP address (with the real port when 0 was asked), or undefined for a unix socket. */
  get address(): { host: string; port: number } | undefined {
    const a = this.server.address();
    if (a === null || typeof a === "string") return undefined;
    const info = a as AddressInfo;
    return { host: info.address, port: info.port };
  }

  /** An http:// URL clients can use. */
  get url(): string {
    const a = this.address;
    if (a === undefined) return `unix://${(this.options.listen as { path: string }).path}`;
    const host = a.host === "0.0.0.0" || a.host === "::" ? "127.0.0.1" : a.host.includes(":") ? `[${a.host}]` : a.host;
    return `http://${host}:${a.port}`;
  }

  /** Connections open now, HTTP and WebSocket alike (what rpc.max_open_connections counts). */
  openConnections(): Promise<number> {
    return new Promise((resolve, reject) => this.server.getConnections((e, n) => (e ? reject(e) : resolve(n))));
  }

  /** The WebSocket connections' unread output now (bounded per connection and in total; see ws-connection.ts). */
  get webSocketOutput(): WsOutputStats {
    return this.ws.output;
  }

  /** The most unread WebSocket output one connection and all held at once since the last call (for tests). */
  takeWebSocketOutputPeaks(): { connectionBytes: number; totalBytes: number } {
    return this.ws.takeOutputPeaks();
  }

  /** Stops accepting connections; idle ones close now, busy ones (e.g. a waiting broadcast_tx_commit) after 500 ms. */
  async close(): Promise<void> {
    this.ws.close();
    await new Promise<void>((resolve) => {
      const force = setTimeout(() => this.server.closeAllConnections(), 500);
      this.server.close(() => {
        clearTimeout(force);
        resolve();
      });
      this.server.closeIdleConnections();
    });
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // CometBFT's mux routes by path whatever the method: "/" is the JSON-RPC handler (an empty body gets the
    // list of endpoints), any other path the URI form of the method it names. Nearly every request is a POST
    // to "/" exactly: the URL parser (a few µs a request) only for the others.
    if (req.url !== "/") {
      const url = new URL(req.url ?? "/", "http://localhost");
      if (url.pathname !== "/") {
        await this.handleUri(url, req, res);
        return;
      }
    }
    let body: string;
    try {
      body = await readBody(req, this.options.maxBodyBytes ?? 1000000);
    } catch (error) {
      // The read timeout answered already (connection-limits.ts) and closed the connection.
      if (res.headersSent || res.destroyed) return;
      if (error instanceof BodyTooLargeError) {
        send(
          res,
          400,
          errorResponse(
            null,
            new RpcErrorReply(RpcCode.invalidRequest, `error reading request body: ${error.message}`),
          ),
        );
        req.resume();
        return;
      }
      throw error;
    }
    if (body.trim() === "") {
      res.writeHead(200, { "content-type": "text/html" });
      res.end(endpointsPage(req.headers.host ?? "localhost"));
      return;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch (error) {
      send(
        res,
        500,
        errorResponse(
          null,
          new RpcErrorReply(RpcCode.parseError, `error unmarshaling request: ${(error as Error).message}`),
        ),
      );
      return;
    }
    // A body that does not decode into requests (or a batch of them) is a parse error for the whole body, as
    // Go's json.Unmarshal into CometBFT's request type fails: HTTP 500, no id.
    const unfit = Array.isArray(parsed) ? parsed.map(unfitRequest).find((e) => e !== undefined) : unfitRequest(parsed);
    if (unfit !== undefined) {
      send(res, 500, errorResponse(null, unfit));
      return;
    }
    if (Array.isArray(parsed)) {
      const max = this.options.maxBatchSize ?? 10;
      if (max > 0 && parsed.length > max) {
        send(
          res,
          400,
          errorResponse(
            null,
            new RpcErrorReply(
              RpcCode.invalidRequest,
              `batch request exceeds maximum (${max}) allowed number of requests`,
            ),
          ),
        );
        return;
      }
      const responses: Json[] = [];
      let cacheable = true;
      for (const r of parsed) {
        const answered = await this.answerOne(r);
        if (answered === undefined) continue;
        responses.push(answered.answer);
        cacheable &&= answered.cacheable;
      }
      if (responses.length === 0) res.writeHead(200).end();
      else send(res, 200, responses, cacheable ? CACHEABLE : {});
      return;
    }
    const answered = await this.answerOne(parsed);
    if (answered === undefined) res.writeHead(200).end();
    else send(res, 200, answered.answer, answered.cacheable ? CACHEABLE : {});
  }

  /** One JSON-RPC request; undefined for a notification. */
  private async handleOne(request: unknown): Promise<Json | undefined> {
    return (await this.answerOne(request))?.answer;
  }

  /**
   * One JSON-RPC request's answer, and whether it lets the HTTP answer holding it be cacheable: as CometBFT's JSON
   * handler decides, an unknown method, bad params or a call that is not cacheable with its arguments does not; an
   * error the method itself returns does not change it.
   */
  private async answerOne(request: unknown): Promise<{ answer: Json; cacheable: boolean } | undefined> {
    const unfit = unfitRequest(request);
    if (unfit !== undefined) return { answer: errorResponse(null, unfit), cacheable: false };
    const r = request as { id?: unknown; method?: unknown; params?: unknown };
    if (r.id === undefined || r.id === null) return undefined;
    const id = jsonRpcId(r.id as string | number);
    const name = typeof r.method === "string" ? r.method : "";
    const method = Object.hasOwn(RPC_METHODS, name) ? RPC_METHODS[name] : undefined;
    if (method === undefined) {
      return { answer: errorResponse(id, new RpcErrorReply(RpcCode.methodNotFound, "")), cacheable: false };
    }
    let args: Args;
    try {
      args = argsFromJsonRpc(method.params, r.params);
    } catch (error) {
      return { answer: errorResponse(id, this.asRpcError(error, name)), cacheable: false };
    }
    const cacheable = cacheableWith(method, args);
    try {
      const result = await method.handle(args, this.options.context);
      return { answer: { jsonrpc: "2.0", id, result }, cacheable };
    } catch (error) {
      return { answer: errorResponse(id, this.asRpcError(error, name)), cacheable };
    }
  }

  private asRpcError(error: unknown, method: string): RpcErrorReply {
    if (error instanceof RpcErrorReply) return error;
    this.options.logger?.error({ err: error, method }, "RPC handler failed");
    // The full message (with file paths) is in the log above; the client gets it without them.
    return new RpcErrorReply(RpcCode.internalError, redactPaths((error as Error).message ?? String(error)), {
      cause: error,
    });
  }

  private async handleUri(url: URL, req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (url.pathname === "/") {
      res.writeHead(200, { "content-type": "text/html" });
      res.end(endpointsPage(req.headers.host ?? "localhost"));
      return;
    }
    const name = url.pathname.slice(1);
    if (name === "websocket") {
      // Not an upgrade (those go to the WebSocket hub): refused as CometBFT's upgrader refuses it, not a 404.
      const status = handshakeRefusal(req) ?? 400;
      const answer = handshakeRefusalAnswer(status);
      res.writeHead(status, answer.headers);
      res.end(answer.body);
      return;
    }
    const method = Object.hasOwn(RPC_METHODS, name) ? RPC_METHODS[name] : undefined;
    if (method === undefined) {
      notFound(res);
      return;
    }
    try {
      const args = argsFromUri(method.params, url.searchParams);
      const result = await method.handle(args, this.options.context);
      send(res, 200, { jsonrpc: "2.0", id: -1, result }, cacheableWith(method, args) ? CACHEABLE : {});
    } catch (error) {
      send(res, 500, errorResponse(-1, this.asRpcError(error, name)));
    }
  }
}
