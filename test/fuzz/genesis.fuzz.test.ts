// genesis.json under fuzz (src/config/genesis.ts): a joining operator downloads it from whoever runs the chain, so
// its content is a stranger's. Properties: parsing returns a document or one ConfigError; an accepted document
// satisfies CometBFT's rules; writing it and reading it back gives the same document (the node rewrites genesis in
// `collect-gentxs` and friends); and saving writes that one file and nothing else.
import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, test } from "node:test";
import fc from "fast-check";
import { consensusParamsProblems } from "../../src/config/consensus-params.ts";
import { ConfigError } from "../../src/config/errors.ts";
import {
  type GenesisDoc,
  genesisToJson,
  loadGenesis,
  MAX_CHAIN_ID_LENGTH,
  newGenesis,
  parseGenesis,
  saveGenesis,
  validatorAddress,
} from "../../src/config/genesis.ts";
import { type Json, jsonNear } from "./json-arbitraries.ts";
import { mutatedText } from "./mutations.ts";
import { parseOrOwnError } from "./own-errors.ts";
import { listTree, withSandbox } from "./sandbox.ts";
import { fuzzParameters } from "./settings.ts";

const FILE = "/home/op/.chaind/config/genesis.json";
const ED25519 = "tendermint/PubKeyEd25519";
const SECP256K1 = "tendermint/PubKeySecp256k1";

const FIELDS = [
  "genesis_time",
  "chain_id",
  "initial_height",
  "consensus_params",
  "validators",
  "app_hash",
  "app_state",
  "block",
  "max_bytes",
  "max_gas",
  "evidence",
  "max_age_num_blocks",
  "max_age_duration",
  "validator",
  "pub_key_types",
  "version",
  "app",
  "abci",
  "vote_extensions_enable_height",
  "address",
  "pub_key",
  "type",
  "value",
  "power",
  "name",
];
const WORDS = [
  ED25519,
  SECP256K1,
  "ed25519",
  "secp256k1",
  "chain-1",
  "x".repeat(51),
  "2025-01-31T12:00:00.123456789Z",
  "0000-01-01T00:00:00Z",
  "9999-12-31T23:59:59Z",
  "0001-01-01T00:00:00Z",
  "2024-02-29T00:00:00+23:59",
  "2023-02-29T00:00:00Z",
  "-1",
  "0",
  "104857600",
  "104857601",
];

/**
 * An RFC 3339 time, valid or nearly so: any date from year 0 to 9999, any offset, up to nine fractional digits. Each
 * part leans towards its edges (the first and last year, month, day, hour, minute and second), where a local time
 * and its offset can carry the instant out of the range a time can be written in.
 */
function part(min: number, max: number): fc.Arbitrary<number> {
  return fc.oneof(fc.constantFrom(min, max), fc.integer({ min: min - 1, max: max + 1 }));
}
const rfc3339 = fc
  .record({
    year: fc.oneof(fc.constantFrom(0, 1, 1970, 9999), fc.integer({ min: 0, max: 9999 })),
    month: part(1, 12),
    day: part(1, 31),
    hour: part(0, 23),
    minute: part(0, 59),
    second: part(0, 59),
    fraction: fc.oneof(fc.constant(""), fc.stringMatching(/^\.[0-9]{1,9}$/)),
    zone: fc.oneof(fc.constantFrom("Z", "z", "+00:00"), fc.stringMatching(/^[+-](0[0-9]|1[0-9]|2[0-4]):[0-5][0-9]$/)),
  })
  .map((t) => {
    const two = (n: number) => String(n).padStart(2, "0");
    return `${String(t.year).padStart(4, "0")}-${two(t.month)}-${two(t.day)}T${two(t.hour)}:${two(t.minute)}:${two(t.second)}${t.fraction}${t.zone}`;
  });

function hexText(maxLength: number): fc.Arbitrary<string> {
  return fc.string({ unit: fc.constantFrom(..."0123456789abcdefABCDEF"), maxLength });
}

const int64Text = fc.oneof(
  fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map(String),
  fc.constantFrom("-1", "0", "1", "104857600", "172800000000000", "9223372036854775808", "1e3", " 1", ""),
);

const validator = fc.record(
  {
    address: fc.oneof(
      fc.constant(""),
      hexText(40).map((hex) => hex.toUpperCase()),
      jsonNear([]),
    ),
    pub_key: fc.oneof(
      {
        weight: 4,
        arbitrary: fc.record({
          type: fc.oneof(fc.constantFrom(ED25519, SECP256K1), jsonNear([], WORDS)),
          value: fc.oneof(
            fc.uint8Array({ minLength: 31, maxLength: 34 }).map((bytes) => Buffer.from(bytes).toString("base64")),
            jsonNear([], WORDS),
          ),
        }),
      },
      jsonNear(FIELDS, WORDS),
    ),
    power: fc.oneof({ weight: 3, arbitrary: int64Text }, jsonNear([], WORDS)),
    name: fc.oneof(fc.string({ maxLength: 10 }), jsonNear([])),
  },
  { requiredKeys: [] },
);

/** Parameters within CometBFT's bounds, so documents get past them and the rest of the parser is reached. */
const validConsensusParams = fc
  .record({
    maxBytes: fc.oneof(fc.constant(-1n), fc.bigInt({ min: 1024n, max: 104857600n })),
    maxGas: fc.bigInt({ min: -1n, max: 2n ** 63n - 1n }),
    maxAgeNumBlocks: fc.bigInt({ min: 1n, max: 2n ** 63n - 1n }),
    maxAgeDuration: fc.bigInt({ min: 1n, max: 2n ** 63n - 1n }),
    evidenceMaxBytes: fc.bigInt({ min: 0n, max: 1024n }),
    pubKeyTypes: fc.subarray(["ed25519", "secp256k1"], { minLength: 1 }),
    app: fc.bigInt({ min: 0n, max: 2n ** 63n - 1n }),
    voteExtensions: fc.bigInt({ min: 0n, max: 2n ** 63n - 1n }),
  })
  .map((p) => ({
    block: { max_bytes: String(p.maxBytes), max_gas: String(p.maxGas) },
    evidence: {
      max_age_num_blocks: String(p.maxAgeNumBlocks),
      max_age_duration: String(p.maxAgeDuration),
      max_bytes: String(p.evidenceMaxBytes),
    },
    validator: { pub_key_types: p.pubKeyTypes },
    version: { app: String(p.app) },
    abci: { vote_extensions_enable_height: String(p.voteExtensions) },
  }));

const consensusParams = fc.record(
  {
    block: fc.record({ max_bytes: int64Text, max_gas: int64Text }, { requiredKeys: [] }),
    evidence: fc.record(
      { max_age_num_blocks: int64Text, max_age_duration: int64Text, max_bytes: int64Text },
      { requiredKeys: [] },
    ),
    validator: fc.record({
      pub_key_types: fc.oneof(
        fc.array(fc.constantFrom("ed25519", "secp256k1", "sr25519"), { maxLength: 3 }),
        jsonNear([]),
      ),
    }),
    version: fc.record({ app: int64Text }),
    abci: fc.record({ vote_extensions_enable_height: int64Text }),
  },
  { requiredKeys: [] },
);

/** A genesis document: each field mostly well formed, sometimes anything at all. */
const genesisObject = fc.record(
  {
    genesis_time: fc.oneof({ weight: 4, arbitrary: rfc3339 }, jsonNear([], WORDS)),
    chain_id: fc.oneof(
      { weight: 4, arbitrary: fc.string({ minLength: 1, maxLength: MAX_CHAIN_ID_LENGTH + 2 }) },
      jsonNear([], WORDS),
    ),
    initial_height: fc.oneof({ weight: 3, arbitrary: int64Text }, jsonNear([], WORDS)),
    consensus_params: fc.oneof(
      { weight: 4, arbitrary: validConsensusParams },
      { weight: 2, arbitrary: consensusParams },
      jsonNear(FIELDS, WORDS),
    ),
    validators: fc.oneof({ weight: 4, arbitrary: fc.array(validator, { maxLength: 3 }) }, jsonNear(FIELDS, WORDS)),
    app_hash: fc.oneof(fc.constant(""), hexText(8), jsonNear([])),
    app_state: fc.oneof(fc.dictionary(fc.string({ maxLength: 6 }), jsonNear([])), jsonNear([])),
  },
  { requiredKeys: [] },
);

/** A validator CometBFT accepts: a key of the right length, a positive power, the address left out or right. */
const validValidator = fc
  .record({
    ed25519: fc.boolean(),
    seed: fc.uint8Array({ minLength: 33, maxLength: 33 }),
    power: fc.bigInt({ min: 1n, max: 2n ** 63n - 1n }),
    name: fc.string({ maxLength: 10 }),
    withAddress: fc.boolean(),
  })
  .map((v) => {
    const type = v.ed25519 ? "ed25519" : "secp256k1";
    const value = v.ed25519 ? v.seed.subarray(0, 32) : v.seed;
    const address = Buffer.from(validatorAddress({ type, value })).toString("hex").toUpperCase();
    return {
      address: v.withAddress ? address : "",
      pub_key: { type: v.ed25519 ? ED25519 : SECP256K1, value: Buffer.from(value).toString("base64") },
      power: String(v.power),
      name: v.name,
    };
  });

/** A document CometBFT accepts, then zero to two of its fields replaced by the wild values above. */
const nearValidGenesisObject = fc
  .tuple(
    fc.record({
      genesis_time: rfc3339,
      chain_id: fc.string({ minLength: 1, maxLength: MAX_CHAIN_ID_LENGTH }),
      initial_height: fc.bigInt({ min: 0n, max: 2n ** 63n - 1n }).map(String),
      consensus_params: validConsensusParams,
      validators: fc.array(validValidator, { maxLength: 2 }),
      app_hash: fc.constant(""),
      app_state: fc.dictionary(fc.string({ maxLength: 6 }), jsonNear([])),
    }),
    genesisObject,
    fc.subarray(
      ["genesis_time", "chain_id", "initial_height", "consensus_params", "validators", "app_hash", "app_state"],
      {
        maxLength: 2,
      },
    ),
  )
  .map(([valid, wild, replaced]) => {
    const doc: Record<string, unknown> = { ...valid };
    for (const key of replaced) doc[key] = (wild as Record<string, unknown>)[key];
    return doc;
  });

const validGenesisText = genesisToJson(
  newGenesis({ chainId: "chain-1", genesisTime: { seconds: 1_700_000_000n, nanos: 123_456_789 } }),
);

const genesisText = fc.oneof(
  { weight: 4, arbitrary: nearValidGenesisObject.map((value) => JSON.stringify(value)) },
  { weight: 2, arbitrary: genesisObject.map((value) => JSON.stringify(value as Json)) },
  { weight: 2, arbitrary: mutatedText(validGenesisText) },
  { weight: 1, arbitrary: jsonNear(FIELDS, WORDS).map((value) => JSON.stringify(value)) },
  { weight: 1, arbitrary: fc.string({ maxLength: 60 }) },
);

function checkAccepted(doc: GenesisDoc): void {
  assert.ok(doc.chainId !== "" && doc.chainId.length <= MAX_CHAIN_ID_LENGTH, doc.chainId);
  assert.ok(doc.initialHeight >= 1n && doc.initialHeight < 2n ** 63n, `${doc.initialHeight}`);
  assert.deepEqual(consensusParamsProblems(doc.consensusParams), []);
  assert.ok(doc.genesisTime.nanos >= 0 && doc.genesisTime.nanos < 1e9);
  for (const v of doc.validators) {
    assert.ok(v.power >= 1n && v.power < 2n ** 63n);
    assert.equal(v.pubKey.value.length, v.pubKey.type === "ed25519" ? 32 : 33);
    assert.deepEqual(v.address, validatorAddress(v.pubKey));
  }
}

describe("genesis.json", () => {
  test("parses into a document CometBFT would accept, or fails with one ConfigError", () => {
    fc.assert(
      fc.property(genesisText, (text) => {
        const doc = parseOrOwnError(() => parseGenesis(text, FILE), [ConfigError], text);
        if (doc !== undefined) checkAccepted(doc);
      }),
      fuzzParameters(300),
    );
  });

  test("an accepted document written out reads back the same", () => {
    fc.assert(
      fc.property(genesisText, (text) => {
        const doc = parseOrOwnError(() => parseGenesis(text, FILE), [ConfigError], text);
        if (doc === undefined) return;
        const written = genesisToJson(doc);
        assert.deepEqual(parseGenesis(written, FILE), doc, `written as ${written}`);
        assert.equal(genesisToJson(parseGenesis(written, FILE)), written);
      }),
      fuzzParameters(300),
    );
  });

  test("saving writes the one file, atomically, and loading reads it back", async () => {
    await fc.assert(
      fc.asyncProperty(
        nearValidGenesisObject.map((value) => JSON.stringify(value)),
        async (text) => {
          const doc = parseOrOwnError(() => parseGenesis(text, FILE), [ConfigError], text);
          fc.pre(doc !== undefined);
          await withSandbox(async (home) => {
            const file = join(home, "genesis.json");
            await saveGenesis(file, doc as GenesisDoc);
            assert.deepEqual(await listTree(home), ["genesis.json"]);
            assert.deepEqual(await loadGenesis(file), doc);
          });
        },
      ),
      { ...fuzzParameters(20), maxSkipsPerRun: 1000 },
    );
  });
});
