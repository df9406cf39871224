// `chain.tx.v1beta1.Service` (docs/CONTRACT.md §4, §7; upstream's x/tx gateway routes): request checks, defaults
// and paging here; the node's hooks submit, simulate, look up and search.

import { create, type MessageInitShape, toBinary } from "@bufbuild/protobuf";
import { GrpcCode } from "../app/errors.ts";
import { isExtendedCommitTx } from "../app/extended-commit.ts";
import { capHistoryLimit } from "../app/pagination.ts";
import { txFromTxRaw } from "../client/tx/tx-raw.ts";
import { type BroadcastMode, OrderBy, Service as TxService } from "../gen/chain/tx/v1beta1/service_pb.js";
import { AuthInfoSchema, type Tx, TxBodySchema, TxRawSchema, TxSchema } from "../gen/chain/tx/v1beta1/tx_pb.js";
import type { NodeHooks } from "./query-backend.ts";
import type { ServedRoute } from "./served-routes.ts";
import { type ServiceImpl, serviceRoutes } from "./service-routes.ts";
import { RequestError } from "./status.ts";

const DEFAULT_LIMIT = 100n;
const AMINO_UNSUPPORTED =
  "legacy amino encoding is not supported by this chain: use protobuf (POST /chain/tx/v1beta1/encode or /decode)";

/** The served routes of `chain.tx.v1beta1.Service` over the node's hooks. */
export function txServiceRoutes(hooks: NodeHooks): ServedRoute[] {
  const impl: ServiceImpl<typeof TxService> = {
    txDecode: async (request) => {
      if (request.txBytes.length === 0) throw invalid("invalid empty tx bytes");
      return { tx: txFromRaw(request.txBytes) };
    },
    txEncode: async (request) => {
      if (request.tx === undefined) throw invalid("invalid empty tx");
      return { txBytes: rawFromTx(request.tx) };
    },
    // This chain signs only with SIGN_MODE_DIRECT and has no legacy amino codec: asking for amino
    // is a request the node cannot accept (400), not a failure of the node (5xx).
    txEncodeAmino: async () => {
      throw invalid(AMINO_UNSUPPORTED);
    },
    txDecodeAmino: async () => {
      throw invalid(AMINO_UNSUPPORTED);
    },
  };
  const { simulate, broadcastTx, getTx, searchTxs, block } = hooks;
  if (simulate !== undefined) {
    impl.simulate = async (request, at) => {
      let txBytes = request.txBytes;
      if (txBytes.length === 0 && request.tx !== undefined) txBytes = rawFromTx(request.tx);
      if (txBytes.length === 0) throw invalid("empty txBytes is not allowed");
      return simulate(txBytes, await at.context());
    };
  }
  if (broadcastTx !== undefined) {
    impl.broadcastTx = async (request) => {
      if (request.txBytes.length === 0) throw invalid("invalid empty tx");
      return { txResponse: await broadcastTx(request.txBytes, broadcastModeOf(request.mode)) };
    };
  }
  if (getTx !== undefined) {
    impl.getTx = async (request) => {
      const hash = request.hash;
      if (hash === "") throw invalid("tx hash cannot be empty");
      if (!/^[0-9a-fA-F]{64}$/.test(hash)) {
        throw invalid(`invalid tx hash "${hash}": expected 64 hexadecimal characters (the sha256 of the tx bytes)`);
      }
      const found = await getTx(hash.toUpperCase());
      if (found === undefined) throw new RequestError(GrpcCode.NotFound, `tx not found: ${hash}`);
      return found;
    };
  }
  if (searchTxs !== undefined) {
    impl.getTxsEvent = async (request) => {
      // `events` is the pre-v0.50 form of the query: conditions joined with AND.
      const query = request.query !== "" ? request.query : request.events.join(" AND ");
      if (query.trim() === "") throw invalid("query cannot be empty");
      const page = request.page === 0n ? 1n : request.page;
      const asked = request.limit !== 0n ? request.limit : (request.pagination?.limit ?? 0n) || DEFAULT_LIMIT;
      // The tx history only grows: a larger limit gets a page of 100 (CometBFT's tx_search per_page
      // cap), and `total` / `pagination.total` tell the client how many pages there are.
      const limit = capHistoryLimit(asked);
      const order = request.orderBy === OrderBy.DESC ? "desc" : "asc";
      const found = await searchTxs({ query, page, limit, order });
      // A page past the last one is an error, as upstream's (CometBFT's tx_search page check, with the SDK's
      // prefix); an invalid argument, so 400 on REST (docs/CONTRACT.md §7). An empty result has one empty page.
      const pages = found.total === 0n ? 1n : (found.total + limit - 1n) / limit;
      if (page > pages) {
        throw invalid(`failed to search for txs: page should be within [1, ${pages}] range, given ${page}`);
      }
      return {
        txs: found.txs,
        txResponses: found.txResponses,
        pagination: { nextKey: new Uint8Array(), total: found.total },
        total: found.total,
      };
    };
  }
  if (block !== undefined) {
    impl.getBlockWithTxs = async (request, at) => {
      const height = request.height;
      if (height < 1n || height > at.height) {
        throw invalid(
          `invalid height: requested height ${height} but height must not be less than 1 or greater than the current height ${at.height}`,
        );
      }
      const found = await block(height);
      if (found === undefined) throw new RequestError(GrpcCode.NotFound, `block at height ${height} is not available`);
      const raw = found.block.data?.txs ?? [];
      const { offset, limit, reverse } = pageOf(request.pagination);
      const count = BigInt(raw.length);
      if (offset > 0n && offset >= count) {
        throw invalid(`out of range: cannot paginate ${count} txs with offset ${offset} and limit ${limit}`);
      }
      const ordered = reverse ? [...raw].reverse() : raw;
      const page = ordered.slice(Number(offset), Number(offset + limit));
      return {
        txs: page.map((bytes) => txFromRaw(bytes)),
        blockId: found.blockId,
        block: found.block,
        pagination: { total: count },
      };
    };
  }
  return serviceRoutes(TxService, impl, ["broadcastTx"]);
}

/** Offset paging as the tx and validator-set services do it: limit 0 is 100, at most 100; keys are refused. */
export function pageOf(pagination: { key: Uint8Array; offset: bigint; limit: bigint; reverse: boolean } | undefined): {
  offset: bigint;
  limit: bigint;
  reverse: boolean;
} {
  if (pagination === undefined) return { offset: 0n, limit: DEFAULT_LIMIT, reverse: false };
  if (pagination.key.length > 0) {
    throw invalid("pagination.key is not supported here: page with pagination.offset and pagination.limit");
  }
  return {
    offset: pagination.offset,
    limit: pagination.limit === 0n ? DEFAULT_LIMIT : capHistoryLimit(pagination.limit),
    reverse: pagination.reverse,
  };
}

function broadcastModeOf(mode: BroadcastMode): "sync" | "async" {
  // BROADCAST_MODE_SYNC = 2, BROADCAST_MODE_ASYNC = 3; UNSPECIFIED and the removed BLOCK are refused.
  if (mode === 2) return "sync";
  if (mode === 3) return "async";
  const name = mode === 1 ? "block" : mode === 0 ? "unspecified" : String(mode);
  throw invalid(
    `unsupported return type ${name}; supported types: sync, async (mode BROADCAST_MODE_SYNC or BROADCAST_MODE_ASYNC)`,
  );
}

/**
 * Decodes raw tx bytes (a TxRaw) into a Tx; undecodable bytes are InvalidArgument. A block's extended-commit tx
 * (src/app/extended-commit.ts: the vote extensions, not a user's tx) reads as an empty Tx, so block and tx-search
 * answers that list it do not fail.
 */
export function txFromRaw(bytes: Uint8Array): Tx {
  if (isExtendedCommitTx(bytes)) return create(TxSchema);
  try {
    return txFromTxRaw(bytes);
  } catch (err) {
    throw new RequestError(GrpcCode.InvalidArgument, `tx parse error: ${(err as Error).message}`, { cause: err });
  }
}

/** Encodes a Tx as raw tx bytes (a TxRaw). */
export function rawFromTx(tx: Tx): Uint8Array {
  const raw: MessageInitShape<typeof TxRawSchema> = {
    bodyBytes: toBinary(TxBodySchema, tx.body ?? create(TxBodySchema)),
    authInfoBytes: toBinary(AuthInfoSchema, tx.authInfo ?? create(AuthInfoSchema)),
    signatures: tx.signatures,
  };
  return toBinary(TxRawSchema, create(TxRawSchema, raw));
}

function invalid(message: string): RequestError {
  return new RequestError(GrpcCode.InvalidArgument, message);
}
