// Talking to a running node from outside, the way any client would: the REST gateway over HTTP, the gRPC server
// with @grpc/grpc-js, and the consensus RPC's JSON (status, abci_query, block).
import { type DescMessage, fromBinary, type MessageShape, toBinary } from "@bufbuild/protobuf";
import { Client, credentials, Metadata, type ServiceError } from "@grpc/grpc-js";

/** A REST answer: status, headers and the parsed JSON body. */
export interface RestAnswer {
  status: number;
  headers: Headers;
  body: unknown;
  text: string;
}

/** GET `<base><path>`, optionally at `height` (header `x-chain-block-height`). */
export async function restGet(base: string, path: string, height?: bigint | number): Promise<RestAnswer> {
  const headers: Record<string, string> = { accept: "application/json", "content-type": "application/json" };
  if (height !== undefined) headers["x-chain-block-height"] = String(height);
  const response = await fetch(`${base}${path}`, { headers });
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: response.status, headers: response.headers, body, text };
}

/** A gRPC answer: the decoded message and the `x-chain-block-height` the server reports. */
export interface GrpcAnswer<T> {
  message: T;
  height: string | undefined;
}

/** One unary call of `method` (`/chain.upgrade.v1beta1.Query/CurrentPlan`) on `address` (`127.0.0.1:9090`). */
export function grpcUnary<Req extends DescMessage, Res extends DescMessage>(
  address: string,
  method: string,
  requestSchema: Req,
  responseSchema: Res,
  request: MessageShape<Req>,
  height?: bigint | number,
): Promise<GrpcAnswer<MessageShape<Res>>> {
  const client = new Client(address, credentials.createInsecure());
  const metadata = new Metadata();
  if (height !== undefined) metadata.set("x-chain-block-height", String(height));
  let reportedHeight: string | undefined;
  return new Promise<GrpcAnswer<MessageShape<Res>>>((resolve, reject) => {
    const call = client.makeUnaryRequest(
      method,
      (value: MessageShape<Req>) => Buffer.from(toBinary(requestSchema, value)),
      (bytes: Buffer) => fromBinary(responseSchema, bytes),
      request,
      metadata,
      { deadline: Date.now() + 60_000 },
      (error: ServiceError | null, message?: MessageShape<Res>) => {
        client.close();
        if (error !== null || message === undefined) reject(error ?? new Error(`${method}: empty answer`));
        else resolve({ message, height: reportedHeight });
      },
    );
    call.on("metadata", (md: Metadata) => {
      const value = md.get("x-chain-block-height")[0];
      reportedHeight = value === undefined ? undefined : String(value);
    });
  });
}

/** A JSON-RPC 2.0 call on the consensus RPC (`http://127.0.0.1:26657`); resolves with `result`. */
export async function rpcCall(rpcUrl: string, method: string, params: Record<string, unknown> = {}): Promise<unknown> {
  const response = await fetch(rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const body = (await response.json()) as { result?: unknown; error?: { message?: string; data?: string } };
  if (body.error !== undefined) {
    throw new Error(`${method}: ${body.error.message ?? ""} ${body.error.data ?? ""}`.trim());
  }
  return body.result;
}

/** The node's latest committed height, or undefined while its RPC is not answering. */
export async function latestHeight(rpcUrl: string): Promise<bigint | undefined> {
  try {
    const status = (await rpcCall(rpcUrl, "status")) as { sync_info: { latest_block_height: string } };
    return BigInt(status.sync_info.latest_block_height);
  } catch {
    return undefined;
  }
}

/** Waits until the node has committed `height`; resolves with the height seen. */
export async function waitForHeight(
  rpcUrl: string,
  height: bigint | number,
  timeoutMs: number,
  options: { intervalMs?: number; abortIf?: () => string | undefined } = {},
): Promise<bigint> {
  const target = BigInt(height);
  const deadline = Date.now() + timeoutMs;
  let seen: bigint | undefined;
  for (;;) {
    seen = await latestHeight(rpcUrl);
    if (seen !== undefined && seen >= target) return seen;
    const abort = options.abortIf?.();
    if (abort !== undefined) throw new Error(`waiting for height ${target}: ${abort}`);
    if (Date.now() > deadline) {
      throw new Error(
        `the node did not reach height ${target} within ${timeoutMs} ms (last seen: ${seen ?? "no answer"})`,
      );
    }
    await sleep(options.intervalMs ?? 100);
  }
}

/** The ABCI answer to a raw store query (`/store/<name>/key`) at `height` (0 = latest). */
export interface StoreQueryAnswer {
  code: number;
  log: string;
  codespace: string;
  value: Uint8Array | undefined;
  height: string;
}

/** ABCI query `path` with `data` through the consensus RPC's abci_query. */
export async function abciQuery(
  rpcUrl: string,
  path: string,
  data: Uint8Array,
  height = 0n,
): Promise<StoreQueryAnswer> {
  const result = (await rpcCall(rpcUrl, "abci_query", {
    path,
    data: Buffer.from(data).toString("hex"),
    height: String(height),
    prove: false,
  })) as {
    response: { code?: number; log?: string; codespace?: string; value?: string | null; height?: string };
  };
  const r = result.response;
  return {
    code: r.code ?? 0,
    log: r.log ?? "",
    codespace: r.codespace ?? "",
    value: r.value === undefined || r.value === null || r.value === "" ? undefined : Buffer.from(r.value, "base64"),
    height: r.height ?? "0",
  };
}

/** Resolves after `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls `probe` until it returns a value other than undefined. */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs: number,
  intervalMs = 100,
) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(intervalMs);
  }
}
