// The HTTP listener of the consensus metrics (config.toml instrumentation.prometheus_listen_addr): GET /metrics
// answers Prometheus' text format from one prom-client registry; anything else is 404, as CometBFT's listener.
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Registry } from "prom-client";

// node:http is taken with process.getBuiltinModule, not a value import: an ESM import of it reads every export,
// WebSocket among them, whose getter loads undici (~30 ms of a node's start-up CPU, for nothing it uses).
const { createServer } = process.getBuiltinModule("node:http");

/** A started listener. */
export interface MetricsListener {
  /** http://host:port/metrics */
  url: string;
  close(): Promise<void>;
}

/**
 * Serves `registry` on `host:port` (port 0 = any free port). Rejects when it cannot listen.
 *
 * @example const listener = await listenForMetrics(metrics.registry, { host: "127.0.0.1", port: 26660 });
 */
export async function listenForMetrics(
  registry: Registry,
  at: { host: string; port: number; maxOpenConnections?: number },
): Promise<MetricsListener> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    if (path !== "/metrics" || (req.method !== "GET" && req.method !== "HEAD")) {
      res.writeHead(404, { "content-type": "text/plain; charset=utf-8" }).end("404 page not found\n");
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { "content-type": registry.contentType }).end(req.method === "HEAD" ? "" : text),
      (error: unknown) =>
        res
          .writeHead(500, { "content-type": "text/plain; charset=utf-8" })
          .end(`failed to gather metrics: ${error instanceof Error ? error.message : String(error)}\n`),
    );
  });
  // CometBFT's max_open_connections: 0 = no limit.
  if (at.maxOpenConnections !== undefined && at.maxOpenConnections > 0) server.maxConnections = at.maxOpenConnections;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(at.port, at.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}/metrics`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
