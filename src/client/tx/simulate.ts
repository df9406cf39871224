// The tx sent to Simulate for gas estimation: the real body, one SignerInfo per signer with its pubkey and
// sequence but sign mode UNSPECIFIED, and one empty signature each. The fee is the one the tx will carry when the
// caller gives it (upstream's CLI simulates the tx it will send, so the estimate covers the fee transfer), else
// empty, as CosmJS sends it.
import { SignMode } from "../../gen/chain/tx/signing/v1beta1/signing_pb.js";
import {
  type FeeParameters,
  makeAuthInfoBytes,
  makeTxBodyBytes,
  makeTxRawBytes,
  type TxBodyParameters,
} from "./build.ts";

/** What a simulation tx needs: the body and each signer's pubkey and sequence. */
export interface SimulationTxParameters extends TxBodyParameters {
  signers: { pubKey: Uint8Array; sequence: bigint; pubKeyTypeUrl?: string }[];
  /** The fee's coins, payer and granter as the tx will carry them (the gas limit is sent as 0). Default: none. */
  fee?: Omit<FeeParameters, "gasLimit">;
}

/** Bytes for SimulateRequest.tx_bytes (a Tx and a TxRaw share the same wire form). */
export function makeSimulationTxBytes(parameters: SimulationTxParameters): Uint8Array {
  const bodyBytes = makeTxBodyBytes(parameters);
  const authInfoBytes = makeAuthInfoBytes({
    signers: parameters.signers,
    fee: { amount: [], ...parameters.fee, gasLimit: 0n },
    signMode: SignMode.UNSPECIFIED,
  });
  return makeTxRawBytes({ bodyBytes, authInfoBytes, signatures: parameters.signers.map(() => new Uint8Array(0)) });
}
