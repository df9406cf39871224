// Builds an in-process REST gateway (fastify inject, no socket) over a chain fixture.
import { parseAppConfig } from "../../../src/config/app-config.ts";
import { buildRestGateway, type RestGateway, type RestGatewayOptions } from "../../../src/server/rest-gateway.ts";
import { servedRoutes } from "../../../src/server/servers.ts";
import { type ChainFixture, openChainFixture, schedule } from "../../../src/testing/chain-fixture.ts";

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

/**
 * A chain at height 3 with something to query at every height: plan "v2" (height 100) scheduled at height 2,
 * where bob also received 100 from alice.
 */
export async function openQueriedChain(): Promise<ChainFixture> {
  const chain = await openChainFixture();
  chain.at(2n, schedule("v2", 100n));
  await chain.nextBlock(); // 1
  await chain.nextBlock([chain.send(chain.bob, "100")]); // 2
  await chain.nextBlock(); // 3
  return chain;
}
