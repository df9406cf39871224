// Errors raised by the keyring. Each has a stable `code` for callers and tests, a short message that says
// what was wrong and what would be right, and `details` with the values involved.
import { UserError } from "../../errors/user-error.ts";

/** Stable identifiers of the keyring error kinds. */
export type KeyringErrorCode =
  | "backend-unknown"
  | "backend-unsupported"
  | "name-invalid"
  | "key-not-found"
  | "key-exists"
  | "address-exists"
  | "passphrase-missing"
  | "passphrase-too-short"
  | "passphrase-wrong"
  | "record-corrupt"
  | "armor-invalid"
  | "armor-unsupported";

/** Base class of every keyring error. */
export class KeyringError extends UserError {
  readonly code: KeyringErrorCode;
  readonly details: Readonly<Record<string, unknown>>;

  constructor(code: KeyringErrorCode, message: string, details: Record<string, unknown> = {}, options?: ErrorOptions) {
    super(message, options);
    this.name = "KeyringError";
    this.code = code;
    this.details = details;
  }
}

/** The requested key is not in the keyring. */
export class KeyNotFoundError extends KeyringError {
  constructor(reference: string, where: string) {
    super("key-not-found", `key "${reference}" not found in the ${where}`, { reference });
    this.name = "KeyNotFoundError";
  }
}

/** A key with that name (or that address) already exists. */
export class KeyExistsError extends KeyringError {
  constructor(code: "key-exists" | "address-exists", message: string, details: Record<string, unknown>) {
    super(code, message, details);
    this.name = "KeyExistsError";
  }
}

/** The passphrase does not open the keyring or the exported key. */
export class WrongPassphraseError extends KeyringError {
  constructor(message: string, details: Record<string, unknown> = {}, options?: ErrorOptions) {
    super("passphrase-wrong", message, details, options);
    this.name = "WrongPassphraseError";
  }
}
