import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { CliError } from "../../../client/cli/errors.ts";
import { createValidatorFromJson, type ValidatorJson } from "./cli.ts";

const OPERATOR = "chainvaloper1pkptre7fdkl6gfrzlesjjvhxhlc3r4gm5uj094";
const SPEC: ValidatorJson = {
  pubkey: { "@type": "/chain.crypto.ed25519.PubKey", key: "oWg2ISpLF405Jcm2vXV+2v4fnjodh6aafuIdeoW+rUw=" },
  amount: "2000000stake",
  moniker: "val",
  "commission-rate": "0.1",
  "commission-max-rate": "0.2",
  "commission-max-change-rate": "0.01",
  "min-self-delegation": "1",
};

describe("tx staking create-validator's validator.json", () => {
  test("builds the message from upstream's fields", () => {
    const msg = createValidatorFromJson(SPEC, OPERATOR);
    assert.equal(msg.validatorAddress, OPERATOR);
    assert.deepEqual(msg.value, { $typeName: "chain.base.v1beta1.Coin", denom: "stake", amount: "2000000" });
    assert.equal(msg.commission?.rate, "0.100000000000000000");
  });

  test("runs the message's stateless checks before anything is signed, as upstream's CLI does", () => {
    const refused = (spec: Partial<ValidatorJson>, pattern: RegExp) =>
      assert.throws(
        () => createValidatorFromJson({ ...SPEC, ...spec }, OPERATOR),
        (err: unknown) => err instanceof CliError && pattern.test(err.message),
      );
    refused({ "commission-rate": "0.5" }, /^invalid validator: commission cannot be more than the max rate/);
    refused({ amount: "0stake" }, /^invalid validator: invalid delegation amount/);
    refused({ "min-self-delegation": "0" }, /^invalid validator: minimum self delegation must be a positive integer/);
    refused({ "min-self-delegation": "3000000" }, /self delegation must be greater than their minimum/);
  });
});
