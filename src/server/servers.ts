// Starting and stopping the node's gRPC server and REST gateway from app.toml's `[api]` and `[grpc]`
// (docs/CONTRACT.md §6, §7). Both serve the same routes: the node's tx, tendermint and node services first,
// then every module Query service the app registered.
import type { Logger } from "pino";
import type { AppConfig } from "../config/app-config.ts";
import { UserError } from "../errors/user-error.ts";
import { corsPolicy } from "./cors.ts";
import { bindGrpcServer, buildGrpcServer, stopGrpcServer } from "./grpc-server.ts";
import { type BoundAddress, ConnectionGate } from "./http-listener.ts";
import { nodeServiceRoutes } from "./node-service.ts";
import type { NodeHooks, QueryBackend } from "./query-backend.ts";
import { buildRestGateway, type RestGateway } from "./rest-gateway.ts";
import { moduleRoutes, type ServedRoute } from "./served-routes.ts";
import { observeRoutes, type ServerTelemetry } from "./telemetry.ts";
import { tendermintServiceRoutes } from "./tendermint-service.ts";
import { txServiceRoutes } from "./tx-service.ts";

/** What {@link startServers} needs. */
export interface StartServersParameters {
  backend: QueryBackend;
  /** The consensus engine's side of the tx/tendermint/node services; missing hooks answer Unimplemented. */
  hooks?: NodeHooks;
  /** The loaded app.toml (only `api`, `grpc`, and the facts node Config reports are read). */
  config: Pick<AppConfig, "api" | "grpc" | "minimumGasPrices" | "pruningSettings" | "haltHeight">;
  logger?: Logger;
  /** Version written into the Swagger document (the node's release). */
  version?: string;
  /** app.toml [telemetry] on: queries are timed into it and REST serves GET /metrics?format=prometheus. */
  telemetry?: ServerTelemetry;
}

/** The running servers and where they listen. */
export interface RunningServers {
  /** The REST gateway's bound address and base URL (undefined when api.enable = false). */
  rest?: { address: BoundAddress; url: string; gateway: RestGateway; gate: ConnectionGate };
  /** The gRPC server's bound address (undefined when grpc.enable = false). */
  grpc?: { host: string; port: number; address: string; services: string[] };
  /** Stops both servers. */
  stop(): Promise<void>;
}

/** Thrown when two services claim the same method path or a listener cannot start. */
export class ServerStartError extends UserError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "ServerStartError";
  }
}

/**
 * Every route the servers serve, node services first. Throws ServerStartError when a module
 * registered a path a node service already has.
 */
export function servedRoutes(
  backend: QueryBackend,
  hooks: NodeHooks,
  config: StartServersParameters["config"],
): ServedRoute[] {
  const routes = [
    ...txServiceRoutes(hooks),
    ...tendermintServiceRoutes(hooks),
    ...nodeServiceRoutes(backend, hooks, config),
    ...moduleRoutes(backend.routes()),
  ];
  const seen = new Set<string>();
  for (const route of routes) {
    if (seen.has(route.path)) throw new ServerStartError(`the method ${route.path} is registered twice`);
    seen.add(route.path);
  }
  return routes;
}

/**
 * Starts the REST gateway on `api.address` and the gRPC server on `grpc.address` (each only when
 * enabled). Port 0 picks a free port; the bound addresses are returned.
 *
 * @example
 * const servers = await startServers({ backend, hooks, config: await loadAppConfig(home) });
 * console.log(servers.rest?.url, servers.grpc?.address);
 * await stopServers(servers);
 */
export async function startServers(parameters: StartServersParameters): Promise<RunningServers> {
  const { backend, config, logger, telemetry } = parameters;
  const routes = servedRoutes(backend, parameters.hooks ?? {}, config);
  const routesFor = (transport: "grpc" | "rest") =>
    telemetry === undefined ? routes : observeRoutes(routes, transport, telemetry);
  const stops: (() => Promise<void>)[] = [];
  const stopAll = async () => {
    for (const stop of stops.splice(0).reverse()) await stop();
  };
  const running: RunningServers = { stop: stopAll };
  try {
    if (config.grpc.enable) {
      const built = buildGrpcServer({
        backend,
        routes: routesFor("grpc"),
        maxRecvMsgSize: config.grpc.maxRecvMsgSize,
        maxSendMsgSize: config.grpc.maxSendMsgSize,
        logger,
      });
      const { host, port } = config.grpc.address;
      const bound = await bindGrpcServer(built.server, host, port);
      stops.push(() => stopGrpcServer(built.server));
      const shownHost = host.includes(":") ? `[${host}]` : host;
      running.grpc = { host, port: bound, address: `${shownHost}:${bound}`, services: built.services };
      logger?.info({ address: running.grpc.address }, "gRPC server listening");
    }
    if (config.api.enable) {
      const api = config.api;
      const gateway = buildRestGateway({
        backend,
        routes: routesFor("rest"),
        swagger: api.swagger,
        upgradePage: api.upgradePage,
        cors: corsPolicy(api.enabledUnsafeCors, api.corsAllowedOrigins),
        maxBodyBytes: api.rpcMaxBodyBytes,
        maxOpenConnections: api.maxOpenConnections,
        readTimeoutSeconds: api.rpcReadTimeoutSeconds,
        writeTimeoutSeconds: api.rpcWriteTimeoutSeconds,
        version: parameters.version,
        logger,
        telemetry,
      });
      await gateway.app.ready();
      const gate = new ConnectionGate(gateway.server, api.maxOpenConnections);
      let address: BoundAddress;
      try {
        address =
          api.address.protocol === "unix"
            ? await gate.listen({ path: api.address.path })
            : await gate.listen({ host: api.address.host, port: api.address.port });
      } catch (err) {
        throw new ServerStartError(`cannot listen for REST on ${api.address.address}: ${(err as Error).message}`, {
          cause: err,
        });
      }
      stops.push(async () => {
        const closed = gate.close();
        await gateway.app.close();
        // Requests still running are cut: the node is shutting down.
        gateway.server.closeAllConnections();
        await closed;
      });
      const url =
        "path" in address
          ? `unix://${address.path}`
          : `http://${address.host.includes(":") ? `[${address.host}]` : address.host}:${address.port}`;
      running.rest = { address, url, gateway, gate };
      logger?.info({ url }, "REST gateway listening");
    }
  } catch (err) {
    await stopAll();
    throw err;
  }
  return running;
}

/** Stops servers started by {@link startServers}. */
export async function stopServers(servers: RunningServers): Promise<void> {
  await servers.stop();
}
