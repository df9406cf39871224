// Validator sets as CometBFT keeps them: ordered by voting power (descending) then address (ascending), built
// from ABCI ValidatorUpdates (power 0 removes a validator), with CometBFT's checks on the updates.

import { createHash } from "node:crypto";
import { create } from "@bufbuild/protobuf";
import { sha256 } from "../bytes/sha256.ts";
import { UserError } from "../errors/user-error.ts";
import type { ValidatorUpdate } from "../gen/tendermint/abci/types_pb.js";
import { type PublicKey as ProtoPublicKey, PublicKeySchema } from "../gen/tendermint/crypto/keys_pb.js";
import { ed25519Address } from "./hashing/hashes.ts";
import type { PublicKey, Validator } from "./types.ts";

/** Raised for validator updates CometBFT would refuse (consensus stops on them). */
export class ValidatorSetError extends UserError {
  override name = "ValidatorSetError";
}

/** CometBFT's limit on total voting power (MaxInt64 / 8). */
export const MAX_TOTAL_VOTING_POWER = 1152921504606846975n;

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  return Buffer.compare(a, b);
}

/** Sorts a set into CometBFT's order: power descending, then address ascending. */
export function sortValidators(validators: Validator[]): Validator[] {
  return [...validators].sort((a, b) =>
    a.votingPower === b.votingPower ? compareBytes(a.address, b.address) : a.votingPower > b.votingPower ? -1 : 1,
  );
}

/** The consensus address of a public key: ed25519 → sha256[:20], secp256k1 → ripemd160(sha256). */
export function addressOf(pubKey: PublicKey): Uint8Array {
  if (pubKey.type === "ed25519") return ed25519Address(pubKey.key);
  return new Uint8Array(createHash("ripemd160").update(sha256(pubKey.key)).digest());
}

/** Converts a generated tendermint.crypto.PublicKey, checking its length. */
export function publicKeyFromProto(pk: ProtoPublicKey | undefined): PublicKey {
  const sum = pk?.sum;
  if (sum?.case === "ed25519") {
    if (sum.value.length !== 32) throw new ValidatorSetError(`ed25519 key must be 32 bytes, got ${sum.value.length}`);
    return { type: "ed25519", key: sum.value };
  }
  if (sum?.case === "secp256k1") {
    if (sum.value.length !== 33) throw new ValidatorSetError(`secp256k1 key must be 33 bytes, got ${sum.value.length}`);
    return { type: "secp256k1", key: sum.value };
  }
  throw new ValidatorSetError("validator update without a public key");
}

/** The generated form of a public key. */
export function publicKeyToProto(pk: PublicKey): ProtoPublicKey {
  return create(PublicKeySchema, { sum: { case: pk.type, value: pk.key } });
}

/**
 * Applies ABCI validator updates to a set (CometBFT `ValidatorSet.UpdateWithChangeSet`): power 0 removes, a new
 * key adds, a known key changes power. Throws on duplicates, negative power, removal of an unknown validator,
 * a key type outside `allowedKeyTypes`, an empty result, or too much total power.
 */
export function applyValidatorUpdates(
  current: readonly Validator[],
  updates: readonly ValidatorUpdate[],
  allowedKeyTypes: readonly string[],
): Validator[] {
  const byAddress = new Map(current.map((v) => [Buffer.from(v.address).toString("hex"), v]));
  const seen = new Set<string>();
  for (const u of updates) {
    const pubKey = publicKeyFromProto(u.pubKey);
    if (!allowedKeyTypes.includes(pubKey.type)) {
      throw new ValidatorSetError(
        `validator key type ${pubKey.type} is not in validator.pub_key_types [${allowedKeyTypes.join(", ")}]`,
      );
    }
    if (u.power < 0n) throw new ValidatorSetError(`voting power can't be negative: ${u.power}`);
    const address = addressOf(pubKey);
    const hex = Buffer.from(address).toString("hex");
    if (seen.has(hex)) throw new ValidatorSetError(`duplicate validator update for ${hex.toUpperCase()}`);
    seen.add(hex);
    if (u.power === 0n) {
      if (!byAddress.delete(hex)) {
        throw new ValidatorSetError(`failed to find validator ${hex.toUpperCase()} to remove`);
      }
    } else {
      byAddress.set(hex, { address, pubKey, votingPower: u.power, proposerPriority: 0n });
    }
  }
  const result = sortValidators([...byAddress.values()]);
  if (result.length === 0) throw new ValidatorSetError("applying the validator changes would result in empty set");
  const total = result.reduce((n, v) => n + v.votingPower, 0n);
  if (total > MAX_TOTAL_VOTING_POWER) {
    throw new ValidatorSetError(`total voting power ${total} exceeds the maximum ${MAX_TOTAL_VOTING_POWER}`);
  }
  return result;
}

/** Total voting power of a set. */
export function totalVotingPower(validators: readonly Validator[]): bigint {
  return validators.reduce((n, v) => n + v.votingPower, 0n);
}
