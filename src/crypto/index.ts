// The client-side crypto in one import: hashes, bech32 addresses, mnemonics, secp256k1 and ed25519 keys.
export * from "./address.ts";
export * from "./bech32.ts";
export * from "./ed25519.ts";
export * from "./errors.ts";
export * from "./hash.ts";
export * from "./mnemonic.ts";
export * from "./pubkey.ts";
export * from "./secp256k1.ts";
