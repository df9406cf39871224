// The consensus RPC methods (CometBFT v0.38 rpc/core), answered from the engine, its block store and the app.

import { create } from "@bufbuild/protobuf";
import { merkleProof } from "../../crypto/merkle.ts";
import {
  RequestCheckTxSchema,
  RequestInfoSchema,
  RequestQuerySchema,
  type ResponseCheckTx,
  type TxResult,
} from "../../gen/tendermint/abci/types_pb.js";
import type { NewBlockEvent } from "../engine.ts";
import { ENGINE_VERSION } from "../engine.ts";
import { txHash } from "../hashing/hashes.ts";
import { MempoolError } from "../mempool.ts";
import { formatRfc3339 } from "../time.ts";
import { parseTxQuery, TxQueryError } from "../tx-query.ts";
import { blockSearch } from "./block-search.ts";
import {
  b64,
  blockIdJson,
  blockJson,
  blockMetaJson,
  blockResultsJson,
  checkTxJson,
  commitJson,
  consensusParamsJson,
  execTxResultJson,
  headerJson,
  hexUpper,
  infoJson,
  type Json,
  pubKeyJson,
  queryJson,
  validatorJson,
} from "./json-shapes.ts";
import { internalError } from "./rpc-error.ts";
import type { RpcContext, RpcMethod } from "./rpc-method-types.ts";
import type { Args, ParamSpec } from "./rpc-params.ts";
import { statusResult } from "./status-result.ts";

export type { RpcContext, RpcMethod, RpcNodeInfo } from "./rpc-method-types.ts";

const int64 = (name: string): ParamSpec => ({ name, type: "int64" });
/** The `tx` param; CometBFT hands an absent one to CheckTx as an empty tx (the app refuses it), not as an error. */
const txArg = (args: Args): Uint8Array => (args.tx as Uint8Array | undefined) ?? new Uint8Array(0);
const EMPTY_BLOCK_ID: Json = { hash: "", parts: { total: 0, hash: "" } };
const MAX_PER_PAGE = 100n;
const DEFAULT_PER_PAGE = 30n;
const GENESIS_CHUNK_SIZE = 16 * 1024 * 1024;

/**
 * CometBFT `getHeight`: absent means latest; a given height must be within [1, latest] and at or above the base
 * (`height=0` is an error there, not "latest").
 */
function resolveHeight(ctx: RpcContext, requested: bigint | undefined, latest = ctx.engine.committedHeight): bigint {
  if (requested === undefined) return latest;
  if (requested <= 0n) throw internalError(`height must be greater than 0, but got ${requested}`);
  if (requested > latest) {
    throw internalError(`height ${requested} must be less than or equal to the current blockchain height ${latest}`);
  }
  const base = ctx.engine.store.base;
  if (requested < base) throw internalError(`height ${requested} is not available, lowest height is ${base}`);
  return requested;
}

function perPageOf(v: bigint | undefined): bigint {
  if (v === undefined || v <= 0n) return DEFAULT_PER_PAGE;
  return v > MAX_PER_PAGE ? MAX_PER_PAGE : v;
}

function pageOf(v: bigint | undefined, perPage: bigint, total: number): bigint {
  const pages = total === 0 ? 1n : (BigInt(total) + perPage - 1n) / perPage;
  const page = v ?? 1n;
  if (page <= 0n || page > pages) throw internalError(`page should be within [1, ${pages}] range, given ${page}`);
  return page;
}

function txResultJson(t: TxResult, proof?: Json): Json {
  const out: { [k: string]: Json } = {
    hash: hexUpper(txHash(t.tx)),
    height: t.height.toString(),
    index: t.index,
    tx_result: execTxResultJson(t.result),
    tx: b64(t.tx),
  };
  if (proof !== undefined) out.proof = proof;
  return out;
}

/** The tx's Merkle proof, or undefined when its block was pruned (CometBFT then leaves `proof` out). */
async function txProof(ctx: RpcContext, t: TxResult): Promise<Json | undefined> {
  if (t.height < ctx.engine.store.base) return undefined;
  const stored = await ctx.engine.store.block(t.height);
  if (stored === undefined) throw internalError(`block ${t.height} of tx ${hexUpper(txHash(t.tx))} is missing`);
  const p = merkleProof(stored.block.txs.map(txHash), t.index);
  return {
    root_hash: hexUpper(stored.block.header.dataHash),
    data: b64(t.tx),
    proof: { total: String(p.total), index: String(p.index), leaf_hash: b64(p.leafHash), aunts: p.aunts.map(b64) },
  };
}

function checkTxIndex(ctx: RpcContext): void {
  if (ctx.node.txIndexEnabled === false) throw internalError("transaction indexing is disabled");
}

function mempoolFailure(error: unknown, prefix = ""): never {
  if (error instanceof MempoolError) throw internalError(`${prefix}${error.message}`, error);
  throw internalError(`${prefix}${(error as Error).message}`, error);
}

async function blockAt(ctx: RpcContext, height: bigint): Promise<Json> {
  if (height === 0n) return { block_id: EMPTY_BLOCK_ID, block: null };
  const stored = await ctx.engine.store.block(height);
  if (stored === undefined) return { block_id: EMPTY_BLOCK_ID, block: null };
  return { block_id: blockIdJson(stored.blockId), block: blockJson(stored.block) };
}

/** Every method, by name. */
export const RPC_METHODS: Record<string, RpcMethod> = {
  // Not OK while the block store is known to be damaged or its latest block does not read back.
  health: {
    params: [],
    handle: async (_args, ctx) => {
      const { store } = ctx.engine;
      const height = ctx.engine.committedHeight;
      // The newest and the oldest block: a damaged or cut table file shows at one end or the other
      // (any other damage shows when read, and from then on here).
      if (store.damaged === undefined && height > 0n) {
        await store.block(height);
        await store.block(store.base);
      }
      if (store.damaged !== undefined) throw internalError(store.damaged.message);
      return {};
    },
  },

  status: {
    params: [],
    async handle(_args, ctx) {
      const { engine, node } = ctx;
      const store = engine.store;
      const latest = ctx.engine.committedHeight;
      // The base and its meta together: with pruning, the base can move while it is read.
      const earliest = latest > 0n ? await store.earliestMeta() : undefined;
      const pv = engine.privValidator;
      const mine = engine.state.validators.find((v) => Buffer.compare(v.address, pv.address) === 0);
      return statusResult({
        engine: ENGINE_VERSION,
        appVersion: engine.handshakeInfo.appVersion,
        chainId: engine.genesis.chainId,
        node: {
          id: node.nodeId,
          moniker: node.moniker,
          p2pListenAddr: node.p2pListenAddr,
          p2pChannels: node.p2pChannels,
          rpcListenAddr: node.rpcListenAddr,
          txIndexEnabled: node.txIndexEnabled !== false,
        },
        latestHeight: latest,
        latest: latest > 0n ? await store.blockMeta(latest) : undefined,
        earliestHeight: earliest?.height ?? store.base,
        earliest: earliest?.meta,
        validator: { address: pv.address, pubKey: pv.pubKey, votingPower: mine?.votingPower ?? 0n },
        catchingUp: false,
      });
    },
  },

  net_info: {
    params: [],
    handle: async () => ({ listening: true, listeners: [], n_peers: "0", peers: [] }),
  },

  abci_info: {
    cacheable: { unlessZero: [] },
    params: [],
    async handle(_args, ctx) {
      const info = await ctx.engine.app.info(
        create(RequestInfoSchema, {
          version: ENGINE_VERSION.core,
          blockVersion: ENGINE_VERSION.block,
          p2pVersion: ENGINE_VERSION.p2p,
          abciVersion: ENGINE_VERSION.abci,
        }),
      );
      return { response: infoJson(info) };
    },
  },

  abci_query: {
    params: [
      { name: "path", type: "string" },
      { name: "data", type: "hexbytes" },
      int64("height"),
      { name: "prove", type: "bool" },
    ],
    async handle(args, ctx) {
      const res = await ctx.engine.app.query(
        create(RequestQuerySchema, {
          path: (args.path as string | undefined) ?? "",
          data: (args.data as Uint8Array | undefined) ?? new Uint8Array(0),
          height: (args.height as bigint | undefined) ?? 0n,
          prove: (args.prove as boolean | undefined) ?? false,
        }),
      );
      return { response: queryJson(res) };
    },
  },

  check_tx: {
    params: [{ name: "tx", type: "bytes" }],
    async handle(args, ctx) {
      const tx = txArg(args);
      const res = await ctx.engine.withAppLock(() => ctx.engine.app.checkTx(create(RequestCheckTxSchema, { tx })));
      return checkTxJson(res);
    },
  },

  broadcast_tx_async: {
    params: [{ name: "tx", type: "bytes" }],
    async handle(args, ctx) {
      const tx = txArg(args);
      try {
        ctx.engine.mempool.beginCheckTx(tx, { events: false }).catch(() => {});
      } catch (error) {
        mempoolFailure(error);
      }
      return { code: 0, data: "", log: "", codespace: "", hash: hexUpper(txHash(tx)) };
    },
  },

  broadcast_tx_sync: {
    params: [{ name: "tx", type: "bytes" }],
    async handle(args, ctx) {
      const tx = txArg(args);
      let res: ResponseCheckTx;
      try {
        // The answer carries no events: the app need not build them.
        res = await ctx.engine.mempool.checkTx(tx, { events: false });
      } catch (error) {
        mempoolFailure(error);
      }
      return {
        code: res.code,
        data: hexUpper(res.data),
        log: res.log,
        codespace: res.codespace,
        hash: hexUpper(txHash(tx)),
      };
    },
  },

  broadcast_tx_commit: {
    params: [{ name: "tx", type: "bytes" }],
    async handle(args, ctx) {
      const tx = txArg(args);
      const hash = txHash(tx);
      let unsubscribe: () => void = () => {};
      const included = new Promise<{ event: NewBlockEvent; index: number }>((resolve) => {
        unsubscribe = ctx.engine.onNewBlock((event) => {
          const index = event.block.txs.findIndex((t) => Buffer.compare(txHash(t), hash) === 0);
          if (index >= 0) resolve({ event, index });
        });
      });
      try {
        let check: ResponseCheckTx;
        try {
          check = await ctx.engine.mempool.checkTx(tx);
        } catch (error) {
          mempoolFailure(error, "error on broadcastTxCommit: ");
        }
        if (check.code !== 0) {
          return {
            check_tx: checkTxJson(check),
            tx_result: execTxResultJson(undefined),
            hash: hexUpper(hash),
            height: "0",
          };
        }
        let timer: NodeJS.Timeout | undefined;
        const timeout = new Promise<undefined>((resolve) => {
          timer = setTimeout(() => resolve(undefined), ctx.node.timeoutBroadcastTxCommitMs);
        });
        const found = await Promise.race([included, timeout]);
        clearTimeout(timer);
        if (found === undefined) throw internalError("timed out waiting for tx to be included in a block");
        return {
          check_tx: checkTxJson(check),
          tx_result: execTxResultJson(found.event.results.txResults[found.index]),
          hash: hexUpper(hash),
          height: found.event.block.header.height.toString(),
        };
      } finally {
        unsubscribe();
      }
    },
  },

  num_unconfirmed_txs: {
    params: [],
    async handle(_args, ctx) {
      const m = ctx.engine.mempool;
      return { n_txs: String(m.size), total: String(m.size), total_bytes: String(m.totalBytes), txs: null };
    },
  },

  unconfirmed_txs: {
    params: [{ name: "limit", type: "int64" }],
    async handle(args, ctx) {
      const m = ctx.engine.mempool;
      const limit = Number(perPageOf(args.limit as bigint | undefined));
      const txs = m.list(limit);
      return { n_txs: String(txs.length), total: String(m.size), total_bytes: String(m.totalBytes), txs: txs.map(b64) };
    },
  },

  block: {
    cacheable: { unlessZero: ["height"] },
    params: [int64("height")],
    handle: async (args, ctx) => blockAt(ctx, resolveHeight(ctx, args.height as bigint | undefined)),
  },

  block_search: blockSearch,

  block_by_hash: {
    cacheable: { unlessZero: [] },
    params: [{ name: "hash", type: "bytes" }],
    async handle(args, ctx) {
      const hash = args.hash as Uint8Array | undefined;
      const height = hash === undefined ? undefined : await ctx.engine.store.heightOfHash(hash);
      return height === undefined ? { block_id: EMPTY_BLOCK_ID, block: null } : blockAt(ctx, height);
    },
  },

  header: {
    cacheable: { unlessZero: ["height"] },
    params: [int64("height")],
    async handle(args, ctx) {
      const height = resolveHeight(ctx, args.height as bigint | undefined);
      const meta = height === 0n ? undefined : await ctx.engine.store.blockMeta(height);
      return { header: meta === undefined ? null : headerJson(meta.header) };
    },
  },

  header_by_hash: {
    cacheable: { unlessZero: [] },
    // HexBytes in CometBFT's signature (hex in JSON-RPC), unlike block_by_hash's []byte (base64).
    params: [{ name: "hash", type: "hexbytes" }],
    async handle(args, ctx) {
      const hash = args.hash as Uint8Array | undefined;
      const height = hash === undefined ? undefined : await ctx.engine.store.heightOfHash(hash);
      const meta = height === undefined ? undefined : await ctx.engine.store.blockMeta(height);
      return { header: meta === undefined ? null : headerJson(meta.header) };
    },
  },

  commit: {
    cacheable: { unlessZero: ["height"] },
    params: [int64("height")],
    async handle(args, ctx) {
      const store = ctx.engine.store;
      const height = resolveHeight(ctx, args.height as bigint | undefined);
      if (height === 0n) throw internalError("there are no blocks yet");
      const meta = await store.blockMeta(height);
      if (meta === undefined) throw internalError(`block meta for height ${height} is missing`);
      // The latest height's commit is the node's own seen commit; older ones come from the next block.
      const canonical = height < store.height;
      const commit = canonical ? (await store.block(height + 1n))?.block.lastCommit : await store.seenCommit(height);
      if (commit === undefined) throw internalError(`commit for height ${height} is missing`);
      return { signed_header: { header: headerJson(meta.header), commit: commitJson(commit) }, canonical };
    },
  },

  blockchain: {
    cacheable: { unlessZero: [] },
    params: [int64("minHeight"), int64("maxHeight")],
    async handle(args, ctx) {
      const store = ctx.engine.store;
      const latest = ctx.engine.committedHeight;
      let min = (args.minHeight as bigint | undefined) ?? 0n;
      let max = (args.maxHeight as bigint | undefined) ?? 0n;
      if (min < 0n || max < 0n) throw internalError("heights must be non-negative");
      if (min === 0n) min = 1n;
      if (max === 0n) max = latest;
      if (max > latest) max = latest;
      if (min < store.base) min = store.base;
      if (min < max - 19n) min = max - 19n;
      if (min > max) throw internalError(`min height ${min} can't be greater than max height ${max}`);
      const metas: Json[] = [];
      for (let h = max; h >= min && h > 0n; h--) {
        const meta = await store.blockMeta(h);
        if (meta !== undefined) metas.push(blockMetaJson(meta));
      }
      return { last_height: latest.toString(), block_metas: metas };
    },
  },

  block_results: {
    cacheable: { unlessZero: ["height"] },
    params: [int64("height")],
    async handle(args, ctx) {
      const height = resolveHeight(ctx, args.height as bigint | undefined);
      const results = height === 0n ? undefined : await ctx.engine.store.results(height);
      if (results === undefined) throw internalError(`could not find results for height #${height}`);
      return blockResultsJson(height, results);
    },
  },

  tx: {
    cacheable: { unlessZero: [] },
    params: [
      { name: "hash", type: "bytes" },
      { name: "prove", type: "bool" },
    ],
    async handle(args, ctx) {
      checkTxIndex(ctx);
      const hash = (args.hash as Uint8Array | undefined) ?? new Uint8Array(0);
      if (hash.length === 0) throw internalError("transaction hash cannot be empty");
      // Under the engine's lock: a tx is found only once its block's state is committed.
      const t = await ctx.engine.withAppLock(() => ctx.engine.store.tx(hash));
      if (t === undefined) throw internalError(`tx (${hexUpper(hash)}) not found`);
      return txResultJson(t, args.prove === true ? await txProof(ctx, t) : undefined);
    },
  },

  tx_search: {
    params: [
      { name: "query", type: "string" },
      { name: "prove", type: "bool" },
      int64("page"),
      int64("per_page"),
      { name: "order_by", type: "string" },
    ],
    async handle(args, ctx) {
      checkTxIndex(ctx);
      const query = (args.query as string | undefined) ?? "";
      let conditions: ReturnType<typeof parseTxQuery>;
      try {
        conditions = parseTxQuery(query);
      } catch (error) {
        if (error instanceof TxQueryError) throw internalError(error.message, error);
        throw error;
      }
      const orderBy = (args.order_by as string | undefined) ?? "";
      if (orderBy !== "" && orderBy !== "asc" && orderBy !== "desc") {
        throw internalError("expected order_by to be either `asc` or `desc` or empty");
      }
      const perPage = perPageOf(args.per_page as bigint | undefined);
      const store = ctx.engine.store;
      const requestedPage = (args.page as bigint | undefined) ?? 1n;
      const found = await ctx.engine.withAppLock(() =>
        store.searchTxs(conditions, {
          page: requestedPage > 0n ? Number(requestedPage) : 1,
          perPage: Number(perPage),
          descending: orderBy === "desc",
        }),
      );
      pageOf(requestedPage, perPage, found.totalCount);
      const txs: Json[] = [];
      for (const t of found.txs) txs.push(txResultJson(t, args.prove === true ? await txProof(ctx, t) : undefined));
      return { txs, total_count: String(found.totalCount) };
    },
  },

  validators: {
    cacheable: { unlessZero: ["height"] },
    params: [int64("height"), int64("page"), int64("per_page")],
    async handle(args, ctx) {
      const { engine } = ctx;
      const next = engine.store.height + 1n;
      const height = resolveHeight(ctx, args.height as bigint | undefined, next);
      const set = height === next ? engine.state.validators : await engine.store.validatorsAt(height);
      if (set === undefined) throw internalError(`could not find validator set for height #${height}`);
      const perPage = perPageOf(args.per_page as bigint | undefined);
      const page = pageOf(args.page as bigint | undefined, perPage, set.length);
      const start = Number((page - 1n) * perPage);
      const slice = set.slice(start, start + Number(perPage));
      return {
        block_height: height.toString(),
        validators: slice.map(validatorJson),
        count: String(slice.length),
        total: String(set.length),
      };
    },
  },

  genesis: {
    cacheable: { unlessZero: [] },
    params: [],
    handle: async (_args, ctx) => ({ genesis: genesisJson(ctx) }),
  },

  genesis_chunked: {
    cacheable: { unlessZero: [] },
    params: [{ name: "chunk", type: "uint" }],
    async handle(args, ctx) {
      const bytes = new TextEncoder().encode(JSON.stringify(genesisJson(ctx)));
      const total = Math.max(1, Math.ceil(bytes.length / GENESIS_CHUNK_SIZE));
      const chunk = Number((args.chunk as bigint | undefined) ?? 0n);
      // CometBFT's text counts one chunk fewer than there are (it prints the last valid index).
      if (chunk >= total) throw internalError(`there are ${total - 1} chunks, ${chunk} is invalid`);
      const data = bytes.subarray(chunk * GENESIS_CHUNK_SIZE, (chunk + 1) * GENESIS_CHUNK_SIZE);
      return { chunk: String(chunk), total: String(total), data: b64(data) };
    },
  },
};

function genesisJson(ctx: RpcContext): Json {
  const g = ctx.engine.genesis;
  // CometBFT's GenesisDoc has `validators,omitempty` and `app_state,omitempty`: a genesis whose validators come
  // from the app's InitChain (gentxs) has no `validators` key at all.
  const json: Record<string, Json> = {
    genesis_time: formatRfc3339(g.genesisTime),
    chain_id: g.chainId,
    initial_height: g.initialHeight.toString(),
    consensus_params: consensusParamsJson(g.consensusParams),
  };
  if (g.validators.length > 0) {
    json.validators = g.validators.map((v) => ({
      address: hexUpper(v.address),
      pub_key: pubKeyJson(v.pubKey),
      power: v.power.toString(),
      name: v.name,
    }));
  }
  json.app_hash = hexUpper(g.appHash);
  if (g.appState !== undefined && g.appState !== null) json.app_state = g.appState as Json;
  return json;
}
