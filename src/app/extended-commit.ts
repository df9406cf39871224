// The previous height's extended commit inside a block. With vote extensions on, CometBFT hands only the proposer
// the precommits' extensions (PrepareProposal's local_last_commit); to make them state, the proposer puts them in
// its block as the first tx, and every node checks that tx in ProcessProposal before voting for the block, as the
// Cosmos SDK's ValidateVoteExtensions does: each extension signed by its validator's consensus key over CometBFT's
// canonical vote-extension sign bytes, the validators exactly those of the commit CometBFT itself checked (same
// order, power and vote flags: nothing left out, added, duplicated or altered), more than 2/3 of the power present.
import { fromBinary, toBinary } from "@bufbuild/protobuf";
import { utf8 } from "../bytes/text.ts";
import { putUvarint, uvarintLength } from "../bytes/varint.ts";
import { verifyEd25519 } from "../crypto/ed25519.ts";
import { type CommitInfo, type ExtendedCommitInfo, ExtendedCommitInfoSchema } from "../gen/tendermint/abci/types_pb.js";
import { BlockIDFlag } from "../gen/tendermint/types/validator_pb.js";

// A byte 0x00 opens no valid protobuf message (field number 0 does not exist), so no Tx can start with it: the
// marker cannot be mistaken for a user's tx, and a user's tx cannot pass for the commit.
const MARKER = new TextEncoder().encode("\0chaind/extended-commit/v1\0");

/** The tx that carries `info` in a block. */
export function encodeExtendedCommitTx(info: ExtendedCommitInfo): Uint8Array {
  const body = toBinary(ExtendedCommitInfoSchema, info);
  const out = new Uint8Array(MARKER.length + body.length);
  out.set(MARKER, 0);
  out.set(body, MARKER.length);
  return out;
}

/** True when `tx` starts with the extended-commit marker. */
export function isExtendedCommitTx(tx: Uint8Array | undefined): tx is Uint8Array {
  if (tx === undefined || tx.length < MARKER.length) return false;
  for (let i = 0; i < MARKER.length; i++) if (tx[i] !== MARKER[i]) return false;
  return true;
}

/** The commit a marked tx carries; throws a message saying what is wrong when it is not one. */
export function decodeExtendedCommitTx(tx: Uint8Array): ExtendedCommitInfo {
  if (!isExtendedCommitTx(tx)) throw new Error("the block's first tx is not the previous height's extended commit");
  try {
    return fromBinary(ExtendedCommitInfoSchema, tx.subarray(MARKER.length));
  } catch (error) {
    throw new Error(`the extended commit does not decode: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/**
 * CometBFT's sign bytes of a vote extension: the length-delimited CanonicalVoteExtension
 * `{ extension = 1, height = 2 (sfixed64), round = 3 (sfixed64), chain_id = 4 }`, proto3 (zero fields left out).
 * Written by hand: every block signs one and checks one, and a general encoder's message object costs more than
 * these few bytes (extended-commit.test.ts holds the layout to the generated CanonicalVoteExtension's).
 */
export function voteExtensionSignBytes(
  extension: Uint8Array,
  height: bigint,
  round: bigint,
  chainId: string,
): Uint8Array {
  const chain = utf8(chainId);
  const body =
    lengthDelimitedSize(extension.length) +
    (height === 0n ? 0 : 9) +
    (round === 0n ? 0 : 9) +
    lengthDelimitedSize(chain.length);
  const out = new Uint8Array(uvarintLength(body) + body);
  const view = new DataView(out.buffer);
  let at = putUvarint(out, 0, body);
  at = putLengthDelimited(out, at, 0x0a, extension);
  if (height !== 0n) at = putSfixed64(view, at, 0x11, height, "height");
  if (round !== 0n) at = putSfixed64(view, at, 0x19, round, "round");
  putLengthDelimited(out, at, 0x22, chain);
  return out;
}

/** Bytes a proto3 bytes/string field of `length` bytes takes (none when empty). */
function lengthDelimitedSize(length: number): number {
  return length === 0 ? 0 : 1 + uvarintLength(length) + length;
}

function putLengthDelimited(out: Uint8Array, at: number, tag: number, value: Uint8Array): number {
  if (value.length === 0) return at;
  out[at] = tag;
  const next = putUvarint(out, at + 1, value.length);
  out.set(value, next);
  return next + value.length;
}

function putSfixed64(view: DataView, at: number, tag: number, value: bigint, what: string): number {
  if (value !== BigInt.asIntN(64, value)) throw new RangeError(`a vote extension's ${what} ${value} is not an int64`);
  view.setUint8(at, tag);
  view.setBigInt64(at + 1, value, true);
  return at + 9;
}

/** What {@link extendedCommitProblem} needs besides the two commits. */
export interface ExtendedCommitCheck {
  /** The height the votes are for (the block's height − 1). */
  height: bigint;
  chainId: string;
  /** The ed25519 consensus key of the validator with this consensus address, if the state knows one. */
  pubKeyOf: (address: Uint8Array) => Promise<Uint8Array | undefined>;
  /** Whether an extension's content is acceptable (VerifyVoteExtension's rule). */
  acceptExtension: (extension: Uint8Array) => boolean;
}

/**
 * Why `info` (the proposer's extended commit) must not go into a block whose last commit CometBFT gave as
 * `proposed`, or undefined when it may.
 */
export async function extendedCommitProblem(
  info: ExtendedCommitInfo,
  proposed: CommitInfo,
  check: ExtendedCommitCheck,
): Promise<string | undefined> {
  if (info.round !== proposed.round) {
    return `extended commit of round ${info.round}, but the last commit is of round ${proposed.round}`;
  }
  if (info.votes.length !== proposed.votes.length) {
    return `extended commit with ${info.votes.length} votes, but the last commit has ${proposed.votes.length}`;
  }
  const seen = new Set<string>();
  let total = 0n;
  let present = 0n;
  for (let i = 0; i < info.votes.length; i++) {
    const vote = info.votes[i]!;
    const expected = proposed.votes[i]!;
    const address = vote.validator?.address ?? new Uint8Array(0);
    const key = Buffer.from(address).toString("hex");
    if (seen.has(key)) return `extended commit lists validator ${key.toUpperCase()} twice`;
    seen.add(key);
    if (
      Buffer.compare(address, expected.validator?.address ?? new Uint8Array(0)) !== 0 ||
      vote.validator?.power !== expected.validator?.power ||
      vote.blockIdFlag !== expected.blockIdFlag
    ) {
      return `extended commit vote ${i} (validator ${key.toUpperCase()}) differs from the last commit's`;
    }
    const power = expected.validator?.power ?? 0n;
    total += power;
    if (vote.blockIdFlag !== BlockIDFlag.BLOCK_ID_FLAG_COMMIT) {
      if (vote.voteExtension.length > 0 || vote.extensionSignature.length > 0) {
        return `extended commit carries an extension of validator ${key.toUpperCase()}, which did not precommit the block`;
      }
      continue;
    }
    if (!check.acceptExtension(vote.voteExtension)) {
      return `validator ${key.toUpperCase()}'s vote extension is malformed`;
    }
    const pubKey = await check.pubKeyOf(address);
    if (pubKey === undefined) return `validator ${key.toUpperCase()} of the extended commit is not a known validator`;
    const signBytes = voteExtensionSignBytes(vote.voteExtension, check.height, BigInt(info.round), check.chainId);
    if (vote.extensionSignature.length !== 64 || !verifyEd25519(pubKey, signBytes, vote.extensionSignature)) {
      return `validator ${key.toUpperCase()}'s vote extension signature does not verify`;
    }
    present += power;
  }
  if (present * 3n <= total * 2n) {
    return `extended commit holds ${present} of ${total} voting power: more than 2/3 is needed`;
  }
  return undefined;
}
