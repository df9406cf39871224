// The consensus RPC's socket side, as CometBFT's JSON-RPC HTTP server limits it
// (rpc/jsonrpc/server/http_server.go): at most `rpc.max_open_connections` connections (0 = no limit;
// CometBFT's LimitListener), 10 s to read a request's headers and body (ReadHeaderTimeout and
// ReadTimeout), and a write timeout of 10 s, raised to `timeout_broadcast_tx_commit` + 1 s so a
// broadcast_tx_commit can wait its full time (CometBFT's node does the same). What a client sees when a
// read times out is Go's, as a real CometBFT v0.38 answered (scripts/rpc-compare.ts): an idle connection or
// one with partial headers is closed without a word; one whose body stalls gets CometBFT's 400 JSON-RPC error
// `error reading request body: read tcp L->R: i/o timeout`; a keep-alive connection idle for the read timeout
// is closed (Go's IdleTimeout falls back to ReadTimeout).
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { Socket } from "node:net";

// node:http is taken with process.getBuiltinModule, not a value import: an ESM import of it reads every export,
// WebSocket among them, whose getter loads undici (~30 ms of a node's start-up CPU, for nothing it uses).
const { createServer } = process.getBuiltinModule("node:http");

/** CometBFT's read and write timeouts (DefaultConfig of its RPC HTTP server). */
export const RPC_READ_TIMEOUT_MS = 10_000;
export const RPC_WRITE_TIMEOUT_MS = 10_000;

/** Connection limits of the consensus RPC. */
export interface RpcConnectionLimits {
  /** rpc.max_open_connections; 0 = no limit. */
  maxOpenConnections?: number;
  /** Time to receive a request's headers and body (default 10 s). */
  readTimeoutMs?: number;
  /** Time to write a response from the end of its request's headers (default 10 s); 0 = no limit. */
  writeTimeoutMs?: number;
}

/** The write timeout CometBFT uses for its RPC: 10 s, or timeout_broadcast_tx_commit + 1 s when that is longer. */
export function rpcWriteTimeoutMs(timeoutBroadcastTxCommitMs: number): number {
  return Math.max(RPC_WRITE_TIMEOUT_MS, timeoutBroadcastTxCommitMs + 1000);
}

/**
 * An HTTP server for the consensus RPC with `limits` applied. Connections beyond the limit are
 * closed as they arrive (an idle client cannot hold a slot for longer than the read timeout, since
 * a connection that sends no complete request in that time is closed too).
 */
export function createLimitedRpcServer(limits: RpcConnectionLimits): Server {
  const readMs = limits.readTimeoutMs ?? RPC_READ_TIMEOUT_MS;
  const writeMs = limits.writeTimeoutMs ?? RPC_WRITE_TIMEOUT_MS;
  const server = createServer({
    headersTimeout: readMs,
    requestTimeout: readMs,
    // How often Node checks the two timeouts above; its 30 s default would let them overrun.
    connectionsCheckingInterval: Math.max(100, Math.min(1000, readMs)),
    keepAliveTimeout: readMs,
  });
  const max = limits.maxOpenConnections ?? 0;
  if (max > 0) server.maxConnections = max;
  // The request whose body is still being read on each socket: a timeout then is a stalled body, not headers.
  const reading = new WeakMap<Socket, ServerResponse>();
  server.on("request", (request: IncomingMessage, response: ServerResponse) => {
    if (request.complete) return;
    reading.set(request.socket, response);
    request.once("end", () => reading.delete(request.socket));
  });
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Socket) => {
    const response = reading.get(socket);
    if (error.code === "ERR_HTTP_REQUEST_TIMEOUT" && response !== undefined && !response.headersSent) {
      stalledBody(socket, response);
    } else if (error.code === "ERR_HTTP_REQUEST_TIMEOUT") {
      socket.destroy();
    } else {
      badRequest(socket, error);
    }
  });
  if (writeMs > 0) {
    server.on("request", (request: IncomingMessage, response: ServerResponse) => {
      limitWriteTime(request.socket, response, writeMs);
    });
  }
  return server;
}

// CometBFT's JSON handler when io.ReadAll of the body fails on the read deadline (no id: id,omitempty).
function stalledBody(socket: Socket, response: ServerResponse): void {
  const address = (host: string | undefined, port: number | undefined) =>
    `${host?.includes(":") ? `[${host}]` : host}:${port}`;
  const body = JSON.stringify({
    jsonrpc: "2.0",
    error: {
      code: -32600,
      message: "Invalid Request",
      data: `error reading request body: read tcp ${address(socket.localAddress, socket.localPort)}->${address(socket.remoteAddress, socket.remotePort)}: i/o timeout`,
    },
  });
  response.shouldKeepAlive = false;
  response.writeHead(400, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
  response.end(body, () => socket.destroy());
}

// Go's server on a request it cannot parse: a plain-text status and the connection closed.
function badRequest(socket: Socket, error: NodeJS.ErrnoException): void {
  const status = error.code === "HPE_HEADER_OVERFLOW" ? "431 Request Header Fields Too Large" : "400 Bad Request";
  if (!socket.writable || socket.bytesWritten > 0) {
    socket.destroy();
    return;
  }
  socket.end(
    `HTTP/1.1 ${status}\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n${status}`,
    () => socket.destroy(),
  );
}

// Go's WriteTimeout: a response not written in time loses its connection.
function limitWriteTime(socket: Socket, response: ServerResponse, ms: number): void {
  const timer = setTimeout(() => {
    if (!response.writableFinished) socket.destroy();
  }, ms);
  timer.unref();
  response.once("close", () => clearTimeout(timer));
}
