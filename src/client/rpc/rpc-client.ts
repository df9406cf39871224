// A small client for the consensus RPC (CometBFT v0.38's JSON-RPC, served by the embedded engine
// or by a CometBFT node). The CLI's queries and broadcasts go through it, as upstream's do.
import { fetchFailure } from "../../errors/fetch-failure.ts";
import { UserError } from "../../errors/user-error.ts";
import { type PostAnswer, postForAnswer } from "./http-post.ts";

/** An error answered by the RPC server (JSON-RPC error object) or a transport failure. */
export class RpcError extends UserError {
  readonly code: number | undefined;
  readonly data: string | undefined;

  constructor(message: string, options: ErrorOptions & { code?: number; data?: string } = {}) {
    super(message, options);
    this.name = "RpcError";
    this.code = options.code;
    this.data = options.data;
  }
}

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

/** The result of `abci_query`, decoded from the RPC's JSON. */
export interface AbciQueryResult {
  code: number;
  codespace: string;
  log: string;
  key: Uint8Array;
  value: Uint8Array;
  height: bigint;
}

/** The result of `broadcast_tx_sync` (CheckTx outcome) or `broadcast_tx_async` (code 0, the hash). */
export interface BroadcastResult {
  code: number;
  codespace: string;
  log: string;
  /** Upper-case hex of CheckTx's data. */
  data: string;
  /** Upper-case hex tx hash. */
  hash: string;
}

/**
 * Turns `--node` (`tcp://localhost:26657`, `http://...`, `host:port`) into an HTTP base URL.
 * Throws RpcError with the expected forms for anything else.
 */
export function rpcBaseUrl(node: string): string {
  const text = node.trim();
  const match = /^(?:(tcp|http|https):\/\/)?([^/:\s]+|\[[^\]]+\]):(\d{1,5})\/?$/.exec(text);
  // A port past 65535 is refused here too: fetch would call the URL invalid and it would read as an unreachable node.
  if (match === null || Number(match[3]) > 65535) {
    throw new RpcError(`invalid --node address "${node}": expected tcp://host:port or http://host:port`);
  }
  const scheme = match[1] === "https" ? "https" : "http";
  return `${scheme}://${match[2]}:${match[3]}`;
}

/** An ABCI event as the RPC prints it (CometBFT v0.38: keys and values are plain strings). */
export interface RpcEvent {
  type: string;
  attributes?: { key: string; value: string; index?: boolean }[];
}

/** ExecTxResult as the RPC prints it (`data` base64 or null). */
export interface RpcExecTxResult {
  code: number;
  data: string | null;
  log: string;
  info: string;
  gas_wanted: string;
  gas_used: string;
  events: RpcEvent[];
  codespace: string;
}

/** The result of `tx` and each entry of `tx_search`: the tx (base64) with its block height and result. */
export interface RpcTxResult {
  hash: string;
  height: string;
  index: number;
  tx_result: RpcExecTxResult;
  tx: string;
}

/** A block header as the RPC prints it (the fields the client reads; the rest passes through). */
export interface RpcHeader {
  chain_id: string;
  height: string;
  time: string;
  [field: string]: unknown;
}

/** CometBFT's block-meta JSON (`blockchain`): block_id, block_size, header, num_txs. */
export interface RpcBlockMeta {
  block_id: { hash: string; parts: { total: number; hash: string } };
  block_size: string;
  header: RpcHeader;
  num_txs: string;
}

/** The result of `status` (the fields the client reads). */
export interface RpcStatus {
  node_info: { network: string; version: string; [field: string]: unknown };
  sync_info: { latest_block_height: string; latest_block_time: string; [field: string]: unknown };
  [field: string]: unknown;
}

/** The result of `block`: block_id and the block (null when the node has no block at that height). */
export interface RpcBlockResult {
  block_id: unknown;
  block: { header: RpcHeader; data: { txs: string[] | null }; [field: string]: unknown } | null;
}

/** A JSON-RPC client bound to one node. */
export interface RpcClient {
  readonly url: string;
  call<T>(method: string, params?: Record<string, unknown>): Promise<T>;
  abciQuery(path: string, data: Uint8Array, options?: { height?: bigint; prove?: boolean }): Promise<AbciQueryResult>;
  broadcastTxSync(tx: Uint8Array): Promise<BroadcastResult>;
  broadcastTxAsync(tx: Uint8Array): Promise<BroadcastResult>;
  status(): Promise<RpcStatus>;
  /** The block at `height` (latest when absent). */
  block(height?: bigint): Promise<RpcBlockResult>;
  /** Block metas of `minHeight..maxHeight`, newest first (the node returns at most 20). */
  blockchain(minHeight: bigint, maxHeight: bigint): Promise<{ last_height: string; block_metas: RpcBlockMeta[] }>;
  /** The indexed tx with this hash (64 hex characters); rejects with RpcError `tx (<HASH>) not found` when unknown. */
  tx(hash: string): Promise<RpcTxResult>;
  /** Txs matching a CometBFT query such as `tx.height=5` or `message.sender='chain1…'`. */
  txSearch(
    query: string,
    options?: { page?: number; perPage?: number; orderBy?: "asc" | "desc" },
  ): Promise<{ txs: RpcTxResult[]; total_count: string }>;
}

/** Connects (lazily: nothing happens until the first call) to the RPC at `node`. */
export function createRpcClient(node: string): RpcClient {
  const url = rpcBaseUrl(node);
  let nextId = 1;

  async function call<T>(method: string, params: Record<string, unknown> = {}): Promise<T> {
    const request = JSON.stringify({ jsonrpc: "2.0", id: nextId++, method, params });
    // Reads try a plain socket first (see http-post.ts); a broadcast is sent once, through fetch.
    let answer = method.startsWith("broadcast_") ? undefined : await postForAnswer(url, request);
    if (answer === undefined) {
      let response: Response;
      try {
        response = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: request });
      } catch (err) {
        throw new RpcError(`cannot reach the node at ${url} (${method}): ${fetchFailure(err)}; is it running?`, {
          cause: err,
        });
      }
      const contentType = response.headers.get("content-type") ?? undefined;
      answer = { status: response.status, contentType, text: await response.text() };
    }
    let body: { result?: T; error?: { code: number; message: string; data?: string } };
    try {
      body = JSON.parse(answer.text);
    } catch (err) {
      throw new RpcError(
        `the node at ${url} answered ${method} with something that is not JSON-RPC ${notRpc(answer)}`,
        {
          cause: err,
        },
      );
    }
    if (body.error !== undefined) {
      // CometBFT puts the useful text ("tx (…) not found", "height 9 must be less than …") in `data`;
      // `message` is the generic JSON-RPC one ("Internal error").
      const text = body.error.data ? body.error.data : `${method}: ${body.error.message}`;
      throw new RpcError(text, { code: body.error.code, data: body.error.data });
    }
    return body.result as T;
  }

  async function broadcast(method: string, tx: Uint8Array): Promise<BroadcastResult> {
    const result = await call<{ code: number; codespace?: string; log?: string; data?: string; hash: string }>(method, {
      tx: Buffer.from(tx).toString("base64"),
    });
    return {
      code: result.code,
      codespace: result.codespace ?? "",
      log: result.log ?? "",
      data: (result.data ?? "").toUpperCase(),
      hash: result.hash.toUpperCase(),
    };
  }

  return {
    url,
    call,
    async abciQuery(path, data, options = {}) {
      const result = await call<{
        response: { code?: number; codespace?: string; log?: string; key?: string; value?: string; height?: string };
      }>("abci_query", {
        path,
        data: Buffer.from(data).toString("hex"),
        height: String(options.height ?? 0n),
        prove: options.prove ?? false,
      });
      const r = result.response;
      return {
        code: r.code ?? 0,
        codespace: r.codespace ?? "",
        log: r.log ?? "",
        key: r.key ? new Uint8Array(Buffer.from(r.key, "base64")) : new Uint8Array(),
        value: r.value ? new Uint8Array(Buffer.from(r.value, "base64")) : new Uint8Array(),
        height: BigInt(r.height ?? "0"),
      };
    },
    broadcastTxSync: (tx) => broadcast("broadcast_tx_sync", tx),
    broadcastTxAsync: (tx) => broadcast("broadcast_tx_async", tx),
    status: () => call<RpcStatus>("status"),
    block: (height) => call<RpcBlockResult>("block", height === undefined ? {} : { height: height.toString() }),
    blockchain: (minHeight, maxHeight) =>
      call("blockchain", { minHeight: minHeight.toString(), maxHeight: maxHeight.toString() }),
    tx(hash) {
      if (!/^[0-9a-fA-F]{64}$/.test(hash)) {
        return Promise.reject(
          new RpcError(`invalid tx hash "${hash}": expected 64 hexadecimal characters (the sha256 of the tx bytes)`),
        );
      }
      return call<RpcTxResult>("tx", { hash: Buffer.from(hash, "hex").toString("base64") });
    },
    txSearch: (query, options = {}) =>
      call("tx_search", {
        query,
        page: String(options.page ?? 1),
        per_page: String(options.perPage ?? 30),
        order_by: options.orderBy ?? "asc",
      }),
  };
}

/** How much of a body that is not JSON-RPC an error quotes (characters, after collapsing whitespace). */
const QUOTED_BODY_LENGTH = 80;

/**
 * An answer that is not JSON-RPC (a web server's HTML page, a proxy's error), described on one line for an error
 * message: its status and content type, then the start of its body with whitespace and control characters collapsed.
 */
function notRpc(answer: PostAnswer): string {
  const what = `(HTTP ${answer.status}, ${answer.contentType ?? "no content type"})`;
  const text = answer.text.replace(/[\s\p{Cc}]+/gu, " ").trim();
  if (text === "") return `${what}: an empty body`;
  const chars = Array.from(text);
  return `${what}: ${chars.length > QUOTED_BODY_LENGTH ? `${chars.slice(0, QUOTED_BODY_LENGTH).join("")}…` : text}`;
}
