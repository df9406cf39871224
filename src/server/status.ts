// One answer to "what status does this error get?" for both transports: the gRPC code, the HTTP
// status and the message a client sees. Handlers raise GrpcStatusError or registered errors; the
// store raises pruned/future-version errors; the servers raise RequestError for bad input. Anything
// else is an internal error: code 13, HTTP 500, the message but never a stack trace.
import {
  ChainError,
  GrpcCode,
  type GrpcCodeValue,
  GrpcStatusError,
  grpcCodeOf,
  httpStatusForGrpcCode,
  rootOf,
} from "../app/errors.ts";
import { redactPaths } from "../app/redact-paths.ts";
import { FutureVersionError, InvalidVersionError, PrunedVersionError, StoreNotFoundError } from "../store/errors.ts";

/**
 * A request the servers refuse before any handler runs (bad parameter, bad height header, bad
 * body, unknown path, ...). `grpcCode` decides the status; `httpStatus` overrides the HTTP one
 * (405, 413) where the gRPC code alone would not say it.
 */
export class RequestError extends Error {
  readonly grpcCode: GrpcCodeValue;
  readonly httpStatus: number;

  constructor(grpcCode: GrpcCodeValue, message: string, options?: { httpStatus?: number; cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = "RequestError";
    this.grpcCode = grpcCode;
    this.httpStatus = options?.httpStatus ?? httpStatusForGrpcCode(grpcCode);
  }
}

/** What a client is told about a failed call. */
export interface CallStatus {
  grpcCode: GrpcCodeValue;
  httpStatus: number;
  message: string;
}

/**
 * The status of `err`: RequestError, GrpcStatusError and registered errors keep their own code;
 * a future height is InvalidArgument, a pruned one NotFound (with the store's exact messages);
 * anything unrecognised is Internal, its message without absolute file-system paths.
 */
export function statusOf(err: unknown): CallStatus {
  if (err instanceof RequestError) return { grpcCode: err.grpcCode, httpStatus: err.httpStatus, message: err.message };
  if (err instanceof FutureVersionError || err instanceof InvalidVersionError) {
    return status(GrpcCode.InvalidArgument, err.message);
  }
  if (err instanceof PrunedVersionError || err instanceof StoreNotFoundError)
    return status(GrpcCode.NotFound, err.message);
  if (err instanceof GrpcStatusError || err instanceof ChainError || rootOf(err) !== undefined) {
    // Unknown is folded into Internal so that every 500 carries code 13 (SPEC §7).
    const code = grpcCodeOf(err);
    return status(code === GrpcCode.Unknown ? GrpcCode.Internal : code, (err as Error).message);
  }
  const message = err instanceof Error ? err.message : String(err);
  return status(GrpcCode.Internal, message === "" ? "internal error" : message);
}

function status(grpcCode: GrpcCodeValue, message: string): CallStatus {
  // Internal errors come from the store, the block store or fs calls: their paths stay in the log.
  const shown = grpcCode === GrpcCode.Internal ? redactPaths(message) : message;
  return { grpcCode, httpStatus: httpStatusForGrpcCode(grpcCode), message: shown };
}
