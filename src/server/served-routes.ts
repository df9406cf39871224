// The one call path both transports use: a route, a decoded request and the requested height in;
// the response and the height actually used out. Module queries run their handler with a query
// context at that height; the node's own services (tx, tendermint, node) get the height and a
// context on demand.
import type { DescMessage, DescMethod, DescService, Message } from "@bufbuild/protobuf";
import type { Context } from "../app/context.ts";
import type { QueryRoute } from "../app/router.ts";
import { resolveHeight } from "./height.ts";
import type { QueryBackend } from "./query-backend.ts";

/** The state a call runs against. */
export interface CallAt {
  /** The height used: the requested one, or the latest. */
  height: bigint;
  /** A query context at `height` (created on first use, then shared). */
  context(): Promise<Context>;
}

/** A route the servers serve: a module query or one of the node's services. */
export interface ServedRoute {
  /** `/chain.bank.v1beta1.Query/AllBalances` */
  path: string;
  service: DescService;
  method: DescMethod;
  input: DescMessage;
  output: DescMessage;
  /**
   * False for a method that does not read state at a height (BroadcastTx): the height header is
   * not consulted and the latest height is reported.
   */
  heightBound: boolean;
  handler(request: Message, at: CallAt): Promise<Message>;
  /**
   * A module query's own handler: callRoute runs it with the query context directly (no CallAt,
   * no wrapper), the same call `handler` makes.
   */
  moduleHandler?: (request: Message, ctx: Context) => Promise<Message>;
}

/** What a call returns. */
export interface CallResult {
  response: Message;
  height: bigint;
}

/** Module query routes as served routes: the handler gets a query context at the height used. */
export function moduleRoutes(routes: readonly QueryRoute[]): ServedRoute[] {
  return routes.map((route) => ({
    path: route.path,
    service: route.service,
    method: route.method,
    input: route.input,
    output: route.output,
    heightBound: true,
    handler: async (request, at) => route.handler(request, await at.context()),
    moduleHandler: route.handler,
  }));
}

/**
 * Runs `route` for `request` at `requested` (undefined = latest). Height errors are thrown as the
 * store's FutureVersionError / PrunedVersionError; handler errors propagate unchanged.
 */
export async function callRoute(
  backend: QueryBackend,
  route: ServedRoute,
  request: Message,
  requested: bigint | undefined,
): Promise<CallResult> {
  const height = heightFor(backend, route, requested);
  return { response: await runRouteAt(backend, route, request, height), height };
}

/** Runs `route` for `request` at `height`, already resolved by {@link heightFor}; handler errors propagate unchanged. */
export function runRouteAt(
  backend: QueryBackend,
  route: ServedRoute,
  request: Message,
  height: bigint,
): Promise<Message> {
  if (route.moduleHandler !== undefined) return runModuleRoute(backend, route.moduleHandler, request, height);
  let context: Promise<Context> | undefined;
  const at: CallAt = {
    height,
    context: () => {
      context ??= backend.queryContext(height);
      return context;
    },
  };
  return route.handler(request, at);
}

/** The height `route` runs at for `requested` (undefined = latest); throws the store's height errors. */
export function heightFor(backend: QueryBackend, route: ServedRoute, requested: bigint | undefined): bigint {
  const latest = backend.latestHeight();
  return route.heightBound ? resolveHeight(requested, latest, backend.earliestHeight()) : latest;
}

/** A module query's handler with a query context at `height` (taken at once when the backend has it at hand). */
export function runModuleRoute(
  backend: QueryBackend,
  handler: NonNullable<ServedRoute["moduleHandler"]>,
  request: Message,
  height: bigint,
): Promise<Message> {
  const ctx = backend.latestQueryContext?.(height);
  if (ctx !== undefined) return handler(request, ctx);
  return backend.queryContext(height).then((context) => handler(request, context));
}
