// One registry of errors for the whole node. Each registered error has a codespace and code (what
// ABCI results and CLI users see, upstream's numbering), a gRPC status code and an HTTP status (what
// the gRPC server and the REST gateway answer). Errors are wrapped with context the way upstream
// wraps them, so logs read `<context>: <root description>`, e.g.
// `account sequence mismatch, expected 5, got 4: incorrect account sequence`.

/** gRPC status codes (google.rpc.Code); a plain object because the house style has no TS enums. */
export const GrpcCode = {
  OK: 0,
  Canceled: 1,
  Unknown: 2,
  InvalidArgument: 3,
  DeadlineExceeded: 4,
  NotFound: 5,
  AlreadyExists: 6,
  PermissionDenied: 7,
  ResourceExhausted: 8,
  FailedPrecondition: 9,
  Aborted: 10,
  OutOfRange: 11,
  Unimplemented: 12,
  Internal: 13,
  Unavailable: 14,
  DataLoss: 15,
  Unauthenticated: 16,
} as const;

/** One of the gRPC status code numbers. */
export type GrpcCodeValue = (typeof GrpcCode)[keyof typeof GrpcCode];

const GRPC_CODE_NAMES = new Map<number, string>(Object.entries(GrpcCode).map(([name, code]) => [code, name]));

/** The Go-style name of a gRPC code (`NotFound`), as it appears in `rpc error: code = NotFound desc = …`. */
export function grpcCodeName(code: number): string {
  return GRPC_CODE_NAMES.get(code) ?? `Code(${code})`;
}

/**
 * HTTP status for a gRPC code, per SPEC §7: invalid arguments 400, not found 404, everything else
 * 500. (Transport-specific answers such as 405 and 413 are decided by the gateway itself.)
 */
export function httpStatusForGrpcCode(code: number): number {
  switch (code) {
    case GrpcCode.OK:
      return 200;
    case GrpcCode.InvalidArgument:
    case GrpcCode.OutOfRange:
    case GrpcCode.FailedPrecondition:
      return 400;
    case GrpcCode.Unauthenticated:
      return 401;
    case GrpcCode.PermissionDenied:
      return 403;
    case GrpcCode.NotFound:
      return 404;
    case GrpcCode.AlreadyExists:
    case GrpcCode.Aborted:
      return 409;
    case GrpcCode.ResourceExhausted:
      return 429;
    case GrpcCode.Unimplemented:
      return 501;
    case GrpcCode.Unavailable:
      return 503;
    case GrpcCode.DeadlineExceeded:
      return 504;
    default:
      return 500;
  }
}

/**
 * A registered root error: the identity (codespace, code) plus its description. Throw it through
 * `wrap(...)`/`.wrap(...)` to add context, or `.error()` to throw it bare.
 */
export class RegisteredError {
  readonly codespace: string;
  readonly code: number;
  readonly description: string;
  readonly grpcCode: GrpcCodeValue;
  readonly httpStatus: number;

  constructor(codespace: string, code: number, description: string, grpcCode: GrpcCodeValue) {
    this.codespace = codespace;
    this.code = code;
    this.description = description;
    this.grpcCode = grpcCode;
    this.httpStatus = httpStatusForGrpcCode(grpcCode);
  }

  /** A throwable error whose message is the bare description. */
  error(): ChainError {
    return new ChainError(this, this.description);
  }

  /** A throwable error whose message is `<context>: <description>`. */
  wrap(context: string, options?: { cause?: unknown; details?: Record<string, unknown> }): ChainError {
    return new ChainError(this, `${context}: ${this.description}`, options);
  }

  /** True when `err` (or anything in its wrap chain) is this registered error. */
  is(err: unknown): boolean {
    return rootOf(err) === this;
  }
}

/**
 * An error that belongs to a registered root. `message` already holds the full wrapped text.
 * `details` carries machine-readable context; `cause` links to the wrapped error.
 */
export class ChainError extends Error {
  readonly root: RegisteredError;
  readonly details: Record<string, unknown>;
  /** Overrides the root's gRPC code for this one error (e.g. a pruned-height error is NotFound). */
  readonly grpcCodeOverride: GrpcCodeValue | undefined;

  constructor(
    root: RegisteredError,
    message: string,
    options?: { cause?: unknown; details?: Record<string, unknown>; grpcCode?: GrpcCodeValue },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = "ChainError";
    this.root = root;
    this.details = options?.details ?? {};
    this.grpcCodeOverride = options?.grpcCode;
  }

  get codespace(): string {
    return this.root.codespace;
  }

  get code(): number {
    return this.root.code;
  }

  get grpcCode(): GrpcCodeValue {
    return this.grpcCodeOverride ?? this.root.grpcCode;
  }

  get httpStatus(): number {
    return httpStatusForGrpcCode(this.grpcCode);
  }
}

/**
 * An error carrying a gRPC status, as query handlers raise them (upstream's `status.Error(codes.NotFound, …)`).
 * Over ABCI Query it becomes an sdk error (NotFound → 22, InvalidArgument → 18, …) with log
 * `rpc error: code = <Name> desc = <message>: <sdk description>`.
 */
export class GrpcStatusError extends Error {
  readonly grpcCode: GrpcCodeValue;

  constructor(grpcCode: GrpcCodeValue, message: string, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = "GrpcStatusError";
    this.grpcCode = grpcCode;
  }

  get httpStatus(): number {
    return httpStatusForGrpcCode(this.grpcCode);
  }
}

/** Shorthand for query handlers: `throw grpcError(GrpcCode.NotFound, "account chain1… not found")`. */
export function grpcError(code: GrpcCodeValue, message: string): GrpcStatusError {
  return new GrpcStatusError(code, message);
}

/** Thrown by `registerError` for a duplicate (codespace, code) or a reserved code. */
export class ErrorRegistrationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ErrorRegistrationError";
  }
}

// The registry is keyed by "codespace/code". It is process-wide because registered errors are
// constants declared at module load, like upstream's; registration is idempotent only for the
// identical definition so a module file loaded twice by a test runner does not fail.
const registry = new Map<string, RegisteredError>();

/**
 * Registers an error `(codespace, code)` with its description and gRPC code (default Unknown).
 * Code 1 is reserved for unregistered errors. Registering a different error under a taken
 * (codespace, code) throws ErrorRegistrationError.
 *
 * @example
 * export const ErrSendDisabled = registerError("bank", 5, "send transactions are disabled", GrpcCode.FailedPrecondition);
 */
export function registerError(
  codespace: string,
  code: number,
  description: string,
  grpcCode: GrpcCodeValue = GrpcCode.Unknown,
): RegisteredError {
  if (!Number.isInteger(code) || code < 2 || code > 0xffffffff) {
    throw new ErrorRegistrationError(
      `cannot register error ${codespace}/${code}: codes must be integers from 2 (1 is reserved for internal errors)`,
    );
  }
  const key = `${codespace}/${code}`;
  const existing = registry.get(key);
  if (existing !== undefined) {
    if (existing.description === description && existing.grpcCode === grpcCode) return existing;
    throw new ErrorRegistrationError(
      `error with code ${code} is already registered in codespace "${codespace}": "${existing.description}"`,
    );
  }
  const registered = new RegisteredError(codespace, code, description, grpcCode);
  registry.set(key, registered);
  return registered;
}

/** The registered error for (codespace, code), if any. */
export function lookupError(codespace: string, code: number): RegisteredError | undefined {
  return registry.get(`${codespace}/${code}`);
}

/** Every registered error, sorted by codespace then code (for docs and tests). */
export function registeredErrors(): RegisteredError[] {
  return [...registry.values()].sort((a, b) =>
    a.codespace === b.codespace ? a.code - b.code : a.codespace < b.codespace ? -1 : 1,
  );
}

/**
 * Adds context to an error, keeping its identity: a RegisteredError or ChainError stays in its
 * codespace/code with message `<context>: <inner message>`; any other error becomes a plain Error
 * (codespace `undefined`, code 1 in ABCI results) with the same message shape.
 */
export function wrap(err: unknown, context: string): Error {
  if (err instanceof RegisteredError) return err.wrap(context);
  if (err instanceof ChainError) {
    return new ChainError(err.root, `${context}: ${err.message}`, {
      cause: err,
      details: err.details,
      grpcCode: err.grpcCodeOverride,
    });
  }
  const inner = err instanceof Error ? err.message : String(err);
  return new Error(`${context}: ${inner}`, { cause: err });
}

/** The registered root of `err`, following ChainError roots and `cause` chains. */
export function rootOf(err: unknown): RegisteredError | undefined {
  let current: unknown = err;
  for (let depth = 0; depth < 32 && current !== undefined && current !== null; depth++) {
    if (current instanceof RegisteredError) return current;
    if (current instanceof ChainError) return current.root;
    current = current instanceof Error ? current.cause : undefined;
  }
  return undefined;
}

/** Codespace of an unregistered error in ABCI results (upstream's literal "undefined"). */
export const UNDEFINED_CODESPACE = "undefined";
/** Code of an unregistered error in ABCI results. */
export const INTERNAL_ABCI_CODE = 1;

/** What an ABCI result reports for an error. */
export interface AbciErrorInfo {
  codespace: string;
  code: number;
  log: string;
}

/**
 * The (codespace, code, log) an ABCI result carries for `err`: a registered error gives its own
 * identity, anything else codespace `undefined` code 1; the log is the full message.
 */
export function abciInfo(err: unknown): AbciErrorInfo {
  const root = rootOf(err);
  const log = err instanceof Error ? err.message : String(err);
  if (root === undefined) return { codespace: UNDEFINED_CODESPACE, code: INTERNAL_ABCI_CODE, log };
  return { codespace: root.codespace, code: root.code, log };
}

/** The gRPC code for `err`: its own status, its registered root's, else Unknown. */
export function grpcCodeOf(err: unknown): GrpcCodeValue {
  if (err instanceof GrpcStatusError) return err.grpcCode;
  if (err instanceof ChainError) return err.grpcCode;
  return rootOf(err)?.grpcCode ?? GrpcCode.Unknown;
}

// ---------------------------------------------------------------------------------------------
// The root codespace `sdk`, numbered as upstream (types/errors/errors.go, v0.50). The gRPC codes are
// our choice (upstream registers most as Unknown) so that the gateway answers 400/404 sensibly.

/** The root codespace. */
export const ROOT_CODESPACE = "sdk";

/** Upstream's root-codespace `sdkerrors.ErrTxDecode`. */
export const ErrTxDecode = registerError(ROOT_CODESPACE, 2, "tx parse error", GrpcCode.InvalidArgument);
/** Upstream's root-codespace `sdkerrors.ErrInvalidSequence`. */
export const ErrInvalidSequence = registerError(ROOT_CODESPACE, 3, "invalid sequence", GrpcCode.InvalidArgument);
/** Upstream's root-codespace `sdkerrors.ErrUnauthorized`. */
export const ErrUnauthorized = registerError(ROOT_CODESPACE, 4, "unauthorized", GrpcCode.Unauthenticated);
/** Upstream's root-codespace `sdkerrors.ErrInsufficientFunds`. */
export const ErrInsufficientFunds = registerError(ROOT_CODESPACE, 5, "insufficient funds", GrpcCode.FailedPrecondition);
/** Upstream's root-codespace `sdkerrors.ErrUnknownRequest`. */
export const ErrUnknownRequest = registerError(ROOT_CODESPACE, 6, "unknown request", GrpcCode.InvalidArgument);
/** Upstream's root-codespace `sdkerrors.ErrInvalidAddress`. */
export const ErrInvalidAddress = registerError(ROOT_CODESPACE, 7, "invalid address", GrpcCode.InvalidArgument);
/** Upstream's root-codespace `sdkerrors.ErrInvalidPubKey`. */
export const ErrInvalidPubKey = registerError(ROOT_CODESPACE, 8, "invalid pubkey", GrpcCode.InvalidArgument);
/** Upstream's root-codespace `sdkerrors.ErrUnknownAddress`. */
export const ErrUnknownAddress = registerError(ROOT_CODESPACE, 9, "unknown address", GrpcCode.NotFound);
/** Upstream's root-codespace `sdkerrors.ErrInvalidCoins`. */
export const ErrInvalidCoins = registerError(ROOT_CODESPACE, 10, "invalid coins", GrpcCode.InvalidArgument);
/** Upstream's root-codespace `sdkerrors.ErrOutOfGas`. */
export const ErrOutOfGas = registerError(ROOT_CODESPACE, 11, "out of gas", GrpcCode.ResourceExhausted);
/** Upstream's root-codespace `sdkerrors.ErrMemoTooLarge`. */
export const ErrMemoTooLarge = registerError(ROOT_CODESPACE, 12, "memo too large", GrpcCode.InvalidArgument);
/** Upstream's root-codespace `sdkerrors.ErrInsufficientFee`. */
export const ErrInsufficientFee = registerError(ROOT_CODESPACE, 13, "insufficient fee", GrpcCode.InvalidArgument);
/** Upstream's root-codespace `sdkerrors.ErrTooManySignatures`. */
export const ErrTooManySignatures = registerError(
  ROOT_CODESPACE,
  14,
  "maximum number of signatures exceeded",
  GrpcCode.InvalidArgument,
);
/** Upstream's root-codespace `sdkerrors.ErrNoSignatures`. */
export const ErrNoSignatures = registerError(ROOT_CODESPACE, 15, "no signatures supplied", GrpcCode.InvalidArgument);
/** Upstream's root-codespace `sdkerrors.ErrJSONMarshal`. */
export const ErrJSONMarshal = registerError(ROOT_CODESPACE, 16, "failed to marshal JSON bytes", GrpcCode.Internal);
/** Upstream's root-codespace `sdkerrors.ErrJSONUnmarshal`. */
export const ErrJSONUnmarshal = registerError(
  ROOT_CODESPACE,
  17,
  "failed to unmarshal JSON bytes",
  GrpcCode.InvalidArgument,
);
/** Upstream's root-codespace `sdkerrors.ErrInvalidRequest`. */
export const ErrInvalidRequest = registerError(ROOT_CODESPACE, 18, "invalid request", GrpcCode.InvalidArgument);
/** Upstream's root-codespace `sdkerrors.ErrTxInMempoolCache`. */
export const ErrTxInMempoolCache = registerError(ROOT_CODESPACE, 19, "tx already in mempool", GrpcCode.AlreadyExists);
/** Upstream's root-codespace `sdkerrors.ErrMempoolIsFull`. */
export const ErrMempoolIsFull = registerError(ROOT_CODESPACE, 20, "mempool is full", GrpcCode.Unavailable);
/** Upstream's root-codespace `sdkerrors.ErrTxTooLarge`. */
export const ErrTxTooLarge = registerError(ROOT_CODESPACE, 21, "tx too large", GrpcCode.InvalidArgument);
/** Upstream's root-codespace `sdkerrors.ErrKeyNotFound`. */
export const ErrKeyNotFound = registerError(ROOT_CODESPACE, 22, "key not found", GrpcCode.NotFound);
/** Upstream's root-codespace `sdkerrors.ErrWrongPassword`. */
export const ErrWrongPassword = registerError(ROOT_CODESPACE, 23, "invalid account password", GrpcCode.InvalidArgument);
/** Upstream's root-codespace `sdkerrors.ErrInvalidSigner`. */
export const ErrInvalidSigner = registerError(
  ROOT_CODESPACE,
  24,
  "tx intended signer does not match the given signer",
  GrpcCode.InvalidArgument,
);
/** Upstream's root-codespace `sdkerrors.ErrInvalidGasAdjustment`. */
export const ErrInvalidGasAdjustment = registerError(
  ROOT_CODESPACE,
  25,
  "invalid gas adjustment",
  GrpcCode.InvalidArgument,
);
/** Upstream's root-codespace `sdkerrors.ErrInvalidHeight`. */
export const ErrInvalidHeight = registerError(ROOT_CODESPACE, 26, "invalid height", GrpcCode.InvalidArgument);
/** Upstream's root-codespace `sdkerrors.ErrInvalidVersion`. */
export const ErrInvalidVersion = registerError(ROOT_CODESPACE, 27, "invalid version", GrpcCode.InvalidArgument);
/** Upstream's root-codespace `sdkerrors.ErrInvalidChainID`. */
export const ErrInvalidChainID = registerError(ROOT_CODESPACE, 28, "invalid chain-id", GrpcCode.InvalidArgument);
/** Upstream's root-codespace `sdkerrors.ErrInvalidType`. */
export const ErrInvalidType = registerError(ROOT_CODESPACE, 29, "invalid type", GrpcCode.InvalidArgument);
/** Upstream's root-codespace `sdkerrors.ErrTxTimeoutHeight`. */
export const ErrTxTimeoutHeight = registerError(ROOT_CODESPACE, 30, "tx timeout height", GrpcCode.InvalidArgument);
/** Upstream's root-codespace `sdkerrors.ErrUnknownExtensionOptions`. */
export const ErrUnknownExtensionOptions = registerError(
  ROOT_CODESPACE,
  31,
  "unknown extension options",
  GrpcCode.InvalidArgument,
);
/** Upstream's root-codespace `sdkerrors.ErrWrongSequence`. */
export const ErrWrongSequence = registerError(
  ROOT_CODESPACE,
  32,
  "incorrect account sequence",
  GrpcCode.InvalidArgument,
);
/** Upstream's root-codespace `sdkerrors.ErrPackAny`. */
export const ErrPackAny = registerError(
  ROOT_CODESPACE,
  33,
  "failed packing protobuf message to Any",
  GrpcCode.Internal,
);
/** Upstream's root-codespace `sdkerrors.ErrUnpackAny`. */
export const ErrUnpackAny = registerError(
  ROOT_CODESPACE,
  34,
  "failed unpacking protobuf message from Any",
  GrpcCode.InvalidArgument,
);
/** Upstream's root-codespace `sdkerrors.ErrLogic`. */
export const ErrLogic = registerError(ROOT_CODESPACE, 35, "internal logic error", GrpcCode.Internal);
/** Upstream's root-codespace `sdkerrors.ErrConflict`. */
export const ErrConflict = registerError(ROOT_CODESPACE, 36, "conflict", GrpcCode.Aborted);
/** Upstream's root-codespace `sdkerrors.ErrNotSupported`. */
export const ErrNotSupported = registerError(ROOT_CODESPACE, 37, "feature not supported", GrpcCode.Unimplemented);
/** Upstream's root-codespace `sdkerrors.ErrNotFound`. */
export const ErrNotFound = registerError(ROOT_CODESPACE, 38, "not found", GrpcCode.NotFound);
/** Upstream's root-codespace `sdkerrors.ErrIO`. */
export const ErrIO = registerError(ROOT_CODESPACE, 39, "Internal IO error", GrpcCode.Internal);
/** Upstream's root-codespace `sdkerrors.ErrAppConfig`. */
export const ErrAppConfig = registerError(ROOT_CODESPACE, 40, "error in app.toml", GrpcCode.Internal);
/** Upstream's root-codespace `sdkerrors.ErrInvalidGasLimit`. */
export const ErrInvalidGasLimit = registerError(ROOT_CODESPACE, 41, "invalid gas limit", GrpcCode.InvalidArgument);

/** Upstream's code for a recovered panic (codespace `undefined`); used for unexpected crashes in handlers. */
export const PANIC_ABCI_CODE = 111222;

/**
 * gov 13, upstream's `govtypes.ErrInvalidSigner`, which every module's authority check uses
 * (`invalid authority; expected <gov>, got <x>: expected authority account as only signer for proposal
 * message`). Registered here so auth, bank, staking and gov share one definition: the gov module must
 * import this constant, not register gov/13 again.
 */
export const ErrInvalidAuthority = registerError(
  "gov",
  13,
  "expected authority account as only signer for proposal message",
  GrpcCode.PermissionDenied,
);
