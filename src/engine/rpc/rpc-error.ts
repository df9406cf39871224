// JSON-RPC 2.0 errors in CometBFT's shape: {"code":…,"message":…,"data":"<detail>"} (data left out when empty).

/** The standard codes and the messages CometBFT pairs with them (rpc/jsonrpc/types). */
export const RpcCode = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  serverError: -32000,
} as const;

const MESSAGES: Record<number, string> = {
  [-32700]: "Parse error. Invalid JSON",
  [-32600]: "Invalid Request",
  [-32601]: "Method not found",
  [-32602]: "Invalid params",
  [-32603]: "Internal error",
  [-32000]: "Server error",
};

/** An error answered as a JSON-RPC error object. */
export class RpcErrorReply extends Error {
  override name = "RpcErrorReply";
  readonly code: number;
  readonly data: string;
  constructor(code: number, data: string, options?: { cause?: unknown }) {
    super(MESSAGES[code] ?? "Server error", options);
    this.code = code;
    this.data = data;
  }

  /** The `error` member of a response. */
  toJson(): { code: number; message: string; data?: string } {
    return this.data === ""
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }
}

/** -32602 Invalid params, with the detail of what was wrong. */
export function invalidParams(detail: string): RpcErrorReply {
  return new RpcErrorReply(RpcCode.invalidParams, detail);
}

/** -32603 Internal error: the code CometBFT uses for every handler failure. */
export function internalError(detail: string, cause?: unknown): RpcErrorReply {
  return new RpcErrorReply(RpcCode.internalError, detail, { cause });
}

/**
 * A request id as CometBFT keeps it: Go decodes a JSON number as a float64 and stores `int(id)`, so a fractional
 * id comes back truncated (`1.5` → `1`); strings are kept as they are.
 */
export function jsonRpcId(id: string | number): string | number {
  return typeof id === "number" ? Math.trunc(id) + 0 : id;
}
