// Typed queries of the node's Query services: the method's descriptor gives the path
// (`/chain.bank.v1beta1.Query/AllBalances`) and the request/response codecs; a QueryTransport carries
// the bytes (the consensus RPC's `abci_query`, as upstream's CLI does, or real gRPC).

import { create, type DescMessage, type MessageInitShape, type MessageShape } from "@bufbuild/protobuf";
import type { GenMessage } from "@bufbuild/protobuf/codegenv2";
import { fromWireBinary, toWireBinary } from "../../app/wire-decimals.ts";
import type { QueryTransport } from "./query-transport.ts";
import { RpcError } from "./rpc-client.ts";

/** A query the node answered with an error: the app's codespace and code (ABCI, or the gRPC status code) and its message. */
export class QueryError extends RpcError {
  readonly codespace: string;
  readonly abciCode: number;

  constructor(message: string, codespace: string, abciCode: number) {
    super(message, { code: abciCode });
    this.name = "QueryError";
    this.codespace = codespace;
    this.abciCode = abciCode;
  }
}

/** A query method as a typed descriptor triple: `{ path, input, output }`. */
export interface QueryMethod<I extends DescMessage, O extends DescMessage> {
  readonly name: string;
  readonly parent: { readonly typeName: string };
  readonly input: I;
  readonly output: O;
}

/** Calls one query method at `height` (0 or undefined = latest); returns the response and the height used. */
export async function grpcQuery<I extends GenMessage<never> | DescMessage, O extends DescMessage>(
  transport: Pick<QueryTransport, "query">,
  method: QueryMethod<I, O>,
  request: MessageInitShape<I>,
  height?: bigint,
): Promise<{ response: MessageShape<O>; height: bigint }> {
  const path = queryMethodPath(method);
  const data = toWireBinary(method.input, create(method.input, request));
  const answer = await transport.query(path, data, height);
  let response: MessageShape<O>;
  try {
    response = fromWireBinary(method.output, answer.value);
  } catch (err) {
    throw new RpcError(`the node's answer to ${path} is not a ${method.output.typeName}: ${(err as Error).message}`, {
      cause: err,
    });
  }
  return { response, height: answer.height };
}

/** The gRPC method path of a query method: `/<service>/<Method>`. */
export function queryMethodPath(method: {
  readonly name: string;
  readonly parent: { readonly typeName: string };
}): string {
  return `/${method.parent.typeName}/${method.name}`;
}
