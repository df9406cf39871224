// The readiness record a validator's node puts in its precommit's vote extension (ExtendVote): which plan the node
// could run now, and why. Hand-encoded rather than protobuf so that its size bound is exact and its bytes are the
// same on every node (a vote extension is signed, and the next proposer copies it into its block verbatim).
//
// Version 1, at most READINESS_RECORD_MAX_BYTES bytes:
//   byte 0        version (1)
//   byte 1        reasons: bit 0 = this binary carries the plan's upgrade, bit 1 = a supervisor has the release
//                 staged; no other bit may be set; 0 exactly when the name is empty
//   byte 2        n, the length of the plan name in bytes (0..255)
//   bytes 3..3+n  the plan name, UTF-8; nothing may follow it
// An empty extension is "no signal" (a node whose vote extensions are off, or an old release): accepted, not ready.
// A record of a later version is accepted (so a network with a newer release does not have its precommits refused
// by older nodes) but read as "no signal" until this code learns its layout; it must still respect the size bound.

/** The version this code writes. */
export const READINESS_RECORD_VERSION = 1;
/** The longest plan name a record carries, in bytes (one length byte). */
export const READINESS_MAX_PLAN_NAME_BYTES = 255;
/** The largest extension VerifyVoteExtension accepts, of any version. */
export const READINESS_RECORD_MAX_BYTES = 3 + READINESS_MAX_PLAN_NAME_BYTES;

const REASON_BINARY = 0b01;
const REASON_STAGED = 0b10;

/** What a node signals: the plan it is ready for (empty when none) and what makes it ready. */
export interface ReadinessRecord {
  /** The plan name, "" when the node is ready for nothing. */
  plan: string;
  /** This binary carries the plan's upgrade (its release line has the release the plan enters). */
  binary: boolean;
  /** A supervisor has the plan's release staged (`$DAEMON_HOME/cosmovisor/upgrades/<plan>/bin/$DAEMON_NAME`). */
  staged: boolean;
}

/** The record of a node ready for nothing. */
export const NOT_READY: ReadinessRecord = Object.freeze({ plan: "", binary: false, staged: false });

/** A vote extension that is not a valid readiness record; the message says what was wrong. */
export class ReadinessRecordError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ReadinessRecordError";
  }
}

/**
 * The record's bytes. Throws a RangeError for a name longer than {@link READINESS_MAX_PLAN_NAME_BYTES} bytes, and
 * for a record whose name and reasons disagree (a name without a reason, or a reason without a name).
 *
 * @example encodeReadinessRecord({ plan: "v2", binary: false, staged: true }) // 01 02 02 76 32
 */
export function encodeReadinessRecord(record: ReadinessRecord): Uint8Array {
  const name = new TextEncoder().encode(record.plan);
  if (name.length > READINESS_MAX_PLAN_NAME_BYTES) {
    throw new RangeError(
      `a readiness record names a plan of at most ${READINESS_MAX_PLAN_NAME_BYTES} bytes, got ${name.length}`,
    );
  }
  const reasons = (record.binary ? REASON_BINARY : 0) | (record.staged ? REASON_STAGED : 0);
  if ((reasons === 0) !== (name.length === 0)) {
    throw new RangeError("a readiness record names a plan exactly when it gives a reason to be ready");
  }
  const out = new Uint8Array(3 + name.length);
  out[0] = READINESS_RECORD_VERSION;
  out[1] = reasons;
  out[2] = name.length;
  out.set(name, 3);
  return out;
}

/**
 * Reads a vote extension: {@link NOT_READY} for an empty one or one of a later version, the record otherwise.
 * Throws a ReadinessRecordError for anything else (oversized, version 0, truncated, trailing bytes, unknown reason
 * bits, name and reasons disagreeing, a name that is not UTF-8).
 */
export function decodeReadinessRecord(bytes: Uint8Array): ReadinessRecord {
  if (bytes.length === 0) return NOT_READY;
  if (bytes.length > READINESS_RECORD_MAX_BYTES) {
    throw new ReadinessRecordError(
      `readiness record of ${bytes.length} bytes: expected at most ${READINESS_RECORD_MAX_BYTES}`,
    );
  }
  const version = bytes[0] as number;
  if (version === 0) throw new ReadinessRecordError("readiness record of version 0: expected version 1 or later");
  if (version > READINESS_RECORD_VERSION) return NOT_READY;
  if (bytes.length < 3) {
    throw new ReadinessRecordError(
      `readiness record of ${bytes.length} bytes: expected at least 3 (version, reasons, length)`,
    );
  }
  const reasons = bytes[1] as number;
  if ((reasons & ~(REASON_BINARY | REASON_STAGED)) !== 0) {
    throw new ReadinessRecordError(`readiness record with unknown reason bits ${reasons}: expected 0 to 3`);
  }
  const length = bytes[2] as number;
  if (bytes.length !== 3 + length) {
    throw new ReadinessRecordError(
      `readiness record names a plan of ${length} bytes but carries ${bytes.length - 3}: expected exactly the name after the 3-byte header`,
    );
  }
  if ((reasons === 0) !== (length === 0)) {
    throw new ReadinessRecordError("readiness record names a plan without a reason, or a reason without a plan");
  }
  let plan: string;
  try {
    plan = new TextDecoder("utf-8", { fatal: true }).decode(bytes.subarray(3));
  } catch {
    throw new ReadinessRecordError("readiness record's plan name is not UTF-8");
  }
  return { plan, binary: (reasons & REASON_BINARY) !== 0, staged: (reasons & REASON_STAGED) !== 0 };
}

/** VerifyVoteExtension's rule: true when `bytes` is empty or a readable record (see {@link decodeReadinessRecord}). */
export function isAcceptableReadinessExtension(bytes: Uint8Array): boolean {
  try {
    decodeReadinessRecord(bytes);
    return true;
  } catch (error) {
    if (error instanceof ReadinessRecordError) return false;
    throw error;
  }
}
