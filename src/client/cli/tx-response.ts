// TxResponse (`chain.base.abci.v1beta1.TxResponse`) from what the consensus RPC answers: the CheckTx
// outcome of a sync broadcast (height 0, no gas, no events), or an indexed tx with its block result and
// block time (what `query tx` and `--wait` print, the decoded tx included).

import { create } from "@bufbuild/protobuf";
import { AnySchema } from "@bufbuild/protobuf/wkt";
import { txResponseTimestamp } from "../../app/tx-response.ts";
import { type TxResponse, TxResponseSchema } from "../../gen/chain/base/abci/v1beta1/abci_pb.js";
import { TxSchema } from "../../gen/chain/tx/v1beta1/tx_pb.js";
import { EventSchema } from "../../gen/tendermint/abci/types_pb.js";
import type { BroadcastResult, RpcEvent, RpcTxResult } from "../rpc/rpc-client.ts";

/** The TxResponse of a sync or async broadcast: CheckTx's code, codespace and log under the tx hash. */
export function txResponseFromBroadcast(result: BroadcastResult): TxResponse {
  return create(TxResponseSchema, {
    height: 0n,
    txhash: result.hash,
    codespace: result.codespace,
    code: result.code,
    data: result.data,
    rawLog: result.log,
  });
}

/**
 * The TxResponse of an indexed tx: its block height, DeliverTx result, events, the tx itself (an Any of
 * `chain.tx.v1beta1.Tx`) and the block time (RFC 3339, as the header gives it).
 */
export function txResponseFromRpc(found: RpcTxResult, blockTime: string): TxResponse {
  const result = found.tx_result;
  const txBytes = Buffer.from(found.tx ?? "", "base64");
  return create(TxResponseSchema, {
    height: BigInt(found.height),
    txhash: found.hash.toUpperCase(),
    codespace: result.codespace ?? "",
    code: result.code ?? 0,
    data: result.data ? Buffer.from(result.data, "base64").toString("hex").toUpperCase() : "",
    rawLog: result.log ?? "",
    info: result.info ?? "",
    gasWanted: BigInt(result.gas_wanted ?? "0"),
    gasUsed: BigInt(result.gas_used ?? "0"),
    // A Tx and a TxRaw share one wire form (fields 1 and 2 hold the body and auth info bytes), so the
    // raw bytes are the Tx's encoding as they are.
    tx: create(AnySchema, { typeUrl: `/${TxSchema.typeName}`, value: new Uint8Array(txBytes) }),
    timestamp: txResponseTimestamp(blockTime),
    events: eventsFromRpc(result.events ?? []),
  });
}

/** ABCI events from the RPC's JSON. */
export function eventsFromRpc(events: readonly RpcEvent[]) {
  return events.map((event) =>
    create(EventSchema, {
      type: event.type ?? "",
      attributes: (event.attributes ?? []).map((attribute) => ({
        key: attribute.key ?? "",
        value: attribute.value ?? "",
        index: attribute.index ?? false,
      })),
    }),
  );
}

/** One line for stderr saying why a tx failed: `tx <hash> failed [in block H] with code C (codespace): log`. */
export function txFailureMessage(response: TxResponse): string {
  const where = response.height > 0n ? ` in block ${response.height}` : "";
  const space = response.codespace === "" ? "" : ` (${response.codespace})`;
  const log = response.rawLog === "" ? "" : `: ${response.rawLog}`;
  return `tx ${response.txhash} failed${where} with code ${response.code}${space}${log}`;
}
