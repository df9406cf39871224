// The `x-chain-block-height` header: which committed state a query reads (docs/CONTRACT.md §6, §7). Both
// transports parse it here and resolve it against the node's latest and earliest heights, so a
// client gets the same answer over gRPC and REST.
import { GrpcCode } from "../app/errors.ts";
import { FutureVersionError, PrunedVersionError } from "../store/errors.ts";
import { RequestError } from "./status.ts";

/** The request header / gRPC metadata key, and the response header carrying the height used. */
export const HEIGHT_HEADER = "x-chain-block-height";
/** The gateway also accepts (and answers with) the grpc-gateway form of the header. */
export const GATEWAY_HEIGHT_HEADER = "grpc-metadata-x-chain-block-height";

const MAX_HEIGHT = (1n << 63n) - 1n;
const DIGITS = /^\+?[0-9]+$/;

/**
 * Parses the header values (absent, one, or several equal ones) into a height; 0n and absent both
 * mean "latest" and give undefined. Malformed text, a negative number, a value above int64, or two
 * different values are a RequestError with code InvalidArgument.
 *
 * @example parseHeightHeader(["42"]) // 42n
 */
export function parseHeightHeader(values: readonly string[]): bigint | undefined {
  if (values.length === 0) return undefined;
  const distinct = [...new Set(values.map((value) => value.trim()))];
  if (distinct.length > 1) {
    throw invalid(`${HEIGHT_HEADER} was given more than once with different values (${distinct.join(", ")})`);
  }
  const text = distinct[0];
  if (/^-[0-9]+$/.test(text)) {
    throw invalid(`cannot query with height < 0; please provide a valid height (${HEIGHT_HEADER}: ${text})`);
  }
  if (!DIGITS.test(text)) {
    throw invalid(
      `invalid ${HEIGHT_HEADER} header: expected a non-negative integer (0 or absent for the latest height), got "${text}"`,
    );
  }
  const height = BigInt(text);
  if (height > MAX_HEIGHT) {
    throw invalid(`invalid ${HEIGHT_HEADER} header: value out of range, got "${text}" (the maximum is ${MAX_HEIGHT})`);
  }
  return height === 0n ? undefined : height;
}

/**
 * The height a query runs at: the latest for undefined, else the requested one if readable.
 * Above the latest → FutureVersionError (answered 400, code 3); below the earliest → PrunedVersionError
 * (answered 404, code 5), both with the store's exact messages.
 */
export function resolveHeight(requested: bigint | undefined, latest: bigint, earliest: bigint): bigint {
  if (requested === undefined) return latest;
  if (requested > latest) throw new FutureVersionError(requested, latest);
  if (requested < earliest) throw new PrunedVersionError(requested, earliest, latest);
  return requested;
}

function invalid(message: string): RequestError {
  return new RequestError(GrpcCode.InvalidArgument, message);
}
