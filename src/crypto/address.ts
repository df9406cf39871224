// Address derivation: account addresses from secp256k1 keys, consensus addresses from ed25519 keys,
// module account addresses from module names.

import { sha256 } from "../bytes/sha256.ts";
import { KeyError } from "./errors.ts";
import { ripemd160 } from "./hash.ts";
import { SECP256K1_PUBKEY_LENGTH } from "./secp256k1.ts";

/** Length of every address derived here. */
export const ADDRESS_LENGTH = 20;

/** Account address of a compressed secp256k1 public key: RIPEMD-160(SHA-256(key)), 20 bytes. */
export function accAddressFromPubKey(compressedPubKey: Uint8Array): Uint8Array {
  if (compressedPubKey.length !== SECP256K1_PUBKEY_LENGTH) {
    throw new KeyError(
      "public-key-invalid",
      `invalid secp256k1 public key: ${compressedPubKey.length} bytes, expected ${SECP256K1_PUBKEY_LENGTH} (compressed)`,
      { length: compressedPubKey.length },
    );
  }
  return ripemd160(sha256(compressedPubKey));
}

/** Consensus address of an ed25519 public key: the first 20 bytes of SHA-256(key) (CometBFT's rule). */
export function consAddressFromEd25519PubKey(pubKey: Uint8Array): Uint8Array {
  if (pubKey.length !== 32) {
    throw new KeyError("public-key-invalid", `invalid ed25519 public key: ${pubKey.length} bytes, expected 32`, {
      length: pubKey.length,
    });
  }
  return sha256(pubKey).subarray(0, ADDRESS_LENGTH);
}

/** Module account address: the first 20 bytes of SHA-256(module name), e.g. "gov" → chain10d07y2…. */
export function moduleAddress(moduleName: string): Uint8Array {
  return sha256(new TextEncoder().encode(moduleName)).subarray(0, ADDRESS_LENGTH);
}
