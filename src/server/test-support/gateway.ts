// Builds an in-process REST gateway (fastify inject, no socket) over a chain fixture.
import { parseAppConfig } from "../../config/app-config.ts";
import type { ChainFixture } from "../../testing/chain-fixture.ts";
import { buildRestGateway, type RestGateway, type RestGatewayOptions } from "../rest-gateway.ts";
import { servedRoutes } from "../servers.ts";

/** The default app.toml, as `chaind init` leaves it. */
export const DEFAULT_CONFIG = parseAppConfig("");

/** A gateway over `chain` with app.toml defaults, overridable per test. */
export function gatewayFor(chain: ChainFixture, overrides: Partial<RestGatewayOptions> = {}): RestGateway {
  return buildRestGateway({
    backend: chain.backend,
    routes: servedRoutes(chain.backend, chain.hooks, DEFAULT_CONFIG),
    swagger: true,
    cors: undefined,
    maxBodyBytes: DEFAULT_CONFIG.api.rpcMaxBodyBytes,
    maxOpenConnections: 0,
    readTimeoutSeconds: 10,
    writeTimeoutSeconds: 0,
    ...overrides,
  });
}
