// Errors of the tx builder and decoder.
import { UserError } from "../../errors/user-error.ts";

/** Stable identifiers of tx client errors. */
export type TxClientErrorCode = "tx-decode" | "tx-build" | "pubkey-unsupported";

/** A tx that cannot be built or decoded, with the reason. */
export class TxClientError extends UserError {
  readonly code: TxClientErrorCode;
  readonly details: Readonly<Record<string, unknown>>;

  constructor(code: TxClientErrorCode, message: string, details: Record<string, unknown> = {}, options?: ErrorOptions) {
    super(message, options);
    this.name = "TxClientError";
    this.code = code;
    this.details = details;
  }
}
