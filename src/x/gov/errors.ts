// The gov codespace, numbered as upstream v0.50 (x/gov/types/errors.go).
import { GrpcCode, registerError } from "../../app/errors.ts";

/** Codespace of gov errors. */
export const GOV_CODESPACE = "gov";

export const ErrInactiveProposal = registerError(GOV_CODESPACE, 3, "inactive proposal", GrpcCode.FailedPrecondition);
export const ErrAlreadyActiveProposal = registerError(
  GOV_CODESPACE,
  4,
  "proposal already active",
  GrpcCode.FailedPrecondition,
);
export const ErrInvalidProposalContent = registerError(
  GOV_CODESPACE,
  5,
  "invalid proposal content",
  GrpcCode.InvalidArgument,
);
export const ErrInvalidProposalType = registerError(
  GOV_CODESPACE,
  6,
  "invalid proposal type",
  GrpcCode.InvalidArgument,
);
export const ErrInvalidVote = registerError(GOV_CODESPACE, 7, "invalid vote option", GrpcCode.InvalidArgument);
export const ErrInvalidGenesis = registerError(GOV_CODESPACE, 8, "invalid genesis state", GrpcCode.InvalidArgument);
export const ErrNoProposalHandlerExists = registerError(
  GOV_CODESPACE,
  9,
  "no handler exists for proposal type",
  GrpcCode.InvalidArgument,
);
export const ErrUnroutableProposalMsg = registerError(
  GOV_CODESPACE,
  10,
  "proposal message not recognized by router",
  GrpcCode.InvalidArgument,
);
export const ErrNoProposalMsgs = registerError(GOV_CODESPACE, 11, "no messages proposed", GrpcCode.InvalidArgument);
export const ErrInvalidProposalMsg = registerError(
  GOV_CODESPACE,
  12,
  "invalid proposal message",
  GrpcCode.InvalidArgument,
);
/**
 * v0.50's text (older releases said "expected gov account as only signer …"). Staking registers the
 * identical error for its MsgUpdateParams, as upstream's staking uses gov's.
 */
export const ErrInvalidSigner = registerError(
  GOV_CODESPACE,
  13,
  "expected authority account as only signer for proposal message",
  GrpcCode.PermissionDenied,
);
export const ErrMetadataTooLong = registerError(GOV_CODESPACE, 15, "metadata too long", GrpcCode.InvalidArgument);
export const ErrMinDepositTooSmall = registerError(
  GOV_CODESPACE,
  16,
  "minimum deposit is too small",
  GrpcCode.InvalidArgument,
);
export const ErrInvalidProposer = registerError(GOV_CODESPACE, 18, "invalid proposer", GrpcCode.InvalidArgument);
export const ErrVotingPeriodEnded = registerError(
  GOV_CODESPACE,
  20,
  "voting period already ended",
  GrpcCode.FailedPrecondition,
);
export const ErrInvalidProposal = registerError(GOV_CODESPACE, 21, "invalid proposal", GrpcCode.InvalidArgument);
export const ErrSummaryTooLong = registerError(GOV_CODESPACE, 22, "summary too long", GrpcCode.InvalidArgument);
export const ErrInvalidDepositDenom = registerError(
  GOV_CODESPACE,
  23,
  "invalid deposit denom",
  GrpcCode.InvalidArgument,
);
