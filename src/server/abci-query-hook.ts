// NodeHooks.abciQuery answered by an App's own ABCI Query, field for field: the one mapping of a ResponseQuery to the
// gRPC ABCIQuery answer, shared by the node's hooks (embedded engine, CometBFT) and the testing kit's chain fixture.
import { create } from "@bufbuild/protobuf";
import { type RequestQuery, RequestQuerySchema, type ResponseQuery } from "../gen/tendermint/abci/types_pb.js";
import type { NodeHooks } from "./query-backend.ts";

/** What the hook needs of the App: its ABCI Query. */
export interface AbciQueryable {
  query(request: RequestQuery): Promise<ResponseQuery>;
}

/** NodeHooks.abciQuery over `app`'s ABCI Query (code, log, info, index, key, value, proof ops, height, codespace). */
export function abciQueryHook(app: AbciQueryable): NonNullable<NodeHooks["abciQuery"]> {
  return async (request) => {
    const response = await app.query(create(RequestQuerySchema, request));
    return {
      code: response.code,
      log: response.log,
      info: response.info,
      index: response.index,
      key: response.key,
      value: response.value,
      proofOps:
        response.proofOps === undefined
          ? undefined
          : { ops: response.proofOps.ops.map((op) => ({ type: op.type, key: op.key, data: op.data })) },
      height: response.height,
      codespace: response.codespace,
    };
  };
}
