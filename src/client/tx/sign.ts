// SIGN_MODE_DIRECT signing: sign SHA-256(SignDoc bytes) with secp256k1 and assemble the TxRaw.
import { secp256k1PublicKey, signSecp256k1 } from "../../crypto/secp256k1.ts";
import {
  type FeeParameters,
  makeAuthInfoBytes,
  makeSignDocBytes,
  makeTxBodyBytes,
  makeTxRawBytes,
  type SignDocParameters,
  type TxBodyParameters,
  txHashHex,
} from "./build.ts";

/** Anything that can sign sign-bytes with a secp256k1 key (a raw key, a keyring key, a hardware wallet). */
export interface DirectSigner {
  /** Compressed secp256k1 public key. */
  readonly pubKey: Uint8Array;
  /** 64-byte low-S signature of SHA-256(signBytes). */
  sign(signBytes: Uint8Array): Promise<Uint8Array> | Uint8Array;
}

/** A DirectSigner over a raw 32-byte private key. */
export function privateKeySigner(privateKey: Uint8Array): DirectSigner {
  const pubKey = secp256k1PublicKey(privateKey);
  return { pubKey, sign: (signBytes) => signSecp256k1(privateKey, signBytes) };
}

/** The sign bytes of a SignDoc and the signer's signature over them. */
export interface DirectSignature {
  signBytes: Uint8Array;
  signature: Uint8Array;
}

/** Signs a SignDoc (SIGN_MODE_DIRECT). */
export async function signDirect(signer: DirectSigner, signDoc: SignDocParameters): Promise<DirectSignature> {
  const signBytes = makeSignDocBytes(signDoc);
  return { signBytes, signature: await signer.sign(signBytes) };
}

/** Everything needed to build and sign a single-signer tx. */
export interface SignTxParameters extends TxBodyParameters {
  fee: FeeParameters;
  chainId: string;
  /** The signer's account number (0 for gentxs at genesis). */
  accountNumber: bigint;
  /** The signer's current sequence. */
  sequence: bigint;
  signer: DirectSigner;
  /** Leave the pubkey out of SignerInfo (allowed once the account has its key on chain). */
  omitPubKey?: boolean;
  /** Type URL for the pubkey Any (default `/chain.crypto.secp256k1.PubKey`). */
  pubKeyTypeUrl?: string;
}

/** A signed tx with all its intermediate bytes. */
export interface SignedTx {
  bodyBytes: Uint8Array;
  authInfoBytes: Uint8Array;
  signBytes: Uint8Array;
  signature: Uint8Array;
  /** The TxRaw bytes to broadcast. */
  txBytes: Uint8Array;
  /** Upper-case hex SHA-256 of txBytes. */
  txHash: string;
}

/** Builds, signs (SIGN_MODE_DIRECT) and encodes a single-signer tx. */
export async function signTx(parameters: SignTxParameters): Promise<SignedTx> {
  const bodyBytes = makeTxBodyBytes(parameters);
  const authInfoBytes = makeAuthInfoBytes({
    signers: [
      {
        pubKey: parameters.omitPubKey ? undefined : parameters.signer.pubKey,
        sequence: parameters.sequence,
        pubKeyTypeUrl: parameters.pubKeyTypeUrl,
      },
    ],
    fee: parameters.fee,
  });
  const { signBytes, signature } = await signDirect(parameters.signer, {
    bodyBytes,
    authInfoBytes,
    chainId: parameters.chainId,
    accountNumber: parameters.accountNumber,
  });
  const txBytes = makeTxRawBytes({ bodyBytes, authInfoBytes, signatures: [signature] });
  return { bodyBytes, authInfoBytes, signBytes, signature, txBytes, txHash: txHashHex(txBytes) };
}
