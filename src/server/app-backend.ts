// The App as the servers' QueryBackend, plus the node hooks the App itself can answer (simulation).
// The node adds the consensus engine's hooks (blocks, broadcast, tx index) on top.
import { toAbciEvents } from "../app/abci-convert.ts";
import type { App } from "../app/base-app.ts";
import type { NodeHooks, QueryBackend } from "./query-backend.ts";

/**
 * The App's query routes, heights and query contexts.
 *
 * @example await startServers({ backend: appQueryBackend(app), hooks: { ...appNodeHooks(app), ...engineHooks }, config })
 */
export function appQueryBackend(app: App): QueryBackend {
  return {
    routes: () => app.queryRouter.routes(),
    latestHeight: () => app.store.lastCommit().version,
    earliestHeight: () => app.store.earliestVersion(),
    queryContext: (height) => app.createQueryContext(height),
    latestQueryContext: (height) => app.latestQueryContext(height),
    registry: app.typeRegistry,
  };
}

/** The hooks the App answers by itself: `simulate` (against the latest state plus the mempool's). */
export function appNodeHooks(app: App): Pick<NodeHooks, "simulate"> {
  return {
    simulate: async (txBytes) => {
      const simulation = await app.simulate(txBytes);
      const { result } = simulation;
      return {
        gasInfo: simulation.gasInfo,
        result: {
          data: result.data,
          log: result.log,
          events: toAbciEvents(result.events),
          msgResponses: result.msgResponses,
        },
      };
    },
  };
}
