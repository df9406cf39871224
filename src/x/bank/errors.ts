// The bank codespace, numbered as upstream (x/bank/types/errors.go).
import { GrpcCode, registerError } from "../../app/errors.ts";

/** Codespace of bank errors. */
export const BANK_CODESPACE = "bank";

export const ErrNoInputs = registerError(BANK_CODESPACE, 2, "no inputs to send transaction", GrpcCode.InvalidArgument);
export const ErrNoOutputs = registerError(
  BANK_CODESPACE,
  3,
  "no outputs to send transaction",
  GrpcCode.InvalidArgument,
);
export const ErrInputOutputMismatch = registerError(
  BANK_CODESPACE,
  4,
  "sum inputs != sum outputs",
  GrpcCode.InvalidArgument,
);
export const ErrSendDisabled = registerError(
  BANK_CODESPACE,
  5,
  "send transactions are disabled",
  GrpcCode.FailedPrecondition,
);
export const ErrDenomMetadataNotFound = registerError(
  BANK_CODESPACE,
  6,
  "client denom metadata not found",
  GrpcCode.NotFound,
);
export const ErrInvalidKey = registerError(BANK_CODESPACE, 7, "invalid key", GrpcCode.InvalidArgument);
export const ErrDuplicateEntry = registerError(BANK_CODESPACE, 8, "duplicate entry", GrpcCode.InvalidArgument);
export const ErrMultipleSenders = registerError(
  BANK_CODESPACE,
  9,
  "multiple senders not allowed",
  GrpcCode.InvalidArgument,
);
