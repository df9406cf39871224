// secp256k1 keys as the chain uses them: derived from a BIP39 mnemonic along a BIP44 path, signatures
// over SHA-256(message) as 64-byte r‖s with low S. Signing uses noble (deterministic RFC 6979 nonces, the
// same bytes as Go and CosmJS); verification uses libsecp256k1 (native-secp256k1.ts) on the tx path, or
// node:crypto's OpenSSL where that addon cannot load.
import { hash, type KeyObject, verify as nodeVerify } from "node:crypto";
import { secp256k1 } from "@noble/curves/secp256k1";
import { HDKey } from "@scure/bip32";
import { sha256 } from "../bytes/sha256.ts";
import { KeyError } from "./errors.ts";
import { type HdPathParameters, hdPath, mnemonicToSeed } from "./mnemonic.ts";
import { nativeSecp256k1Verify } from "./native-secp256k1.ts";
import { SpkiKeyCache } from "./spki-key-cache.ts";

/** Length of a compressed secp256k1 public key. */
export const SECP256K1_PUBKEY_LENGTH = 33;
/** Length of a secp256k1 private key. */
export const SECP256K1_PRIVKEY_LENGTH = 32;
/** Length of a compact r‖s signature. */
export const SECP256K1_SIGNATURE_LENGTH = 64;

// n/2 of the curve order, big-endian: signatures with S above it are rejected as malleable.
const HALF_ORDER = hexBytes("7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0");
// DER prefix of a SubjectPublicKeyInfo for an id-ecPublicKey on secp256k1 holding a 33-byte point.
const SPKI_PREFIX = hexBytes("3036301006072a8648ce3d020106052b8104000a032200");

/** Options for deriving a key from a mnemonic. */
export interface DeriveKeyParameters extends HdPathParameters {
  /** A full path such as m/44'/118'/0'/0/0; overrides coinType, account and index. */
  hdPath?: string;
  /** The optional BIP39 passphrase (the "25th word"); upstream's default is "". */
  bip39Passphrase?: string;
}

/** The 32-byte secp256k1 private key at the HD path (default m/44'/118'/0'/0/0) of a mnemonic. */
export function privateKeyFromMnemonic(mnemonic: string, parameters: DeriveKeyParameters = {}): Uint8Array {
  const seed = mnemonicToSeed(mnemonic, parameters.bip39Passphrase ?? "");
  const path = parameters.hdPath ?? hdPath(parameters);
  let derived: HDKey;
  try {
    derived = HDKey.fromMasterSeed(seed).derive(path);
  } catch (error) {
    throw new KeyError(
      "hd-path-invalid",
      `invalid HD path "${path}": expected the form m/44'/118'/0'/0/0`,
      { path },
      { cause: error },
    );
  }
  if (derived.privateKey === null) {
    throw new KeyError("private-key-invalid", `HD path "${path}" derived no private key`, { path });
  }
  return new Uint8Array(derived.privateKey);
}

/** The 33-byte compressed public key of a private key. */
export function secp256k1PublicKey(privateKey: Uint8Array): Uint8Array {
  assertPrivateKey(privateKey);
  return secp256k1.getPublicKey(privateKey, true);
}

/** A new random private key. */
export function randomSecp256k1PrivateKey(): Uint8Array {
  return secp256k1.utils.randomPrivateKey();
}

/**
 * Signs SHA-256(`message`) and returns the 64-byte r‖s signature with low S (the SIGN_MODE_DIRECT
 * signature when `message` is the SignDoc bytes).
 */
export function signSecp256k1(privateKey: Uint8Array, message: Uint8Array): Uint8Array {
  assertPrivateKey(privateKey);
  return secp256k1.sign(sha256(message), privateKey, { lowS: true }).toCompactRawBytes();
}

/**
 * True when `signature` is a valid 64-byte low-S signature of SHA-256(`message`) by the compressed
 * `publicKey`. Returns false (never throws) for a malformed key or signature, a high S, or a mismatch.
 */
export function verifySecp256k1(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  if (signature.length !== SECP256K1_SIGNATURE_LENGTH || !isLowS(signature)) return false;
  if (!isCompressedPoint(publicKey)) return false;
  const native = nativeSecp256k1Verify();
  if (native !== undefined) {
    try {
      return native(signature, hash("sha256", message, "buffer"), publicKey) === 0;
    } catch {
      return false;
    }
  }
  return openSslVerify(publicKey, message, signature);
}

/**
 * verifySecp256k1 through OpenSSL, whether or not the libsecp256k1 addon is in use: the fallback, and the
 * second opinion the addon is tested against.
 */
export function verifySecp256k1WithOpenSsl(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  if (signature.length !== SECP256K1_SIGNATURE_LENGTH || !isLowS(signature)) return false;
  return openSslVerify(publicKey, message, signature);
}

/** OpenSSL's verify of a signature already checked for length and low S. */
function openSslVerify(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  const key = publicKeyObject(publicKey);
  if (key === undefined) return false;
  try {
    return nodeVerify("sha256", message, { key, dsaEncoding: "ieee-p1363" }, signature);
  } catch {
    return false;
  }
}

/** True when the S half of a 64-byte signature is at most n/2 (upstream rejects the rest). */
export function isLowS(signature: Uint8Array): boolean {
  if (signature.length !== SECP256K1_SIGNATURE_LENGTH) return false;
  for (let i = 0; i < 32; i++) {
    const s = signature[32 + i];
    if (s !== HALF_ORDER[i]) return s < HALF_ORDER[i];
  }
  return true;
}

/** True when `publicKey` is a 33-byte compressed point on the curve. */
export function isValidSecp256k1PublicKey(publicKey: Uint8Array): boolean {
  return publicKeyObject(publicKey) !== undefined;
}

// A node sees the same signers over and over: parsed keys are kept (spki-key-cache.ts).
const keyCache = new SpkiKeyCache(SPKI_PREFIX, 8192);

/** 33 bytes starting 02 or 03: the only key form the chain takes (libsecp256k1 would parse 65-byte keys too). */
function isCompressedPoint(publicKey: Uint8Array): boolean {
  return publicKey.length === SECP256K1_PUBKEY_LENGTH && (publicKey[0] === 0x02 || publicKey[0] === 0x03);
}

function publicKeyObject(publicKey: Uint8Array): KeyObject | undefined {
  if (!isCompressedPoint(publicKey)) return undefined;
  return keyCache.keyObject(publicKey);
}

function assertPrivateKey(privateKey: Uint8Array): void {
  if (privateKey.length !== SECP256K1_PRIVKEY_LENGTH || !secp256k1.utils.isValidPrivateKey(privateKey)) {
    throw new KeyError(
      "private-key-invalid",
      `invalid secp256k1 private key: expected 32 bytes in the range 1..n-1, got ${privateKey.length} bytes`,
      { length: privateKey.length },
    );
  }
}

function hexBytes(hex: string): Uint8Array {
  return new Uint8Array(Buffer.from(hex, "hex"));
}
