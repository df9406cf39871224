// The TxResponse (chain.base.abci.v1beta1.TxResponse) of a CheckTx outcome (sync broadcast) and of a mempool
// refusal, and its timestamp format: shared by the node's hooks (embedded engine and CometBFT) and the CLI, which
// sits below the node (docs/ARCHITECTURE.md). A committed tx's response is src/node/committed-tx-response.ts.
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { TxResponseSchema } from "../gen/chain/base/abci/v1beta1/abci_pb.js";
import { ErrMempoolIsFull, ErrTxInMempoolCache, ErrTxTooLarge, ROOT_CODESPACE } from "./errors.ts";

/** The TxResponse init shape the servers take. */
export type TxResponseInit = MessageInitShape<typeof TxResponseSchema>;

/** Upper-case hex. */
export function hexUpper(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString("hex").toUpperCase();
}

/** What a sync broadcast reports: the CheckTx outcome, height 0, no gas and no events (v0.50). */
export function checkTxResponse(
  txhash: string,
  check: { code: number; codespace: string; log: string; data?: Uint8Array },
): TxResponseInit {
  return {
    height: 0n,
    txhash,
    codespace: check.codespace,
    code: check.code,
    data: check.data === undefined || check.data.length === 0 ? "" : hexUpper(check.data),
    rawLog: check.log,
    logs: [],
    info: "",
    gasWanted: 0n,
    gasUsed: 0n,
    timestamp: "",
    events: [],
  };
}

/**
 * Upstream's CheckCometError: a refusal by the consensus engine's mempool (or its RPC) becomes a
 * TxResponse with the sdk code for it, not a transport error; like upstream's, it carries only the code,
 * codespace and hash (raw_log empty: the code says which refusal). Undefined when `message` is another error.
 */
export function mempoolRefusal(txhash: string, message: string): TxResponseInit | undefined {
  const lower = message.toLowerCase();
  const root = lower.includes("tx already exists in cache")
    ? ErrTxInMempoolCache
    : lower.includes("mempool is full")
      ? ErrMempoolIsFull
      : lower.includes("tx too large")
        ? ErrTxTooLarge
        : undefined;
  if (root === undefined) return undefined;
  return checkTxResponse(txhash, { code: root.code, codespace: ROOT_CODESPACE, log: "" });
}

/**
 * `tx_response.timestamp` as upstream writes it: the block time in RFC 3339 with whole seconds (Go's
 * `time.RFC3339`, the fraction dropped, not rounded), e.g. `2026-11-25T21:49:50Z`. "" stays "".
 */
export function txResponseTimestamp(rfc3339: string): string {
  return rfc3339.replace(/^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)\.\d+/, "$1");
}
