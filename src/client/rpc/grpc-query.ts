// Typed gRPC-style queries carried over the consensus RPC's `abci_query`, as upstream's CLI does:
// the path is the gRPC method path and the data is the request's binary encoding.
import {
  create,
  type DescMessage,
  fromBinary,
  type MessageInitShape,
  type MessageShape,
  toBinary,
} from "@bufbuild/protobuf";
import type { GenMessage } from "@bufbuild/protobuf/codegenv2";
import { type RpcClient, RpcError } from "./rpc-client.ts";

/** A query answered with a non-zero ABCI code: carries the app's codespace, code and message. */
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
  rpc: RpcClient,
  method: QueryMethod<I, O>,
  request: MessageInitShape<I>,
  height?: bigint,
): Promise<{ response: MessageShape<O>; height: bigint }> {
  const path = `/${method.parent.typeName}/${method.name}`;
  const data = toBinary(method.input, create(method.input, request));
  const result = await rpc.abciQuery(path, data, { height });
  if (result.code !== 0) throw new QueryError(result.log || `query ${path} failed`, result.codespace, result.code);
  return { response: fromBinary(method.output, result.value), height: result.height };
}
