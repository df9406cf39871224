// The client-side crypto in one import: hashes, bech32 addresses, mnemonics, secp256k1 and ed25519 keys.

// SHA-256 and hex belong to src/bytes; the package entry keeps offering them with the hashes above.
export { fromHex, toHex } from "../bytes/hex.ts";
export { sha256 } from "../bytes/sha256.ts";
export * from "./address.ts";
export * from "./bech32.ts";
export * from "./ed25519.ts";
export * from "./errors.ts";
export * from "./hash.ts";
export * from "./mnemonic.ts";
export * from "./pubkey.ts";
export * from "./secp256k1.ts";
