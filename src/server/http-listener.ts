// The gateway's socket side: an HTTP server with app.toml's read timeout that holds at most
// `max-open-connections` connections open. As upstream's limited listener does, extra connections
// are not refused at once: they wait, unread, until an open one closes — but at most as many as
// may be open (upstream leaves them in the kernel's accept backlog); beyond that they are closed.
// A waiting connection is handed to the HTTP server only when admitted, so its read timeout starts
// then, not at connect.
import type { Server as HttpServer, IncomingMessage, RequestListener } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { listenAddressFor } from "./listen-host.ts";

// node:http is taken with process.getBuiltinModule, not a value import: an ESM import of it reads every export,
// WebSocket among them, whose getter loads undici (~30 ms of a node's start-up CPU, for nothing it uses).
const { createServer: createHttpServer, ServerResponse } = process.getBuiltinModule("node:http");

/** Socket-level settings from app.toml's `[api]`. */
export interface HttpListenerOptions {
  /** 0 = no limit. */
  maxOpenConnections: number;
  /** Time to receive a whole request (headers and body); 0 = no limit. */
  readTimeoutSeconds: number;
}

/** An HTTP server for `handler` with the read timeout applied (it does not listen by itself). */
export function createTimedHttpServer(handler: RequestListener, options: HttpListenerOptions): HttpServer {
  const readMs = options.readTimeoutSeconds * 1000;
  return createHttpServer(
    {
      requestTimeout: readMs,
      headersTimeout: readMs,
      // Timeouts are checked on this interval; the default (30 s) would let short timeouts overrun.
      connectionsCheckingInterval: readMs > 0 ? Math.min(1000, readMs) : 30_000,
      keepAliveTimeout: 5_000,
    },
    handler,
  );
}

/**
 * Answers CONNECT requests like any other method. Node hands a CONNECT to the server's "connect" event, never to
 * its request listener, and with no "connect" listener it just closes the socket; so a CONNECT on a known path got
 * no answer at all instead of the 405 with Allow every other unserved method gets. The request is emitted as a
 * normal one with a response bound to its socket, and the connection is closed once the answer is written (no
 * tunnel is ever opened).
 */
export function answerConnectAsRequest(http: HttpServer): void {
  http.on("connect", (request: IncomingMessage, socket: Socket) => {
    const response = new ServerResponse(request);
    response.shouldKeepAlive = false;
    response.assignSocket(socket);
    response.once("finish", () => {
      response.detachSocket(socket);
      socket.end();
    });
    http.emit("request", request, response);
  });
}

/** Where a listener is bound. */
export type BoundAddress = { host: string; port: number } | { path: string };

/**
 * Makes `http` accept at most `maxOpenConnections` connections at once (0 = unlimited). Sockets are
 * accepted paused and only read once admitted, so a waiting client's request is not read (and its
 * read timeout not started) until a slot frees up. Call `listen`, then `close` to stop accepting.
 */
export class ConnectionGate {
  private readonly http: HttpServer;
  private readonly maxOpenConnections: number;
  private readonly waiting: Socket[] = [];
  private open = 0;

  private readonly deliver: (socket: Socket) => void;

  constructor(http: HttpServer, maxOpenConnections: number) {
    this.http = http;
    this.maxOpenConnections = maxOpenConnections;
    // net.Server reads `pauseOnConnect` each time it accepts; http.createServer has no option for it.
    (http as unknown as { pauseOnConnect: boolean }).pauseOnConnect = true;
    // The HTTP server starts a connection's header/request timers in its own "connection"
    // listener, so that listener is taken off and called only when the connection is admitted. The
    // server itself still listens, which is what sets up its timeout checks. (Overriding the
    // server's emit instead made every event it emits, each request's included, pay for a wrapper.)
    const serve = http.listeners("connection") as ((socket: Socket) => void)[];
    http.removeAllListeners("connection");
    this.deliver = (socket) => {
      for (const listener of serve) listener.call(http, socket);
    };
    http.on("connection", (socket: Socket) => this.arrive(socket));
  }

  /** Connections being served now. */
  get openConnections(): number {
    return this.open;
  }

  /** Connections waiting for a free slot. */
  get waitingConnections(): number {
    return this.waiting.length;
  }

  /** Listens on a TCP host/port (port 0 picks one) or a unix socket path; resolves to the bound address. */
  async listen(address: { host: string; port: number } | { path: string }): Promise<BoundAddress> {
    const host = "path" in address ? "" : await listenAddressFor(address.host);
    return new Promise((resolve, reject) => {
      this.http.once("error", reject);
      const done = () => {
        this.http.off("error", reject);
        if ("path" in address) resolve({ path: address.path });
        else {
          const bound = this.http.address() as AddressInfo;
          resolve({ host: bound.address, port: bound.port });
        }
      };
      if ("path" in address) this.http.listen(address.path, done);
      else this.http.listen(address.port, host, done);
    });
  }

  /** Stops accepting and drops waiting connections; open ones are left to the caller. */
  close(): Promise<void> {
    for (const socket of this.waiting.splice(0)) socket.destroy();
    return new Promise((resolve) => {
      if (!this.http.listening) resolve();
      else this.http.close(() => resolve());
    });
  }

  private arrive(socket: Socket): void {
    if (this.maxOpenConnections === 0 || this.open < this.maxOpenConnections) this.admit(socket);
    else if (this.waiting.length < this.maxOpenConnections) this.waiting.push(socket);
    else socket.destroy();
  }

  private admit(socket: Socket): void {
    this.open++;
    socket.once("close", () => {
      this.open--;
      this.next();
    });
    this.deliver(socket);
    socket.resume();
  }

  private next(): void {
    while (this.waiting.length > 0) {
      const socket = this.waiting.shift() as Socket;
      if (socket.destroyed) continue;
      this.admit(socket);
      return;
    }
  }
}
