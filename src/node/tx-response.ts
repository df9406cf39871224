// The TxResponse a node reports for a committed tx (chain.base.abci.v1beta1.TxResponse, upstream's
// `NewResponseResultTx`), and for a CheckTx outcome (sync broadcast), built from the consensus
// engine's records. Shared by the embedded engine's hooks and the CometBFT (ABCI mode) hooks.
import { create, type MessageInitShape, type Registry, toBinary } from "@bufbuild/protobuf";
import { ErrMempoolIsFull, ErrTxInMempoolCache, ErrTxTooLarge, ROOT_CODESPACE } from "../app/errors.ts";
import type { TxResponseSchema } from "../gen/chain/base/abci/v1beta1/abci_pb.js";
import { TxSchema } from "../gen/chain/tx/v1beta1/tx_pb.js";
import type { ExecTxResult } from "../gen/tendermint/abci/types_pb.js";
import { txFromRaw } from "../server/tx-service.ts";

/** The TxResponse init shape the servers take. */
export type TxResponseInit = MessageInitShape<typeof TxResponseSchema>;

/** Upper-case hex. */
export function hexUpper(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString("hex").toUpperCase();
}

/**
 * The TxResponse of a committed tx: result fields, the decoded tx as an Any (when the registry can
 * print it) and the block time.
 */
export function committedTxResponse(parameters: {
  height: bigint;
  txBytes: Uint8Array;
  txhash: string;
  result: ExecTxResult | undefined;
  /** Block time, RFC 3339. */
  timestamp: string;
  registry?: Registry;
}): TxResponseInit {
  const { result } = parameters;
  let tx: TxResponseInit["tx"];
  if (parameters.registry?.getMessage(TxSchema.typeName) !== undefined) {
    try {
      tx = {
        typeUrl: `/${TxSchema.typeName}`,
        value: toBinary(TxSchema, create(TxSchema, txFromRaw(parameters.txBytes))),
      };
    } catch {
      tx = undefined;
    }
  }
  return {
    height: parameters.height,
    txhash: parameters.txhash,
    codespace: result?.codespace ?? "",
    code: result?.code ?? 0,
    data: result === undefined ? "" : hexUpper(result.data),
    rawLog: result?.log ?? "",
    logs: [],
    info: result?.info ?? "",
    gasWanted: result?.gasWanted ?? 0n,
    gasUsed: result?.gasUsed ?? 0n,
    tx,
    timestamp: txResponseTimestamp(parameters.timestamp),
    events: result?.events ?? [],
  };
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
 * TxResponse with the sdk code for it, not a transport error. Undefined when `message` is another error.
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
  return {
    ...checkTxResponse(txhash, { code: root.code, codespace: ROOT_CODESPACE, log: root.description }),
    rawLog: `${message}: ${root.description}`,
  };
}

/**
 * `tx_response.timestamp` as upstream writes it: the block time in RFC 3339 with whole seconds (Go's
 * `time.RFC3339`, the fraction dropped, not rounded), e.g. `2026-11-25T21:49:50Z`. "" stays "".
 */
export function txResponseTimestamp(rfc3339: string): string {
  return rfc3339.replace(/^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)\.\d+/, "$1");
}
