// The staking codespace, numbered as upstream v0.50 (x/staking/types/errors.go). Only the errors this
// chain's minimal staking can raise are registered; the numbers of the others stay free.
import { GrpcCode, registerError } from "../../app/errors.ts";

/** Codespace of staking errors. */
export const STAKING_CODESPACE = "staking";

export const ErrEmptyValidatorAddr = registerError(
  STAKING_CODESPACE,
  2,
  "empty validator address",
  GrpcCode.InvalidArgument,
);
export const ErrNoValidatorFound = registerError(STAKING_CODESPACE, 3, "validator does not exist", GrpcCode.NotFound);
export const ErrValidatorOwnerExists = registerError(
  STAKING_CODESPACE,
  4,
  "validator already exist for this operator address; must use new validator operator address",
  GrpcCode.AlreadyExists,
);
export const ErrValidatorPubKeyExists = registerError(
  STAKING_CODESPACE,
  5,
  "validator already exist for this pubkey; must use new validator pubkey",
  GrpcCode.AlreadyExists,
);
export const ErrValidatorPubKeyTypeNotSupported = registerError(
  STAKING_CODESPACE,
  6,
  "validator pubkey type is not supported",
  GrpcCode.InvalidArgument,
);
export const ErrValidatorJailed = registerError(
  STAKING_CODESPACE,
  7,
  "validator for this address is currently jailed",
  GrpcCode.FailedPrecondition,
);
export const ErrCommissionNegative = registerError(
  STAKING_CODESPACE,
  9,
  "commission must be positive",
  GrpcCode.InvalidArgument,
);
export const ErrCommissionHuge = registerError(
  STAKING_CODESPACE,
  10,
  "commission cannot be more than 100%",
  GrpcCode.InvalidArgument,
);
export const ErrCommissionGTMaxRate = registerError(
  STAKING_CODESPACE,
  11,
  "commission cannot be more than the max rate",
  GrpcCode.InvalidArgument,
);
export const ErrCommissionChangeRateNegative = registerError(
  STAKING_CODESPACE,
  13,
  "commission change rate must be positive",
  GrpcCode.InvalidArgument,
);
export const ErrCommissionChangeRateGTMaxRate = registerError(
  STAKING_CODESPACE,
  14,
  "commission change rate cannot be more than the max rate",
  GrpcCode.InvalidArgument,
);
export const ErrSelfDelegationBelowMinimum = registerError(
  STAKING_CODESPACE,
  16,
  "validator's self delegation must be greater than their minimum self delegation",
  GrpcCode.InvalidArgument,
);
export const ErrEmptyDelegatorAddr = registerError(
  STAKING_CODESPACE,
  18,
  "empty delegator address",
  GrpcCode.InvalidArgument,
);
export const ErrNoDelegation = registerError(
  STAKING_CODESPACE,
  19,
  "no delegation for (address, validator) tuple",
  GrpcCode.NotFound,
);
export const ErrInsufficientShares = registerError(
  STAKING_CODESPACE,
  22,
  "insufficient delegation shares",
  GrpcCode.FailedPrecondition,
);
export const ErrDelegatorShareExRateInvalid = registerError(
  STAKING_CODESPACE,
  34,
  "cannot delegate to validators with invalid (zero) ex-rate",
  GrpcCode.FailedPrecondition,
);
export const ErrNoHistoricalInfo = registerError(STAKING_CODESPACE, 38, "no historical info found", GrpcCode.NotFound);
export const ErrEmptyValidatorPubKey = registerError(
  STAKING_CODESPACE,
  39,
  "empty validator public key",
  GrpcCode.InvalidArgument,
);
export const ErrCommissionLTMinRate = registerError(
  STAKING_CODESPACE,
  40,
  "commission cannot be less than min rate",
  GrpcCode.InvalidArgument,
);
export const ErrInvalidSigner = registerError(
  STAKING_CODESPACE,
  43,
  "expected authority account as only signer for proposal message",
  GrpcCode.PermissionDenied,
);

/**
 * Upstream staking answers a wrong MsgUpdateParams authority with the gov codespace's error 13. The
 * registration is identical to gov's own, which the registry accepts from both modules.
 */
export const ErrGovInvalidSigner = registerError(
  "gov",
  13,
  "expected authority account as only signer for proposal message",
  GrpcCode.PermissionDenied,
);
