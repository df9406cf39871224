// The consensus key decoded once per frozen record (consensus-keys.ts): a record the keeper decodes from new bytes (a
// key change, any staking write) answers its own key at once; an unfrozen record is never remembered.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { create } from "@bufbuild/protobuf";
import { ValidatorSchema } from "../gen/chain/staking/v1beta1/staking_pb.js";
import { decodeValidator, ed25519PubKeyAny, encodeValidator, freezeValidator } from "../x/staking/validator.ts";
import { consensusKeyOfRecord } from "./consensus-keys.ts";

const key = (fill: number) => new Uint8Array(32).fill(fill);
const record = (fill: number) =>
  create(ValidatorSchema, { operatorAddress: "op", consensusPubkey: ed25519PubKeyAny(key(fill)) });
/** What StakingKeeper.getValidator hands out for stored bytes: decoded, then frozen. */
const stored = (fill: number) => freezeValidator(decodeValidator(encodeValidator(record(fill))));

describe("consensusKeyOfRecord", () => {
  it("answers each stored record's own key, the rewritten record's new key at once", () => {
    const before = stored(1);
    assert.deepEqual(consensusKeyOfRecord(before), key(1));
    assert.deepEqual(consensusKeyOfRecord(before), key(1), "asked again");
    const after = stored(2); // the same validator with another consensus key, as a staking write stores it
    assert.deepEqual(consensusKeyOfRecord(after), key(2));
    assert.deepEqual(consensusKeyOfRecord(before), key(1));
  });

  it("decodes an unfrozen record every time, so a change to it is seen", () => {
    const open = record(3);
    assert.deepEqual(consensusKeyOfRecord(open), key(3));
    open.consensusPubkey = ed25519PubKeyAny(key(4));
    assert.deepEqual(consensusKeyOfRecord(open), key(4));
  });

  it("refuses a key that is not ed25519, as staking's consensusPubKey does", () => {
    const other = freezeValidator(
      create(ValidatorSchema, { consensusPubkey: { typeUrl: "/cosmos.crypto.secp256k1.PubKey", value: key(5) } }),
    );
    assert.throws(() => consensusKeyOfRecord(other), /not supported/);
  });
});
