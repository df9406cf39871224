// The gRPC server (docs/CONTRACT.md §6): real gRPC over HTTP/2 with @grpc/grpc-js, its service definitions built
// from the protobuf-es descriptors of the served routes and serialized with protobuf-es. Request
// metadata `x-chain-block-height` picks the state; the response's initial metadata says which
// height was used. Server reflection v1 and v1alpha are served from the same descriptors.

import { create, type DescService, fromBinary, type Message, toBinary } from "@bufbuild/protobuf";
import {
  type handleBidiStreamingCall,
  type handleUnaryCall,
  Metadata,
  type MethodDefinition,
  Server,
  ServerCredentials,
  type ServerErrorResponse,
  type UntypedServiceImplementation,
} from "@grpc/grpc-js";
import type { Logger } from "pino";
import { GrpcCode } from "../app/errors.ts";
import { fromWireBinary, toWireBinary } from "../app/wire-decimals.ts";
import {
  ServerReflection as ReflectionV1,
  type ServerReflectionRequest,
  ServerReflectionRequestSchema,
  type ServerReflectionResponse,
  ServerReflectionResponseSchema,
} from "../gen/grpc/reflection/v1/reflection_pb.js";
import { ServerReflection as ReflectionV1Alpha } from "../gen/grpc/reflection/v1alpha/reflection_pb.js";
import { routeGrpcLibraryLog } from "./grpc-library-log.ts";
import { closeConnectionsWithoutPreface, GRPC_PREFACE_TIMEOUT_MS } from "./grpc-preface-timeout.ts";
import { HEIGHT_HEADER, parseHeightHeader } from "./height.ts";
import type { QueryBackend } from "./query-backend.ts";
import { ReflectionIndex } from "./reflection.ts";
import { heightFor, runRouteAt, type ServedRoute } from "./served-routes.ts";
import { RequestError, statusOf } from "./status.ts";

/** Settings of {@link buildGrpcServer}. */
export interface GrpcServerOptions {
  backend: QueryBackend;
  routes: readonly ServedRoute[];
  /** grpc.max-recv-msg-size, bytes. */
  maxRecvMsgSize: number;
  /** grpc.max-send-msg-size, bytes. */
  maxSendMsgSize: number;
  logger?: Logger;
}

/** A built (not yet bound) gRPC server and the names of the services it serves. */
export interface BuiltGrpcServer {
  server: Server;
  services: string[];
}

/**
 * Builds the server with every served route's service plus reflection. Bind it with
 * {@link bindGrpcServer}.
 *
 * @example const { server } = buildGrpcServer({ backend, routes, maxRecvMsgSize: 10 << 20, maxSendMsgSize: 2 ** 31 - 1 });
 */
export function buildGrpcServer(options: GrpcServerOptions): BuiltGrpcServer {
  routeGrpcLibraryLog(options.logger);
  const server = new Server({
    "grpc.max_receive_message_length": options.maxRecvMsgSize,
    "grpc.max_send_message_length": options.maxSendMsgSize,
  });
  const byService = new Map<DescService, ServedRoute[]>();
  for (const route of options.routes) {
    const list = byService.get(route.service) ?? [];
    list.push(route);
    byService.set(route.service, list);
  }
  for (const routes of byService.values()) {
    const definition: Record<string, MethodDefinition<Buffer, Message>> = {};
    const implementation: UntypedServiceImplementation = {};
    for (const route of routes) {
      definition[route.method.name] = unaryDefinition(route);
      implementation[route.method.name] = unaryHandler(route, options);
    }
    server.addService(definition, implementation);
  }
  const reflected = [...byService.keys()];
  const index = new ReflectionIndex(
    [...reflected, ReflectionV1 as unknown as DescService, ReflectionV1Alpha as unknown as DescService],
    // The Any types too: grpcurl resolves an Any's type URL through reflection to print it.
    options.backend.registry,
  );
  for (const reflection of [ReflectionV1, ReflectionV1Alpha] as unknown as DescService[]) {
    const method = reflection.methods[0];
    const definition: MethodDefinition<ServerReflectionRequest, Message> = {
      path: `/${reflection.typeName}/${method.name}`,
      requestStream: true,
      responseStream: true,
      // v1 and v1alpha are the same messages on the wire, so one schema reads and writes both.
      requestDeserialize: (bytes) => fromBinary(ServerReflectionRequestSchema, bytes),
      requestSerialize: (message) => Buffer.from(toBinary(ServerReflectionRequestSchema, message)),
      responseSerialize: (message) =>
        bufferOf(toBinary(ServerReflectionResponseSchema, message as ServerReflectionResponse)),
      responseDeserialize: (bytes) => fromBinary(ServerReflectionResponseSchema, bytes),
    };
    server.addService({ [method.name]: definition }, { [method.name]: reflectionHandler(index) });
  }
  return { server, services: index.services() };
}

/**
 * Binds `server` to `host:port` (port 0 picks one) without TLS (clients use plaintext, e.g.
 * `grpcurl -plaintext`). Resolves to the bound port. A connection that has not sent the HTTP/2
 * preface within `prefaceTimeoutMs` (default 10 s) is closed.
 */
export async function bindGrpcServer(
  server: Server,
  host: string,
  port: number,
  prefaceTimeoutMs = GRPC_PREFACE_TIMEOUT_MS,
): Promise<number> {
  const target = host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
  const bound = await new Promise<number>((resolve, reject) => {
    server.bindAsync(target, ServerCredentials.createInsecure(), (err, boundPort) => {
      if (err !== null) reject(new Error(`cannot listen for gRPC on ${target}: ${err.message}`, { cause: err }));
      else resolve(boundPort);
    });
  });
  closeConnectionsWithoutPreface(server, prefaceTimeoutMs);
  return bound;
}

/** Stops `server`: new calls are refused, running ones may finish for up to `graceMs`, then all are cut. */
export function stopGrpcServer(server: Server, graceMs = 2000): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      server.forceShutdown();
      resolve();
    }, graceMs);
    server.tryShutdown(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

function unaryDefinition(route: ServedRoute): MethodDefinition<Buffer, Message> {
  return {
    path: route.path,
    requestStream: false,
    responseStream: false,
    // Requests are decoded in the handler, so that undecodable bytes are INVALID_ARGUMENT.
    requestSerialize: (bytes) => bytes,
    requestDeserialize: (bytes) => bytes,
    responseSerialize: (message) => bufferOf(toWireBinary(route.output, message)),
    responseDeserialize: (bytes) => fromWireBinary(route.output, bytes),
    originalName: route.method.localName,
  };
}

function unaryHandler(route: ServedRoute, options: GrpcServerOptions): handleUnaryCall<Buffer, Message> {
  return (call, callback) => {
    // The height the call runs at, once resolved: sent back on an answer and on a handler's error alike (a
    // height that cannot be used is itself the error, and has no height to report).
    let height: bigint | undefined;
    const sendHeight = (): void => {
      if (height === undefined) return;
      const metadata = new Metadata();
      metadata.set(HEIGHT_HEADER, String(height));
      call.sendMetadata(metadata);
    };
    const run = async () => {
      let request: Message;
      try {
        request = fromWireBinary(route.input, call.request);
      } catch (err) {
        throw new RequestError(
          GrpcCode.InvalidArgument,
          `cannot decode ${route.input.typeName}: ${(err as Error).message}`,
          { cause: err },
        );
      }
      // Node's HTTP/2 layer joins a key sent twice with ", " (as node:http does for REST): split it back.
      const values = call.metadata.get(HEIGHT_HEADER).flatMap((value) => value.toString().split(","));
      height = heightFor(options.backend, route, parseHeightHeader(values));
      return runRouteAt(options.backend, route, request, height);
    };
    run().then(
      (response) => {
        sendHeight();
        callback(null, response);
      },
      (err: unknown) => {
        const status = statusOf(err);
        if (status.grpcCode === GrpcCode.Internal) options.logger?.error({ err, path: route.path }, "gRPC call failed");
        sendHeight();
        callback(serviceError(status.grpcCode, status.message));
      },
    );
  };
}

function reflectionHandler(index: ReflectionIndex): handleBidiStreamingCall<ServerReflectionRequest, Message> {
  return (call) => {
    const sent = new Set<string>();
    call.on("data", (request: ServerReflectionRequest) => {
      call.write(create(ServerReflectionResponseSchema, index.answer(request, sent)));
    });
    call.on("end", () => call.end());
    call.on("error", () => undefined);
  };
}

function serviceError(code: number, message: string): ServerErrorResponse {
  return Object.assign(new Error(message), { code, details: message });
}

function bufferOf(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
