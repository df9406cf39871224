// Building the pieces of a SIGN_MODE_DIRECT transaction: TxBody bytes, AuthInfo bytes, SignDoc bytes and
// TxRaw bytes. What is signed is always the exact bytes built here; nothing is re-encoded afterwards.
import { create, toBinary } from "@bufbuild/protobuf";
import type { Any } from "@bufbuild/protobuf/wkt";
import { toHex } from "../../bytes/hex.ts";
import { sha256 } from "../../bytes/sha256.ts";
import { CoinSchema } from "../../gen/chain/base/v1beta1/coin_pb.js";
import { SignMode } from "../../gen/chain/tx/signing/v1beta1/signing_pb.js";
import {
  AuthInfoSchema,
  FeeSchema,
  ModeInfoSchema,
  SignDocSchema,
  SignerInfoSchema,
  TxBodySchema,
  TxRawSchema,
} from "../../gen/chain/tx/v1beta1/tx_pb.js";
import { TxClientError } from "./errors.ts";
import { secp256k1PubKeyAny } from "./pubkey-any.ts";

/** A coin amount: denom and a base-10 integer string (or bigint). */
export interface CoinParameters {
  denom: string;
  amount: string | bigint;
}

/** What goes into a TxBody. */
export interface TxBodyParameters {
  /** The messages, already packed (see packAny). */
  messages: Any[];
  memo?: string;
  /** Last height at which the tx is valid; 0 or absent means none. */
  timeoutHeight?: bigint;
  extensionOptions?: Any[];
  nonCriticalExtensionOptions?: Any[];
}

/** The fee of a tx. */
export interface FeeParameters {
  amount: CoinParameters[];
  gasLimit: bigint;
  payer?: string;
  granter?: string;
}

/** One signer as AuthInfo lists it. */
export interface SignerInfoParameters {
  /** Compressed secp256k1 key; omit only when the account already has its key on chain. */
  pubKey?: Uint8Array;
  sequence: bigint;
  /** Type URL of the pubkey Any (default `/chain.crypto.secp256k1.PubKey`). */
  pubKeyTypeUrl?: string;
}

/** What goes into AuthInfo. */
export interface AuthInfoParameters {
  signers: SignerInfoParameters[];
  fee: FeeParameters;
  /** Default DIRECT; simulation uses UNSPECIFIED like CosmJS. */
  signMode?: SignMode;
}

/** The fields of a SignDoc. */
export interface SignDocParameters {
  bodyBytes: Uint8Array;
  authInfoBytes: Uint8Array;
  chainId: string;
  accountNumber: bigint;
}

/** The fields of a TxRaw. */
export interface TxRawParameters {
  bodyBytes: Uint8Array;
  authInfoBytes: Uint8Array;
  signatures: Uint8Array[];
}

/** Serialized TxBody. */
export function makeTxBodyBytes(parameters: TxBodyParameters): Uint8Array {
  return toBinary(
    TxBodySchema,
    create(TxBodySchema, {
      messages: parameters.messages,
      memo: parameters.memo ?? "",
      timeoutHeight: parameters.timeoutHeight ?? 0n,
      extensionOptions: parameters.extensionOptions ?? [],
      nonCriticalExtensionOptions: parameters.nonCriticalExtensionOptions ?? [],
    }),
  );
}

/** Serialized AuthInfo with one single-mode SignerInfo per signer, in order, and the fee. */
export function makeAuthInfoBytes(parameters: AuthInfoParameters): Uint8Array {
  const mode = parameters.signMode ?? SignMode.DIRECT;
  const signerInfos = parameters.signers.map((signer) =>
    create(SignerInfoSchema, {
      publicKey: signer.pubKey === undefined ? undefined : secp256k1PubKeyAny(signer.pubKey, signer.pubKeyTypeUrl),
      modeInfo: create(ModeInfoSchema, { sum: { case: "single", value: { mode } } }),
      sequence: signer.sequence,
    }),
  );
  return toBinary(AuthInfoSchema, create(AuthInfoSchema, { signerInfos, fee: makeFee(parameters.fee) }));
}

/** Serialized SignDoc: the SIGN_MODE_DIRECT sign bytes. */
export function makeSignDocBytes(parameters: SignDocParameters): Uint8Array {
  return toBinary(SignDocSchema, create(SignDocSchema, parameters));
}

/** Serialized TxRaw: what is broadcast, stored and hashed. */
export function makeTxRawBytes(parameters: TxRawParameters): Uint8Array {
  return toBinary(TxRawSchema, create(TxRawSchema, parameters));
}

/** The tx hash: upper-case hex SHA-256 of the TxRaw bytes. */
export function txHashHex(txRawBytes: Uint8Array): string {
  return toHex(sha256(txRawBytes)).toUpperCase();
}

function makeFee(fee: FeeParameters) {
  return create(FeeSchema, {
    amount: fee.amount.map((coin) => {
      const amount = typeof coin.amount === "bigint" ? coin.amount.toString() : coin.amount;
      if (!/^\d+$/.test(amount)) {
        throw new TxClientError(
          "tx-build",
          `invalid fee amount "${amount}${coin.denom}": expected a non-negative integer`,
        );
      }
      return create(CoinSchema, { denom: coin.denom, amount });
    }),
    gasLimit: fee.gasLimit,
    payer: fee.payer ?? "",
    granter: fee.granter ?? "",
  });
}
