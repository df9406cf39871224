// ABCI Query routing, as upstream's baseapp answers it: gRPC method paths first (binary request and
// response, errors mapped to sdk codes with upstream's `rpc error: code = … desc = …` log), then
// `/app/simulate`, `/app/version`, `/store/<name>/key` (with ICS-23 proof ops when `prove`) and
// `/store/<name>/subspace`; every answer at the requested committed height.
import { create, type JsonValue } from "@bufbuild/protobuf";
import { BinaryWriter } from "@bufbuild/protobuf/wire";
import { type RequestQuery, type ResponseQuery, ResponseQuerySchema } from "../gen/tendermint/abci/types_pb.js";
import { ProofOpsSchema } from "../gen/tendermint/crypto/proof_pb.js";
import { FutureVersionError, InvalidVersionError, PrunedVersionError, StoreNotFoundError } from "../store/errors.ts";
import type { CommitMultiStore } from "../store/types.ts";
import type { Context } from "./context.ts";
import {
  abciInfo,
  ChainError,
  ErrInvalidHeight,
  ErrInvalidRequest,
  ErrKeyNotFound,
  ErrNotFound,
  ErrTxDecode,
  ErrUnauthorized,
  ErrUnknownRequest,
  GrpcCode,
  grpcCodeName,
  grpcCodeOf,
  type RegisteredError,
  wrap,
} from "./errors.ts";
import type { QueryRouter } from "./router.ts";

/**
 * What ABCI Query needs of the App (base-app.ts's App has it all). Declared here, not imported, so
 * the App can call this file without the two importing each other. `S` is the App's simulation result.
 */
export interface AbciQueryApp<S = unknown> {
  readonly name: string;
  readonly version: string;
  readonly store: CommitMultiStore;
  readonly queryRouter: QueryRouter;
  lastBlockHeight(): bigint;
  createQueryContext(height?: bigint): Promise<Context>;
  simulate(txBytes: Uint8Array): Promise<S>;
  simulationResponseJson(simulation: S): JsonValue;
}

type App = AbciQueryApp;

/** Answers one ABCI Query (see the file comment). Never throws: failures become a response code. */
export async function handleAbciQuery(app: AbciQueryApp, request: RequestQuery): Promise<ResponseQuery> {
  if (request.path === "") return failure(ErrUnknownRequest.wrap("no query path provided"), 0n);
  const path = request.path.startsWith("/") ? request.path : `/${request.path}`;
  if (path === "/chain.tx.v1beta1.Service/BroadcastTx" || path === "/cosmos.tx.v1beta1.Service/BroadcastTx") {
    return failure(ErrInvalidRequest.wrap("can't route a broadcast tx message"), 0n);
  }
  const route = app.queryRouter.route(path);
  if (route !== undefined) return grpcQuery(app, path, request);
  const parts = path.slice(1).split("/");
  try {
    if (parts[0] === "app") return await appQuery(app, parts, request);
    if (parts[0] === "store") return await storeQuery(app, parts, request);
  } catch (err) {
    return failure(err, 0n);
  }
  return failure(ErrUnknownRequest.wrap("unknown query path"), 0n);
}

async function grpcQuery(app: App, path: string, request: RequestQuery): Promise<ResponseQuery> {
  let ctx: Context;
  try {
    ctx = await queryContext(app, request.height, request.prove);
  } catch (err) {
    return failure(err, 0n);
  }
  try {
    const value = await app.queryRouter.queryBinary(path, request.data, ctx);
    return create(ResponseQuerySchema, { code: 0, value, height: ctx.blockHeight });
  } catch (err) {
    return failure(grpcErrorToSdk(err), ctx.blockHeight);
  }
}

// Upstream's handleQueryApp: an answer carries codespace "sdk" and the request's height (0 = the latest, which
// baseapp's Query puts in before routing); errors are `failed to simulate tx: …` and `unknown query: [app x]`
// (Go's %s of the path's parts). A height given is checked as every other path checks it (future, negative, pruned:
// docs/CONTRACT.md §5), where upstream answers any.
async function appQuery(app: App, parts: string[], request: RequestQuery): Promise<ResponseQuery> {
  if (request.height !== 0n) await resolveHeight(app, request.height);
  const height = request.height === 0n ? app.lastBlockHeight() : request.height;
  const answer = (value: string) =>
    create(ResponseQuerySchema, { code: 0, codespace: "sdk", value: new TextEncoder().encode(value), height });
  if (parts.length < 2) {
    throw ErrUnknownRequest.wrap("expected second parameter to be either 'simulate' or 'version', neither was present");
  }
  switch (parts[1]) {
    case "simulate": {
      let simulation: Awaited<ReturnType<App["simulate"]>>;
      try {
        simulation = await app.simulate(request.data);
      } catch (err) {
        throw wrap(err, "failed to simulate tx");
      }
      return answer(JSON.stringify(app.simulationResponseJson(simulation)));
    }
    case "version":
      return answer(app.version);
    default:
      throw ErrUnknownRequest.wrap(`unknown query: [${parts.join(" ")}]`);
  }
}

// In upstream's order (baseapp, the multistore, then the store's own Query): the proof height check, the store
// name, an empty key or prefix, then the subpath, which must be /key or /subspace.
async function storeQuery(app: App, parts: string[], request: RequestQuery): Promise<ResponseQuery> {
  const storeName = parts[1] ?? "";
  const subpath = parts.length > 2 ? `/${parts.slice(2).join("/")}` : "";
  const height = await resolveHeight(app, request.height);
  if (request.prove && height <= 1n) {
    throw ErrInvalidRequest.wrap("cannot query with proof when height <= 1; please provide a valid height");
  }
  const view = await app.store.view(height);
  if (!view.storeNames().includes(storeName)) throw ErrUnknownRequest.wrap(`no such store: ${storeName}`);
  if (request.data.length === 0) throw ErrTxDecode.wrap("query cannot be zero length");
  if (subpath !== "/key" && subpath !== "/subspace") {
    throw ErrUnknownRequest.wrap(`unexpected query path: ${subpath}`);
  }
  const store = view.store(storeName);
  if (subpath === "/key") {
    const value = (await store.get(request.data)) ?? new Uint8Array();
    let proofOps: ResponseQuery["proofOps"];
    if (request.prove) {
      const proof = await app.store.prove(storeName, request.data, height);
      proofOps = create(ProofOpsSchema, {
        ops: proof.ops.map((op) => ({ type: op.type, key: op.key, data: op.data })),
      });
    }
    return create(ResponseQuerySchema, { code: 0, key: request.data, value, proofOps, height });
  }
  // subspace: every pair under the prefix, as upstream's kv.Pairs{pairs: [{key, value}]}.
  const writer = new BinaryWriter();
  for await (const [key, value] of store.iterate({ prefix: request.data })) {
    writer.uint32((1 << 3) | 2).fork();
    writer.uint32((1 << 3) | 2).bytes(key);
    writer.uint32((2 << 3) | 2).bytes(value);
    writer.join();
  }
  return create(ResponseQuerySchema, { code: 0, key: request.data, value: writer.finish(), height });
}

async function queryContext(app: App, height: bigint, prove: boolean): Promise<Context> {
  let ctx: Context;
  try {
    ctx = await app.createQueryContext(height);
  } catch (err) {
    throw heightError(err);
  }
  if (prove && ctx.blockHeight <= 1n) {
    throw ErrInvalidRequest.wrap("cannot query with proof when height <= 1; please provide a valid height");
  }
  return ctx;
}

async function resolveHeight(app: App, height: bigint): Promise<bigint> {
  const latest = app.lastBlockHeight();
  if (height < 0n) throw heightError(new InvalidVersionError(height));
  if (latest === 0n) throw ErrInvalidHeight.wrap(`${app.name} is not ready; please wait for first block`);
  if (height > latest) throw heightError(new FutureVersionError(height, latest));
  const resolved = height === 0n ? latest : height;
  if (resolved < app.store.earliestVersion()) {
    throw heightError(new PrunedVersionError(resolved, app.store.earliestVersion(), latest));
  }
  return resolved;
}

// Store height errors keep their texts; over ABCI they carry sdk codes (future/negative → 26; pruned → 38, as
// v0.50's CreateQueryContext wraps an unloadable height in ErrNotFound, where v0.47 used ErrInvalidRequest, 18).
function heightError(err: unknown): unknown {
  if (err instanceof FutureVersionError || err instanceof InvalidVersionError) {
    return ErrInvalidHeight.wrap(err.message, { cause: err });
  }
  if (err instanceof PrunedVersionError) return ErrNotFound.wrap(err.message, { cause: err });
  if (err instanceof StoreNotFoundError) return ErrUnknownRequest.wrap(err.message, { cause: err });
  return err;
}

// Upstream gRPCErrorToSDKError: a handler's status becomes an sdk error whose log keeps the gRPC text.
function grpcErrorToSdk(err: unknown): unknown {
  const code = grpcCodeOf(err);
  const message = err instanceof Error ? err.message : String(err);
  const text = `rpc error: code = ${grpcCodeName(code)} desc = ${message}`;
  let root: RegisteredError;
  switch (code) {
    case GrpcCode.NotFound:
      root = ErrKeyNotFound;
      break;
    case GrpcCode.InvalidArgument:
    case GrpcCode.FailedPrecondition:
      root = ErrInvalidRequest;
      break;
    case GrpcCode.Unauthenticated:
      root = ErrUnauthorized;
      break;
    default:
      root = ErrUnknownRequest;
  }
  return new ChainError(root, `${text}: ${root.description}`, { cause: err });
}

function failure(err: unknown, height: bigint): ResponseQuery {
  const info = abciInfo(err);
  return create(ResponseQuerySchema, { code: info.code, codespace: info.codespace, log: info.log, height });
}
