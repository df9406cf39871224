// Reading transactions back: TxRaw → TxBody and AuthInfo, the signers' public keys (our type URL or the
// Cosmos alias), the sign bytes rebuilt from the exact received bytes, signature checks, and tx JSON.
// This is the client's view; the node's decoder adds the strict ADR-027 and unknown-field checks.

import { create, fromBinary, type JsonValue, type Registry, toJson } from "@bufbuild/protobuf";
import { convertAnyValues } from "../../app/wire-decimals.ts";
import type { PublicKey } from "../../crypto/pubkey.ts";
import { verifySecp256k1 } from "../../crypto/secp256k1.ts";
import {
  type AuthInfo,
  AuthInfoSchema,
  type TxBody,
  TxBodySchema,
  type TxRaw,
  TxRawSchema,
  TxSchema,
} from "../../gen/chain/tx/v1beta1/tx_pb.js";
import { makeSignDocBytes } from "./build.ts";
import { TxClientError } from "./errors.ts";
import { pubKeyFromAny } from "./pubkey-any.ts";

/** A decoded tx with the raw bytes its signatures cover. */
export interface UnpackedTx {
  raw: TxRaw;
  body: TxBody;
  authInfo: AuthInfo;
}

/** Decodes TxRaw bytes; throws TxClientError `tx-decode` when they are not a TxRaw. */
export function decodeTxRaw(bytes: Uint8Array): TxRaw {
  return parse(() => fromBinary(TxRawSchema, bytes), "TxRaw");
}

/** Decodes TxRaw bytes and the body and auth info inside them. */
export function unpackTx(bytes: Uint8Array): UnpackedTx {
  const raw = decodeTxRaw(bytes);
  return {
    raw,
    body: parse(() => fromBinary(TxBodySchema, raw.bodyBytes), "TxBody"),
    authInfo: parse(() => fromBinary(AuthInfoSchema, raw.authInfoBytes), "AuthInfo"),
  };
}

/** The public key of each signer, in order; undefined where SignerInfo carries none. */
export function signerPubKeys(authInfo: AuthInfo): (PublicKey | undefined)[] {
  return authInfo.signerInfos.map((info) => (info.publicKey === undefined ? undefined : pubKeyFromAny(info.publicKey)));
}

/** The SIGN_MODE_DIRECT sign bytes of a decoded tx, from its received body and auth info bytes. */
export function signBytesOf(tx: UnpackedTx, chainId: string, accountNumber: bigint): Uint8Array {
  return makeSignDocBytes({
    bodyBytes: tx.raw.bodyBytes,
    authInfoBytes: tx.raw.authInfoBytes,
    chainId,
    accountNumber,
  });
}

/** What verifying one signature of a tx needs. */
export interface VerifyDirectParameters {
  chainId: string;
  accountNumber: bigint;
  /** Signer index (default 0). */
  index?: number;
  /** The key to check against; defaults to the one in the tx's SignerInfo. */
  pubKey?: Uint8Array;
}

/** True when signature `index` is a valid secp256k1 SIGN_MODE_DIRECT signature of the tx. */
export function verifyDirectSignature(tx: UnpackedTx, parameters: VerifyDirectParameters): boolean {
  const index = parameters.index ?? 0;
  const signature = tx.raw.signatures[index];
  if (signature === undefined) return false;
  let pubKey = parameters.pubKey;
  if (pubKey === undefined) {
    const fromTx = signerPubKeys(tx.authInfo)[index];
    if (fromTx === undefined || fromTx.algorithm !== "secp256k1") return false;
    pubKey = fromTx.key;
  }
  return verifySecp256k1(pubKey, signBytesOf(tx, parameters.chainId, parameters.accountNumber), signature);
}

/**
 * The tx as upstream prints it (`tx decode`, `--generate-only`): proto3 JSON with proto field names and
 * defaults shown. Every Any's type must be in `registry`.
 */
export function txToJson(tx: UnpackedTx, registry: Registry): JsonValue {
  const message = create(TxSchema, { body: tx.body, authInfo: tx.authInfo, signatures: tx.raw.signatures });
  try {
    // Any values hold upstream's binary form (LegacyDec as scaled integers); the JSON shows decimal text.
    const printable = convertAnyValues(TxSchema, message, registry, "fromWire");
    return toJson(TxSchema, printable, { registry, useProtoFieldName: true, alwaysEmitImplicit: true });
  } catch (error) {
    throw new TxClientError("tx-decode", `cannot print tx as JSON: ${(error as Error).message}`, {}, { cause: error });
  }
}

function parse<T>(decode: () => T, what: string): T {
  try {
    return decode();
  } catch (error) {
    throw new TxClientError(
      "tx-decode",
      `malformed tx bytes: cannot decode ${what}: ${(error as Error).message}`,
      { what },
      { cause: error },
    );
  }
}
