// TxRaw bytes <-> the Tx document (body, auth info, signatures): the one conversion the gRPC/REST tx service, the node's
// tx answers and the CLI's tx commands (decode, sign, encode) share. Callers wrap a decode failure in their own error.
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { AuthInfoSchema, type Tx, TxBodySchema, TxRawSchema, TxSchema } from "../../gen/chain/tx/v1beta1/tx_pb.js";
import { makeTxRawBytes } from "./build.ts";

/** The Tx of TxRaw bytes; throws protobuf's own error when the bytes (or the body or auth info in them) do not decode. */
export function txFromTxRaw(bytes: Uint8Array): Tx {
  const raw = fromBinary(TxRawSchema, bytes);
  return create(TxSchema, {
    body: fromBinary(TxBodySchema, raw.bodyBytes),
    authInfo: fromBinary(AuthInfoSchema, raw.authInfoBytes),
    signatures: raw.signatures,
  });
}

/** The TxRaw bytes of a Tx (body and auth info encoded as they are in the document; absent ones empty). */
export function txRawFromTx(tx: Tx): Uint8Array {
  return makeTxRawBytes({
    bodyBytes: toBinary(TxBodySchema, tx.body ?? create(TxBodySchema)),
    authInfoBytes: toBinary(AuthInfoSchema, tx.authInfo ?? create(AuthInfoSchema)),
    signatures: tx.signatures,
  });
}
