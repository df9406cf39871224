// ed25519 keys (validator consensus keys, node keys) signed and verified with node:crypto.
import {
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
  sign as nodeSign,
  verify as nodeVerify,
} from "node:crypto";
import { KeyError } from "./errors.ts";
import { OwnSignatures } from "./own-signatures.ts";
import { SpkiKeyCache } from "./spki-key-cache.ts";

/** Length of an ed25519 public key. */
export const ED25519_PUBKEY_LENGTH = 32;
/** Length of an ed25519 seed (the private scalar's source). */
export const ED25519_SEED_LENGTH = 32;
/** Length of an ed25519 signature. */
export const ED25519_SIGNATURE_LENGTH = 64;

// DER prefixes for wrapping raw keys: SubjectPublicKeyInfo and PKCS#8 with OID 1.3.101.112.
const SPKI_PREFIX = Buffer.from("302a300506032b6570032100", "hex");
const PKCS8_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");

/** An ed25519 key pair as raw bytes. `privateKey` is CometBFT's 64-byte form: seed ‖ public key. */
export interface Ed25519KeyPair {
  seed: Uint8Array;
  publicKey: Uint8Array;
  privateKey: Uint8Array;
}

/** A new random ed25519 key pair. */
export function generateEd25519KeyPair(): Ed25519KeyPair {
  const { privateKey } = generateKeyPairSync("ed25519");
  const pkcs8 = privateKey.export({ format: "der", type: "pkcs8" });
  return ed25519KeyPairFromSeed(new Uint8Array(pkcs8.subarray(pkcs8.length - ED25519_SEED_LENGTH)));
}

/** The key pair of a 32-byte seed (or of CometBFT's 64-byte private key, whose first half is the seed). */
export function ed25519KeyPairFromSeed(seedOrPrivateKey: Uint8Array): Ed25519KeyPair {
  const seed = seedBytes(seedOrPrivateKey);
  const publicDer = createPublicKey(privateKeyObject(seed)).export({ format: "der", type: "spki" });
  const publicKey = new Uint8Array(publicDer.subarray(publicDer.length - ED25519_PUBKEY_LENGTH));
  const privateKey = new Uint8Array(64);
  privateKey.set(seed);
  privateKey.set(publicKey, 32);
  return { seed, publicKey, privateKey };
}

/** The 64-byte ed25519 signature of `message` by a 32-byte seed or 64-byte private key. */
export function signEd25519(seedOrPrivateKey: Uint8Array, message: Uint8Array): Uint8Array {
  return new Uint8Array(nodeSign(null, message, privateKeyObject(seedBytes(seedOrPrivateKey))));
}

/** One key, parsed once, for many signatures (see {@link ed25519Signer}). */
export interface Ed25519Signer {
  /** The 64-byte signature of `message`, as signEd25519 gives it. */
  sign(message: Uint8Array): Uint8Array;
  /** The same signature computed on libuv's thread pool, so that the calling thread goes on meanwhile. */
  signInBackground(message: Uint8Array): Promise<Uint8Array>;
}

/**
 * A signer for one key: the 32-byte seed or 64-byte private key is parsed once, not at every signature (parsing
 * derives the public key, which costs more than the signature itself).
 *
 * @example const signer = ed25519Signer(seed); const signature = signer.sign(message); // as signEd25519(seed, message)
 */
export function ed25519Signer(seedOrPrivateKey: Uint8Array): Ed25519Signer {
  const key = privateKeyObject(seedBytes(seedOrPrivateKey));
  const publicDer = createPublicKey(key).export({ format: "der", type: "spki" });
  const publicKey = new Uint8Array(publicDer.subarray(publicDer.length - ED25519_PUBKEY_LENGTH));
  // Every signature is remembered for verifyEd25519 (own-signatures.ts): the validator checks its own again.
  const signed = (message: Uint8Array, signature: Uint8Array): Uint8Array => {
    ownSignatures.add(publicKey, message, signature);
    return signature;
  };
  return {
    sign: (message) => signed(message, new Uint8Array(nodeSign(null, message, key))),
    signInBackground: (message) =>
      new Promise((resolve, reject) =>
        nodeSign(null, message, key, (error, signature) =>
          error === null ? resolve(signed(message, new Uint8Array(signature))) : reject(error),
        ),
      ),
  };
}

/**
 * True when `signature` is a valid ed25519 signature of `message` by `publicKey`; never throws. A signature one of
 * this process's signers made, the three byte strings equal to what it signed, is known valid without the curve math.
 */
export function verifyEd25519(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  if (publicKey.length !== ED25519_PUBKEY_LENGTH || signature.length !== ED25519_SIGNATURE_LENGTH) return false;
  if (ownSignatures.has(publicKey, message, signature)) return true;
  const key = publicKeyObject(publicKey);
  if (key === undefined) return false;
  try {
    return nodeVerify(null, message, key, signature);
  } catch {
    return false;
  }
}

// The signatures this process's signers made last, byte for byte: a validator's precommit and vote extension, and
// a few more for a process with several signers (tests, the testnet tools).
const ownSignatures = new OwnSignatures(16);

// Verifiers see the same few keys again and again (a validator set's consensus keys, block after block).
const keyCache = new SpkiKeyCache(SPKI_PREFIX, 4096);

function publicKeyObject(publicKey: Uint8Array): KeyObject | undefined {
  return keyCache.keyObject(publicKey);
}

function privateKeyObject(seed: Uint8Array): KeyObject {
  return createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, seed]), format: "der", type: "pkcs8" });
}

function seedBytes(seedOrPrivateKey: Uint8Array): Uint8Array {
  if (seedOrPrivateKey.length === ED25519_SEED_LENGTH) return new Uint8Array(seedOrPrivateKey);
  if (seedOrPrivateKey.length === 64) return new Uint8Array(seedOrPrivateKey.subarray(0, ED25519_SEED_LENGTH));
  throw new KeyError(
    "private-key-invalid",
    `invalid ed25519 private key: expected a 32-byte seed or a 64-byte seed‖public key, got ${seedOrPrivateKey.length} bytes`,
    { length: seedOrPrivateKey.length },
  );
}
