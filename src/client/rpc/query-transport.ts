// How a query reaches the node's Query services: a gRPC method path and the request's binary encoding
// in, the response bytes out. Two transports: the consensus RPC's `abci_query` (upstream's CLI default)
// and real gRPC (`--grpc-addr`). Both pick the state height the same way (0 or absent = latest) and
// report the height the node used.
import type { Client, Metadata, ServiceError } from "@grpc/grpc-js";
import { QueryError, type RpcClient, RpcError } from "./rpc-client.ts";

/** A query's answer: the response bytes and the height of the state that answered. */
export interface QueryAnswer {
  value: Uint8Array;
  height: bigint;
}

/** Runs queries by gRPC method path (`/chain.bank.v1beta1.Query/AllBalances`). */
export interface QueryTransport {
  /** Resolves with the response bytes; rejects with QueryError when the node answers with an error. */
  query(path: string, request: Uint8Array, height?: bigint): Promise<QueryAnswer>;
  /** Releases connections (gRPC); a no-op for the RPC transport. */
  close(): void;
}

/** Queries through the consensus RPC's `abci_query`; a non-zero ABCI code becomes a QueryError with the node's log. */
export function abciQueryTransport(rpc: Pick<RpcClient, "abciQuery">): QueryTransport {
  return {
    async query(path, request, height) {
      const result = await rpc.abciQuery(path, request, { height });
      if (result.code !== 0) {
        throw new QueryError(
          result.log || `query ${path} failed with code ${result.code}`,
          result.codespace,
          result.code,
        );
      }
      return { value: result.value, height: result.height };
    },
    close() {},
  };
}

/** The metadata key that selects (request) and reports (response) the state height. */
export const HEIGHT_METADATA_KEY = "x-chain-block-height";

/**
 * Turns `--grpc-addr` (`localhost:9090`, `tcp://host:port`, `http://host:port`) into grpc-js's `host:port`.
 * Throws RpcError with the expected forms for anything else.
 */
export function grpcTarget(address: string): string {
  const match = /^(?:(?:tcp|http|grpc):\/\/)?([^/:\s]+|\[[^\]]+\]):(\d{1,5})\/?$/.exec(address.trim());
  // A port past 65535 is refused here, as --node's: grpc-js would report it as a connection failure.
  if (match === null || Number(match[2]) > 65535) {
    throw new RpcError(`invalid --grpc-addr "${address}": expected host:port such as localhost:9090`);
  }
  return `${match[1]}:${match[2]}`;
}

/**
 * Queries over real gRPC (plaintext HTTP/2); the height travels in `x-chain-block-height` metadata.
 * grpc-js (over a hundred modules) is imported on the first query, so a CLI run that uses the consensus
 * RPC never pays for loading it.
 */
export function grpcQueryTransport(address: string): QueryTransport {
  const target = grpcTarget(address);
  let client: Client | undefined;
  const identity = (bytes: Uint8Array) => Buffer.from(bytes);
  return {
    async query(path, request, height) {
      const { Client, credentials, Metadata } = await import("@grpc/grpc-js");
      client ??= new Client(target, credentials.createInsecure());
      const connected = client;
      const metadata = new Metadata();
      if (height !== undefined && height > 0n) metadata.set(HEIGHT_METADATA_KEY, height.toString());
      return new Promise<QueryAnswer>((resolve, reject) => {
        let answeredHeight = 0n;
        const call = connected.makeUnaryRequest(
          path,
          identity,
          (bytes: Buffer) => new Uint8Array(bytes),
          request,
          metadata,
          { deadline: Date.now() + 30_000 },
          (error: ServiceError | null, value?: Uint8Array) => {
            if (error !== null) {
              reject(grpcFailure(error, target, path));
              return;
            }
            resolve({ value: value ?? new Uint8Array(), height: answeredHeight });
          },
        );
        call.on("metadata", (received: Metadata) => {
          const [first] = received.get(HEIGHT_METADATA_KEY);
          if (typeof first === "string" && /^\d+$/.test(first)) answeredHeight = BigInt(first);
        });
      });
    },
    close() {
      client?.close();
    },
  };
}

// gRPC status 14 (UNAVAILABLE) means nothing answered; anything else is the node's own answer and keeps its text.
function grpcFailure(error: ServiceError, target: string, path: string): Error {
  if (error.code === 14) {
    return new RpcError(
      `cannot reach the node's gRPC server at ${target} (${path}): ${error.details}; is it running?`,
      {
        cause: error,
      },
    );
  }
  return new QueryError(error.details || error.message, "", error.code);
}
