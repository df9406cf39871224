// The servers' side of the application metrics (app.toml [telemetry]): each gRPC and REST query's route and
// seconds go to the node's telemetry, and the REST server answers GET /metrics?format=prometheus. Without
// telemetry nothing is wrapped and /metrics is an unknown path (404), as upstream's API server without it.
import { performance } from "node:perf_hooks";
import { GrpcCode } from "../app/errors.ts";
import type { ServedRoute } from "./served-routes.ts";

/** Where a query came in. */
export type QueryTransport = "grpc" | "rest" | "abci";

/** What the servers need from the node's application metrics. */
export interface ServerTelemetry {
  /** One query answered (or failed) on `transport` for the method path `route`. Must be cheap. */
  observeQuery(transport: QueryTransport, route: string, seconds: number): void;
  /** The metrics in Prometheus' text format, and its content type. */
  gather(): Promise<{ contentType: string; text: string }>;
}

/** `routes` with each handler timed into `telemetry` as `transport`. */
export function observeRoutes(
  routes: readonly ServedRoute[],
  transport: QueryTransport,
  telemetry: ServerTelemetry,
): ServedRoute[] {
  return routes.map((route) => {
    const timed =
      <A extends unknown[], R>(run: (...args: A) => Promise<R>) =>
      async (...args: A): Promise<R> => {
        const start = performance.now();
        try {
          return await run(...args);
        } finally {
          telemetry.observeQuery(transport, route.path, (performance.now() - start) / 1000);
        }
      };
    const moduleHandler = route.moduleHandler;
    return {
      ...route,
      handler: timed(route.handler.bind(route)),
      moduleHandler: moduleHandler === undefined ? undefined : timed(moduleHandler),
    };
  });
}

/**
 * The answer to GET /metrics with the query string `query`: 400 for a missing or other format, with upstream's text
 * in the gateway's error body (docs/CONTRACT.md: every REST error body is `{code, message, details}`).
 */
export async function metricsAnswer(
  query: string,
  telemetry: ServerTelemetry,
): Promise<{ status: number; contentType: string; body: string }> {
  const format = new URLSearchParams(query).get("format");
  if (format !== "prometheus") {
    const problem = format === null ? "no format given" : `unsupported metrics format ${JSON.stringify(format)}`;
    return {
      status: 400,
      contentType: "application/json",
      body: JSON.stringify({
        code: GrpcCode.InvalidArgument,
        message: `failed to gather metrics: ${problem}; use /metrics?format=prometheus`,
        details: [],
      }),
    };
  }
  const { contentType, text } = await telemetry.gather();
  return { status: 200, contentType, body: text };
}
