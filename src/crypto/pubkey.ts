// Public keys as they travel: the Any type URLs (ours and the Cosmos alias the node also accepts), the
// protobuf value bytes, the JSON form printed by `keys show`, and the legacy bech32 form (`chainpub1…`).
import { currentBech32Prefixes, decodeBech32WithPrefix, encodeBech32 } from "./bech32.ts";
import { KeyError } from "./errors.ts";
import { toBase64 } from "./hash.ts";

/** Type URL of our secp256k1 public key. */
export const SECP256K1_PUBKEY_TYPE_URL = "/chain.crypto.secp256k1.PubKey";
/** Type URL stock Cosmos signers (CosmJS) write; accepted as an alias of ours. */
export const COSMOS_SECP256K1_PUBKEY_TYPE_URL = "/cosmos.crypto.secp256k1.PubKey";
/** Type URL of our ed25519 public key. */
export const ED25519_PUBKEY_TYPE_URL = "/chain.crypto.ed25519.PubKey";
/** The Cosmos alias of the ed25519 type URL. */
export const COSMOS_ED25519_PUBKEY_TYPE_URL = "/cosmos.crypto.ed25519.PubKey";

/** The key algorithms the chain knows. */
export type KeyAlgorithm = "secp256k1" | "ed25519";

/** A public key with its algorithm. */
export interface PublicKey {
  algorithm: KeyAlgorithm;
  key: Uint8Array;
}

const KEY_LENGTHS: Record<KeyAlgorithm, number> = { secp256k1: 33, ed25519: 32 };

// Legacy amino prefixes (type tag + length) that upstream's bech32 public keys carry before the key bytes.
const AMINO_PREFIXES: Record<KeyAlgorithm, Uint8Array> = {
  secp256k1: Uint8Array.of(0xeb, 0x5a, 0xe9, 0x87, 0x21),
  ed25519: Uint8Array.of(0x16, 0x24, 0xde, 0x64, 0x20),
};

/** The algorithm of a public key Any's type URL (ours or the Cosmos alias), or undefined if unknown. */
export function pubKeyAlgorithmOfTypeUrl(typeUrl: string): KeyAlgorithm | undefined {
  switch (typeUrl) {
    case SECP256K1_PUBKEY_TYPE_URL:
    case COSMOS_SECP256K1_PUBKEY_TYPE_URL:
      return "secp256k1";
    case ED25519_PUBKEY_TYPE_URL:
    case COSMOS_ED25519_PUBKEY_TYPE_URL:
      return "ed25519";
    default:
      return undefined;
  }
}

/** Our type URL for an algorithm. */
export function pubKeyTypeUrl(algorithm: KeyAlgorithm): string {
  return algorithm === "secp256k1" ? SECP256K1_PUBKEY_TYPE_URL : ED25519_PUBKEY_TYPE_URL;
}

/** The protobuf value of a PubKey message `{1: key}` (for secp256k1: `0a 21 <33 bytes>`). */
export function encodePubKeyValue(key: Uint8Array): Uint8Array {
  if (key.length > 127) throw new KeyError("public-key-invalid", `public key too long: ${key.length} bytes`);
  const out = new Uint8Array(2 + key.length);
  out[0] = 0x0a;
  out[1] = key.length;
  out.set(key, 2);
  return out;
}

/**
 * The key bytes of a PubKey message value. Throws KeyError unless it is exactly field 1 (bytes) of
 * the algorithm's length.
 */
export function decodePubKeyValue(value: Uint8Array, algorithm: KeyAlgorithm): Uint8Array {
  const expected = KEY_LENGTHS[algorithm];
  if (value.length === 0) {
    throw new KeyError("public-key-invalid", `invalid ${algorithm} public key: empty, expected ${expected} bytes`);
  }
  if (value[0] !== 0x0a || value[1] !== expected || value.length !== 2 + expected) {
    throw new KeyError(
      "public-key-invalid",
      `invalid ${algorithm} public key: expected a PubKey message holding ${expected} key bytes`,
      { algorithm, valueLength: value.length },
    );
  }
  return value.slice(2);
}

/** The JSON shape printed by `keys show`: `{"@type":"/chain.crypto.secp256k1.PubKey","key":"<base64>"}`. */
export function pubKeyToJson(publicKey: PublicKey): string {
  return JSON.stringify({ "@type": pubKeyTypeUrl(publicKey.algorithm), key: toBase64(publicKey.key) });
}

/** Legacy bech32 of a public key under a pub prefix (default `chainpub`), amino-prefixed as upstream does. */
export function pubKeyToBech32(publicKey: PublicKey, prefix: string = currentBech32Prefixes().accPub): string {
  assertLength(publicKey);
  const prefixBytes = AMINO_PREFIXES[publicKey.algorithm];
  const data = new Uint8Array(prefixBytes.length + publicKey.key.length);
  data.set(prefixBytes);
  data.set(publicKey.key, prefixBytes.length);
  return encodeBech32(prefix, data);
}

/** The public key of a legacy bech32 public key with `expectedPrefix` (default `chainpub`). */
export function pubKeyFromBech32(text: string, expectedPrefix: string = currentBech32Prefixes().accPub): PublicKey {
  const data = decodeBech32WithPrefix(text, expectedPrefix);
  for (const algorithm of ["secp256k1", "ed25519"] as const) {
    const prefixBytes = AMINO_PREFIXES[algorithm];
    if (
      data.length === prefixBytes.length + KEY_LENGTHS[algorithm] &&
      prefixBytes.every((byte, i) => data[i] === byte)
    ) {
      return { algorithm, key: data.slice(prefixBytes.length) };
    }
  }
  throw new KeyError(
    "public-key-invalid",
    `invalid bech32 public key "${text}": expected an amino-prefixed secp256k1 (33-byte) or ed25519 (32-byte) key`,
    { text },
  );
}

function assertLength(publicKey: PublicKey): void {
  const expected = KEY_LENGTHS[publicKey.algorithm];
  if (publicKey.key.length !== expected) {
    throw new KeyError(
      "public-key-invalid",
      `invalid ${publicKey.algorithm} public key: ${publicKey.key.length} bytes, expected ${expected}`,
      { algorithm: publicKey.algorithm, length: publicKey.key.length },
    );
  }
}
