// The tx client in one import: build, sign (SIGN_MODE_DIRECT), encode, hash, decode and verify.
export * from "./any.ts";
export * from "./build.ts";
export * from "./decode.ts";
export * from "./errors.ts";
export * from "./pubkey-any.ts";
export * from "./sign.ts";
export * from "./simulate.ts";
export * from "./tx-raw.ts";
