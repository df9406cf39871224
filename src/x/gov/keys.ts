// The gov store layout (store key `gov`), with upstream v0.50's prefix bytes. Proposal ids are
// 8-byte big-endian; queue keys order by time (seconds with the sign bit flipped, then nanos) and
// then id; deposit and vote keys end with the raw 20-byte address.
import type { Timestamp } from "@bufbuild/protobuf/wkt";
import { concatBytes } from "../../bytes/concat.ts";

/** The module name, store key and genesis key. */
export const GOV_MODULE_NAME = "gov";
/** Store key of the gov module. */
export const GOV_STORE_KEY = "gov";

/** 0x00 | id → Proposal. */
export const PROPOSALS_PREFIX = Uint8Array.of(0x00);
/** 0x01 | time | id → id: proposals in their voting period, by voting_end_time. */
export const ACTIVE_QUEUE_PREFIX = Uint8Array.of(0x01);
/** 0x02 | time | id → id: proposals in their deposit period, by deposit_end_time. */
export const INACTIVE_QUEUE_PREFIX = Uint8Array.of(0x02);
/** 0x03 → the next proposal id. */
export const PROPOSAL_ID_KEY = Uint8Array.of(0x03);
/** 0x04 | id → 0x01: the set of proposals in their voting period. */
export const VOTING_PERIOD_PREFIX = Uint8Array.of(0x04);
/** 0x10 | id | depositor → Deposit. */
export const DEPOSITS_PREFIX = Uint8Array.of(0x10);
/** 0x20 | id | voter → Vote. */
export const VOTES_PREFIX = Uint8Array.of(0x20);
/** 0x30 → Params. */
export const PARAMS_KEY = Uint8Array.of(0x30);
/** 0x31 → the constitution (UTF-8). */
export const CONSTITUTION_KEY = Uint8Array.of(0x31);

/** 8-byte big-endian proposal id. */
export function idBytes(id: bigint): Uint8Array {
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, BigInt.asUintN(64, id));
  return out;
}

/** Reads an 8-byte big-endian id at `offset`. */
export function readId(bytes: Uint8Array, offset = 0): bigint {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getBigUint64(offset);
}

/** 12 bytes that sort like the time: seconds (sign bit flipped, so negative times sort first), nanos. */
export function timeBytes(time: Timestamp): Uint8Array {
  const out = new Uint8Array(12);
  const view = new DataView(out.buffer);
  view.setBigUint64(0, BigInt.asUintN(64, time.seconds) ^ (1n << 63n));
  view.setUint32(8, time.nanos);
  return out;
}

/** Reads the time written by timeBytes at `offset`. */
export function readTime(bytes: Uint8Array, offset: number): Timestamp {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const seconds = BigInt.asIntN(64, view.getBigUint64(offset) ^ (1n << 63n));
  return { $typeName: "google.protobuf.Timestamp", seconds, nanos: view.getUint32(offset + 8) };
}

/** Key of a proposal. */
export function proposalKey(id: bigint): Uint8Array {
  return concatBytes(PROPOSALS_PREFIX, idBytes(id));
}

/** Key of a queue entry (active or inactive queue prefix). */
export function queueKey(prefix: Uint8Array, time: Timestamp, id: bigint): Uint8Array {
  return concatBytes(prefix, timeBytes(time), idBytes(id));
}

/** Key of the voting-period set entry. */
export function votingPeriodKey(id: bigint): Uint8Array {
  return concatBytes(VOTING_PERIOD_PREFIX, idBytes(id));
}

/** Prefix of every deposit of a proposal. */
export function depositsOfProposalPrefix(id: bigint): Uint8Array {
  return concatBytes(DEPOSITS_PREFIX, idBytes(id));
}

/** Key of a deposit. */
export function depositKey(id: bigint, depositor: Uint8Array): Uint8Array {
  return concatBytes(DEPOSITS_PREFIX, idBytes(id), depositor);
}

/** Prefix of every vote on a proposal. */
export function votesOfProposalPrefix(id: bigint): Uint8Array {
  return concatBytes(VOTES_PREFIX, idBytes(id));
}

/** Key of a vote. */
export function voteKey(id: bigint, voter: Uint8Array): Uint8Array {
  return concatBytes(VOTES_PREFIX, idBytes(id), voter);
}
