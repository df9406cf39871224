// The TxResponse a node reports for a committed tx (chain.base.abci.v1beta1.TxResponse, upstream's
// `NewResponseResultTx`), built from the consensus engine's records. Shared by the embedded engine's hooks and the
// CometBFT (ABCI mode) hooks; the CheckTx and refusal shapes are src/app/tx-response.ts.
import { create, type Registry, toBinary } from "@bufbuild/protobuf";
import { hexUpper, type TxResponseInit, txResponseTimestamp } from "../app/tx-response.ts";
import { TxSchema } from "../gen/chain/tx/v1beta1/tx_pb.js";
import type { ExecTxResult } from "../gen/tendermint/abci/types_pb.js";
import { txFromRaw } from "../server/tx-service.ts";

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
