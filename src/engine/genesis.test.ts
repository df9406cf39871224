import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { GenesisError, parseGenesis } from "./genesis.ts";
import { PrivValidator } from "./priv-validator.ts";
import { seedOf } from "./test-support/fixtures.ts";

const pv = PrivValidator.fromSeed(seedOf("genesis-test"));
const validator = {
  address: Buffer.from(pv.address).toString("hex").toUpperCase(),
  pub_key: { type: "tendermint/PubKeyEd25519", value: Buffer.from(pv.pubKey).toString("base64") },
  power: "10",
  name: "v",
};
const base = {
  genesis_time: "2024-05-06T07:08:09.123456789Z",
  chain_id: "c-1",
  initial_height: "5",
  validators: [validator],
  app_hash: "",
  app_state: { a: 1 },
};
const parse = (doc: Record<string, unknown>) => parseGenesis(JSON.stringify(doc), "genesis.json");

describe("genesis.json", () => {
  it("reads CometBFT's format, with defaults for absent consensus params", () => {
    const g = parse(base);
    assert.equal(g.chainId, "c-1");
    assert.equal(g.initialHeight, 5n);
    assert.equal(g.genesisTime.nanos, 123456789);
    assert.equal(g.consensusParams.block.maxBytes, 22020096n);
    assert.equal(g.validators[0].power, 10n);
    assert.equal(new TextDecoder().decode(g.appStateBytes), '{"a":1}');
  });

  it("accepts numbers for int64 fields and the SDK's nested consensus section", () => {
    const g = parse({
      ...base,
      initial_height: 1,
      validators: undefined,
      consensus: { params: { block: { max_bytes: 1000000, max_gas: "50000000" } }, validators: [validator] },
    });
    assert.equal(g.initialHeight, 1n);
    assert.equal(g.consensusParams.block.maxGas, 50000000n);
    assert.equal(g.validators.length, 1);
  });

  it("names the file and the field of every mistake", () => {
    const cases: [Record<string, unknown> | string, RegExp][] = [
      ["{", /^genesis.json: not valid JSON/],
      [{ ...base, chain_id: "" }, /genesis.json: chain_id: expected a non-empty string/],
      [{ ...base, genesis_time: "yesterday" }, /genesis_time: "yesterday" is not an RFC 3339 time/],
      [{ ...base, initial_height: "one" }, /initial_height: expected an integer/],
      [{ ...base, validators: [{ ...validator, power: "0" }] }, /validators\[0\].power: must be positive/],
      [
        { ...base, validators: [{ ...validator, address: "00" }] },
        /validators\[0\].address: 00 does not match the public key/,
      ],
      [
        { ...base, validators: [{ ...validator, pub_key: { type: "x", value: "AA==" } }] },
        /validators\[0\].pub_key: unsupported key type x/,
      ],
      [{ ...base, app_hash: "xyz" }, /app_hash: expected hex/],
      [{ ...base, consensus_params: { block: { max_bytes: "0" } } }, /consensus_params: block.MaxBytes cannot be 0/],
    ];
    for (const [doc, re] of cases) {
      assert.throws(
        () => (typeof doc === "string" ? parseGenesis(doc, "genesis.json") : parse(doc)),
        (e: unknown) => e instanceof GenesisError && re.test(e.message),
        String(re),
      );
    }
  });
});
