// A small client for the consensus RPC (CometBFT v0.38's JSON-RPC, served by the embedded engine
// or by a CometBFT node). The CLI's queries and broadcasts go through it, as upstream's do.

/** An error answered by the RPC server (JSON-RPC error object) or a transport failure. */
export class RpcError extends Error {
  readonly code: number | undefined;
  readonly data: string | undefined;

  constructor(message: string, options: ErrorOptions & { code?: number; data?: string } = {}) {
    super(message, options);
    this.name = "RpcError";
    this.code = options.code;
    this.data = options.data;
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

/** The result of `broadcast_tx_sync` (CheckTx outcome). */
export interface BroadcastResult {
  code: number;
  codespace: string;
  log: string;
  hash: string;
}

/**
 * Turns `--node` (`tcp://localhost:26657`, `http://...`, `host:port`) into an HTTP base URL.
 * Throws RpcError with the expected forms for anything else.
 */
export function rpcBaseUrl(node: string): string {
  const text = node.trim();
  const match = /^(?:(tcp|http|https):\/\/)?([^/:\s]+|\[[^\]]+\]):(\d{1,5})\/?$/.exec(text);
  if (match === null) {
    throw new RpcError(`invalid --node address "${node}": expected tcp://host:port or http://host:port`);
  }
  const scheme = match[1] === "https" ? "https" : "http";
  return `${scheme}://${match[2]}:${match[3]}`;
}

/** A JSON-RPC client bound to one node. */
export interface RpcClient {
  readonly url: string;
  call<T>(method: string, params?: Record<string, unknown>): Promise<T>;
  abciQuery(path: string, data: Uint8Array, options?: { height?: bigint; prove?: boolean }): Promise<AbciQueryResult>;
  broadcastTxSync(tx: Uint8Array): Promise<BroadcastResult>;
  broadcastTxAsync(tx: Uint8Array): Promise<BroadcastResult>;
}

let nextId = 1;

/** Connects (lazily: nothing happens until the first call) to the RPC at `node`. */
export function createRpcClient(node: string): RpcClient {
  const url = rpcBaseUrl(node);

  async function call<T>(method: string, params: Record<string, unknown> = {}): Promise<T> {
    let response: Response;
    try {
      response = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: nextId++, method, params }),
      });
    } catch (err) {
      throw new RpcError(`cannot reach the node at ${url} (${method}): ${(err as Error).message}; is it running?`, {
        cause: err,
      });
    }
    const text = await response.text();
    let body: { result?: T; error?: { code: number; message: string; data?: string } };
    try {
      body = JSON.parse(text);
    } catch (err) {
      throw new RpcError(
        `the node at ${url} answered ${method} with something that is not JSON-RPC: ${text.slice(0, 200)}`,
        {
          cause: err,
        },
      );
    }
    if (body.error !== undefined) {
      const detail = body.error.data ? `: ${body.error.data}` : "";
      throw new RpcError(`${method}: ${body.error.message}${detail}`, { code: body.error.code, data: body.error.data });
    }
    return body.result as T;
  }

  async function broadcast(method: string, tx: Uint8Array): Promise<BroadcastResult> {
    const result = await call<{ code: number; codespace?: string; log?: string; hash: string }>(method, {
      tx: Buffer.from(tx).toString("base64"),
    });
    return { code: result.code, codespace: result.codespace ?? "", log: result.log ?? "", hash: result.hash };
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
  };
}
