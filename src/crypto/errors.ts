// Errors raised by the client-side crypto helpers. Each carries a stable `code` that callers and tests
// match on, and a `details` record with the values that made the input wrong.
import { UserError } from "../errors/user-error.ts";

/** Stable identifiers of the crypto error kinds. */
export type CryptoErrorCode =
  | "bech32-malformed"
  | "bech32-checksum"
  | "bech32-prefix"
  | "bech32-length"
  | "mnemonic-invalid"
  | "hd-path-invalid"
  | "private-key-invalid"
  | "public-key-invalid";

/** Base class of every error thrown by `src/crypto`. */
export class CryptoError extends UserError {
  readonly code: CryptoErrorCode;
  readonly details: Readonly<Record<string, unknown>>;

  constructor(code: CryptoErrorCode, message: string, details: Record<string, unknown> = {}, options?: ErrorOptions) {
    super(message, options);
    this.name = "CryptoError";
    this.code = code;
    this.details = details;
  }
}

/** A bech32 string that is malformed, mistyped, has the wrong prefix or decodes to the wrong length. */
export class Bech32Error extends CryptoError {
  constructor(code: CryptoErrorCode, message: string, details: Record<string, unknown> = {}, options?: ErrorOptions) {
    super(code, message, details, options);
    this.name = "Bech32Error";
  }
}

/** A BIP39 mnemonic that has unknown words, the wrong word count or a bad checksum. */
export class MnemonicError extends CryptoError {
  constructor(message: string, details: Record<string, unknown> = {}, options?: ErrorOptions) {
    super("mnemonic-invalid", message, details, options);
    this.name = "MnemonicError";
  }
}

/** A key (private or public) or HD path that cannot be used. */
export class KeyError extends CryptoError {
  constructor(code: CryptoErrorCode, message: string, details: Record<string, unknown> = {}, options?: ErrorOptions) {
    super(code, message, details, options);
    this.name = "KeyError";
  }
}
