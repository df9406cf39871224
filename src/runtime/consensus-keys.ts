// The consensus key of a validator record, for the vote-extension handler (every block's extended commit asks for
// its validators' keys). Decoding the key's Any costs more than reading the record, and the staking keeper hands out
// one frozen record per stored bytes: a frozen record's key cannot change, so it is decoded once per record. Any
// staking write (a new key, new tokens) stores new bytes, which the keeper decodes into another record object, whose
// key is decoded afresh; a record that is not frozen is decoded every time.
import type { Validator } from "../gen/chain/staking/v1beta1/staking_pb.js";
import { consensusPubKey } from "../x/staking/validator.ts";

const decoded = new WeakMap<Validator, Uint8Array>();

/** The ed25519 consensus key of `validator` (staking's consensusPubKey), decoded once per frozen record. */
export function consensusKeyOfRecord(validator: Validator): Uint8Array {
  const frozen = Object.isFrozen(validator) && Object.isFrozen(validator.consensusPubkey);
  let key = frozen ? decoded.get(validator) : undefined;
  if (key === undefined) {
    key = consensusPubKey(validator);
    if (frozen) decoded.set(validator, key);
  }
  return key;
}
