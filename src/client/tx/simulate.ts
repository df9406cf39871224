// The tx sent to Simulate for gas estimation, shaped as CosmJS sends it: the real body, one SignerInfo per
// signer with its pubkey and sequence but sign mode UNSPECIFIED, an empty fee, and one empty signature each.
import { SignMode } from "../../gen/chain/tx/signing/v1beta1/signing_pb.js";
import { makeAuthInfoBytes, makeTxBodyBytes, makeTxRawBytes, type TxBodyParameters } from "./build.ts";

/** What a simulation tx needs: the body and each signer's pubkey and sequence. */
export interface SimulationTxParameters extends TxBodyParameters {
  signers: { pubKey: Uint8Array; sequence: bigint; pubKeyTypeUrl?: string }[];
}

/** Bytes for SimulateRequest.tx_bytes (a Tx and a TxRaw share the same wire form). */
export function makeSimulationTxBytes(parameters: SimulationTxParameters): Uint8Array {
  const bodyBytes = makeTxBodyBytes(parameters);
  const authInfoBytes = makeAuthInfoBytes({
    signers: parameters.signers,
    fee: { amount: [], gasLimit: 0n },
    signMode: SignMode.UNSPECIFIED,
  });
  return makeTxRawBytes({ bodyBytes, authInfoBytes, signatures: parameters.signers.map(() => new Uint8Array(0)) });
}
