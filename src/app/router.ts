// Routing of Msgs by type URL and of queries by gRPC method path, both built from the generated
// service descriptors. Every transport (tx pipeline, gov proposal execution, ABCI Query, gRPC, REST,
// CLI) looks handlers up here, so a handler is written once.

import { create, type DescMessage, type DescMethod, type DescService, type Message } from "@bufbuild/protobuf";
import type { GenService, GenServiceMethods } from "@bufbuild/protobuf/codegenv2";
import type { Context } from "./context.ts";
import { ErrTxDecode, ErrUnknownRequest, GrpcCode, GrpcStatusError } from "./errors.ts";
import type { ServiceHandlers, ServiceRegistrar } from "./module.ts";
import { signerFields } from "./signers.ts";
import { fromWireBinary, toWireBinary } from "./wire-decimals.ts";

/** A handler after registration: takes and returns messages of the method's types. */
export type RoutedHandler = (request: Message, ctx: Context) => Promise<Message>;

/** One routable Msg type. */
export interface MsgRoute {
  /** `/chain.bank.v1beta1.MsgSend` */
  typeUrl: string;
  service: DescService;
  method: DescMethod;
  /** The Msg type (the method's input). */
  input: DescMessage;
  /** The response type (the method's output); packed into TxMsgData.msg_responses. */
  output: DescMessage;
  handler: RoutedHandler;
}

/** One query method. */
export interface QueryRoute {
  /** `/chain.bank.v1beta1.Query/AllBalances` */
  path: string;
  service: DescService;
  method: DescMethod;
  input: DescMessage;
  output: DescMessage;
  handler: RoutedHandler;
  /** False for a method the module left out (its handler answers Unimplemented). */
  implemented: boolean;
}

/** Thrown at registration time for a duplicate route or a handler name the service does not have. */
export class RouteRegistrationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RouteRegistrationError";
  }
}

/** The type URL of a message type: "/" + full name. */
export function typeUrlOf(desc: DescMessage): string {
  return `/${desc.typeName}`;
}

/** The gRPC path of a method: `/<package>.<Service>/<Method>`. */
export function methodPath(method: DescMethod): string {
  return `/${method.parent.typeName}/${method.name}`;
}

/** Msg routes by type URL. */
export class MsgRouter {
  private readonly byTypeUrl = new Map<string, MsgRoute>();

  /** Registers every method of a Msg service (see ServiceRegistrar.registerMsgService). */
  register(service: DescService, handlers: Record<string, unknown>): void {
    checkHandlerNames(service, handlers);
    for (const method of service.methods) {
      const handler = handlers[method.localName];
      if (typeof handler !== "function") {
        throw new RouteRegistrationError(`Msg service ${service.typeName} has no handler for method ${method.name}`);
      }
      const typeUrl = typeUrlOf(method.input);
      if (this.byTypeUrl.has(typeUrl)) {
        throw new RouteRegistrationError(`a handler for ${typeUrl} is already registered`);
      }
      // Fail at wiring time, not at the first tx, when a Msg does not say who signs it.
      signerFields(method.input);
      this.byTypeUrl.set(typeUrl, {
        typeUrl,
        service,
        method,
        input: method.input,
        output: method.output,
        handler: wrapHandler(method, handler as (req: Message, ctx: Context) => Promise<unknown>),
      });
    }
  }

  /** The route of a type URL, if registered. */
  route(typeUrl: string): MsgRoute | undefined {
    return this.byTypeUrl.get(typeUrl);
  }

  /** Every route, sorted by type URL. */
  routes(): MsgRoute[] {
    return [...this.byTypeUrl.values()].sort((a, b) => (a.typeUrl < b.typeUrl ? -1 : 1));
  }

  /**
   * Decodes an Any into its route and message: unknown type URL → sdk 6
   * `no message handler found for <typeUrl>: unknown request`; undecodable value → sdk 2.
   */
  unpack(any: { typeUrl: string; value: Uint8Array }): { route: MsgRoute; msg: Message } {
    const route = this.byTypeUrl.get(any.typeUrl);
    if (route === undefined) throw ErrUnknownRequest.wrap(`no message handler found for ${any.typeUrl}`);
    let msg: Message;
    try {
      msg = fromWireBinary(route.input, any.value);
    } catch (err) {
      throw ErrTxDecode.wrap(`cannot decode ${any.typeUrl}: ${(err as Error).message}`, { cause: err });
    }
    return { route, msg };
  }
}

/** Query routes by method path and by descriptor. */
export class QueryRouter {
  private readonly byPath = new Map<string, QueryRoute>();
  private readonly byMethod = new Map<DescMethod, QueryRoute>();

  /** Registers a Query service; methods without a handler answer Unimplemented. */
  register(service: DescService, handlers: Record<string, unknown>): void {
    checkHandlerNames(service, handlers);
    for (const method of service.methods) {
      const path = methodPath(method);
      if (this.byPath.has(path)) throw new RouteRegistrationError(`a handler for ${path} is already registered`);
      const handler = handlers[method.localName];
      const implemented = typeof handler === "function";
      const route: QueryRoute = {
        path,
        service,
        method,
        input: method.input,
        output: method.output,
        implemented,
        handler: implemented
          ? wrapHandler(method, handler as (req: Message, ctx: Context) => Promise<unknown>)
          : async () => {
              throw new GrpcStatusError(GrpcCode.Unimplemented, `method ${path} is not implemented`);
            },
      };
      this.byPath.set(path, route);
      this.byMethod.set(method, route);
    }
  }

  /**
   * The route of a gRPC path. Paths under the upstream package name (`/cosmos.bank.v1beta1.Query/…`)
   * resolve to the same route, so stock Cosmos clients' queries work (the binary encodings are equal).
   */
  route(path: string): QueryRoute | undefined {
    const direct = this.byPath.get(path);
    if (direct !== undefined) return direct;
    if (path.startsWith("/cosmos.")) return this.byPath.get(`/chain.${path.slice("/cosmos.".length)}`);
    return undefined;
  }

  /** The route of a method descriptor. */
  routeOf(method: DescMethod): QueryRoute | undefined {
    return this.byMethod.get(method);
  }

  /** Every route, sorted by path. */
  routes(): QueryRoute[] {
    return [...this.byPath.values()].sort((a, b) => (a.path < b.path ? -1 : 1));
  }

  /** Services with at least one registered method. */
  services(): DescService[] {
    return [...new Set([...this.byPath.values()].map((route) => route.service))];
  }

  /**
   * Runs a query from binary: decodes the request, calls the handler, encodes the response.
   * Unknown path → GrpcStatusError Unimplemented; undecodable request → InvalidArgument.
   */
  async queryBinary(path: string, request: Uint8Array, ctx: Context): Promise<Uint8Array> {
    const route = this.route(path);
    if (route === undefined) throw new GrpcStatusError(GrpcCode.Unimplemented, `unknown query path ${path}`);
    let decoded: Message;
    try {
      decoded = fromWireBinary(route.input, request);
    } catch (err) {
      throw new GrpcStatusError(
        GrpcCode.InvalidArgument,
        `cannot decode ${route.input.typeName}: ${(err as Error).message}`,
        { cause: err },
      );
    }
    const response = await route.handler(decoded, ctx);
    return toWireBinary(route.output, response);
  }
}

/** A ServiceRegistrar feeding the two routers (what the module manager hands each module). */
export function routerRegistrar(msgRouter: MsgRouter, queryRouter: QueryRouter): ServiceRegistrar {
  return {
    registerMsgService<S extends GenService<GenServiceMethods>>(service: S, handlers: ServiceHandlers<S>): void {
      msgRouter.register(service as unknown as DescService, handlers as Record<string, unknown>);
    },
    registerQueryService<S extends GenService<GenServiceMethods>>(
      service: S,
      handlers: Partial<ServiceHandlers<S>>,
    ): void {
      queryRouter.register(service as unknown as DescService, handlers as Record<string, unknown>);
    },
  };
}

function checkHandlerNames(service: DescService, handlers: Record<string, unknown>): void {
  const known = new Set(service.methods.map((m) => m.localName));
  for (const name of Object.keys(handlers)) {
    if (!known.has(name)) {
      throw new RouteRegistrationError(
        `service ${service.typeName} has no method "${name}" (methods: ${[...known].join(", ")})`,
      );
    }
  }
}

function wrapHandler(method: DescMethod, handler: (req: Message, ctx: Context) => Promise<unknown>): RoutedHandler {
  const output = method.output;
  return async (request, ctx) => {
    const response = await handler(request, ctx);
    return create(output, response as Parameters<typeof create>[1]);
  };
}
