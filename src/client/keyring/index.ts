// The keyring in one import: backends, records, export armor, passphrase sources and key output.
export * from "./armor.ts";
export * from "./errors.ts";
export * from "./key-output.ts";
export * from "./keyring.ts";
export * from "./passphrase.ts";
export type { KeyInfo } from "./record.ts";
