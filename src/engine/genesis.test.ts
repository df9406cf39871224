// The engine's view of genesis.json. The parsing and its error messages are src/config's (tested there);
// these tests check the reshaping into the engine's forms and that config's errors come through unchanged.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { seedOf } from "../../test/support/engine/fixtures.ts";
import { ConfigError } from "../config/errors.ts";
import { parseEngineGenesis } from "./genesis.ts";
import { PrivValidator } from "./priv-validator.ts";

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
const parse = (doc: Record<string, unknown>) => parseEngineGenesis(JSON.stringify(doc), "genesis.json");

describe("genesis.json (engine view)", () => {
  it("reshapes CometBFT's format: validators as {type, key}, evidence age as {seconds, nanos}, app_state bytes", () => {
    const g = parse(base);
    assert.equal(g.chainId, "c-1");
    assert.equal(g.initialHeight, 5n);
    assert.equal(g.genesisTime.nanos, 123456789);
    assert.equal(g.consensusParams.block.maxBytes, 22020096n);
    assert.deepEqual(g.consensusParams.evidence.maxAgeDuration, { seconds: 172800n, nanos: 0 });
    assert.equal(g.validators[0].power, 10n);
    assert.deepEqual(g.validators[0].pubKey, { type: "ed25519", key: pv.pubKey });
    assert.deepEqual(g.validators[0].address, pv.address);
    assert.equal(new TextDecoder().decode(g.appStateBytes), '{"a":1}');
    assert.deepEqual(g.appState, { a: 1 });
  });

  it("keeps sub-second evidence ages and gives empty app_state bytes when app_state is absent", () => {
    const g = parse({
      ...base,
      app_state: undefined,
      consensus_params: {
        block: { max_bytes: "1000000", max_gas: "50000000" },
        evidence: { max_age_num_blocks: "10", max_age_duration: "1500000000", max_bytes: "1000" },
        validator: { pub_key_types: ["ed25519"] },
      },
    });
    assert.equal(g.consensusParams.block.maxGas, 50000000n);
    assert.deepEqual(g.consensusParams.evidence.maxAgeDuration, { seconds: 1n, nanos: 500000000 });
    assert.equal(g.appStateBytes.length, 0);
    assert.equal(g.appState, undefined);
  });

  it("reports mistakes with src/config's ConfigError, naming the file and the field", () => {
    assert.throws(
      () => parse({ ...base, validators: [{ ...validator, power: "0" }] }),
      (e: unknown) =>
        e instanceof ConfigError &&
        /^genesis\.json: validators\[0\]\.power: expected a positive voting power/.test(e.message),
    );
    assert.throws(
      () => parseEngineGenesis("{", "genesis.json"),
      (e: unknown) => e instanceof ConfigError && /^genesis\.json: line 1, column 2: invalid JSON/.test(e.message),
    );
  });
});
