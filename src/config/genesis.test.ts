import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdtemp, readdir, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { MAX_VERSION } from "../store/version-limit.ts";
import { defaultConsensusParams } from "./consensus-params.ts";
import { ConfigError } from "./errors.ts";
import {
  type GenesisDoc,
  genesisToJson,
  loadGenesis,
  newGenesis,
  parseGenesis,
  saveGenesis,
  validateGenesis,
  validatorAddress,
} from "./genesis.ts";
import type { JsonObject } from "./json-reader.ts";
import { parseRfc3339 } from "./rfc3339.ts";

const FILE = "/h/config/genesis.json";
// RFC 8032 test 1 public key, and the secp256k1 generator point (private key 1), whose RIPEMD160(SHA256)
// is the well-known 751e76e8199196d454941c45d1b3a323f1433bd6.
const ED_PUB = Buffer.from("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a", "hex");
const ED_ADDRESS = createHash("sha256").update(ED_PUB).digest().subarray(0, 20);
const SECP_PUB = Buffer.from("0279BE667EF9DCBBAC55A06295CE870B07029BFCDB2DCE28D959F2815B16F81798", "hex");
const SECP_ADDRESS = Buffer.from("751e76e8199196d454941c45d1b3a323f1433bd6", "hex");
const bytes = (buffer: Buffer): Uint8Array => new Uint8Array(buffer);

/** A genesis as `cometbft init` writes it (then given an app_state), built without the code under test. */
function cometGenesis(): JsonObject {
  return {
    genesis_time: "2025-03-04T05:06:07.123456789Z",
    chain_id: "test-chain-Ab12Cd",
    initial_height: "0",
    consensus_params: {
      block: { max_bytes: "22020096", max_gas: "-1" },
      evidence: { max_age_num_blocks: "100000", max_age_duration: "172800000000000", max_bytes: "1048576" },
      validator: { pub_key_types: ["ed25519"] },
      version: { app: "0" },
      abci: { vote_extensions_enable_height: "0" },
    },
    validators: [
      {
        address: ED_ADDRESS.toString("hex").toUpperCase(),
        pub_key: { type: "tendermint/PubKeyEd25519", value: ED_PUB.toString("base64") },
        power: "10",
        name: "",
      },
    ],
    app_hash: "",
  };
}

/** Sets a dotted path (with [i] steps) in a copy of the document; undefined deletes it. */
function edit(path: string, value: unknown): string {
  const doc = cometGenesis() as Record<string, unknown>;
  const steps = path.split(/\.|\[(\d+)\]/).filter((s) => s !== undefined && s !== "");
  let node = doc as Record<string, unknown>;
  for (const step of steps.slice(0, -1)) node = node[step] as Record<string, unknown>;
  const last = steps[steps.length - 1];
  if (value === undefined) delete node[last];
  else node[last] = value;
  return JSON.stringify(doc, null, 2);
}

function errorOf(text: string): ConfigError {
  try {
    parseGenesis(text, FILE);
  } catch (error) {
    assert.ok(error instanceof ConfigError, `expected a ConfigError, got ${String(error)}`);
    return error;
  }
  assert.fail("expected the genesis to be refused");
}

describe("genesis.json", () => {
  test("reads what cometbft init writes", () => {
    const doc = parseGenesis(JSON.stringify(cometGenesis()), FILE);
    assert.equal(doc.chainId, "test-chain-Ab12Cd");
    assert.deepEqual(doc.genesisTime, parseRfc3339("2025-03-04T05:06:07.123456789Z"));
    assert.equal(doc.initialHeight, 1n, '"0" means the chain starts at 1');
    assert.deepEqual(doc.consensusParams, defaultConsensusParams());
    assert.equal(doc.validators.length, 1);
    assert.deepEqual(Buffer.from(doc.validators[0].address), ED_ADDRESS);
    assert.equal(doc.validators[0].power, 10n);
    assert.equal(doc.appHash.length, 0);
    assert.equal(doc.appState, undefined);
  });

  test("derives validator addresses as CometBFT does", () => {
    assert.deepEqual(Buffer.from(validatorAddress({ type: "ed25519", value: ED_PUB })), ED_ADDRESS);
    assert.deepEqual(Buffer.from(validatorAddress({ type: "secp256k1", value: SECP_PUB })), SECP_ADDRESS);
  });

  test("round trips, keeping nanoseconds, validators and app_state", () => {
    const doc: GenesisDoc = {
      ...newGenesis({
        chainId: "chain-1",
        genesisTime: { seconds: 1767225605n, nanos: 1 },
        initialHeight: 100n,
        appState: { bank: { balances: [{ address: "chain1xyz", coins: [{ denom: "stake", amount: "5" }] }] } },
      }),
      validators: [
        { address: bytes(ED_ADDRESS), pubKey: { type: "ed25519", value: bytes(ED_PUB) }, power: 10n, name: "v0" },
        { address: bytes(SECP_ADDRESS), pubKey: { type: "secp256k1", value: bytes(SECP_PUB) }, power: 5n, name: "" },
      ],
      appHash: new Uint8Array([0xde, 0xad]),
    };
    doc.consensusParams.validator.pubKeyTypes = ["ed25519", "secp256k1"];
    const text = genesisToJson(doc);
    assert.match(text, /"genesis_time": "2026-01-01T00:00:05.000000001Z"/);
    assert.match(text, /"app_hash": "DEAD"/);
    assert.deepEqual(parseGenesis(text, FILE), doc);
  });

  test("writes the CometBFT shape: defaults, int64 as strings, empty validators", () => {
    const json = JSON.parse(genesisToJson(newGenesis({ chainId: "c", genesisTime: { seconds: 0n, nanos: 0 } })));
    assert.deepEqual(json, {
      genesis_time: "1970-01-01T00:00:00Z",
      chain_id: "c",
      initial_height: "1",
      consensus_params: {
        block: { max_bytes: "22020096", max_gas: "-1" },
        evidence: { max_age_num_blocks: "100000", max_age_duration: "172800000000000", max_bytes: "1048576" },
        validator: { pub_key_types: ["ed25519"] },
        version: { app: "0" },
        abci: { vote_extensions_enable_height: "0" },
      },
      validators: [],
      app_hash: "",
      app_state: {},
    });
  });

  test("accepts what CometBFT accepts: no consensus_params, numbers as JSON numbers, no version/abci", () => {
    assert.deepEqual(parseGenesis(edit("consensus_params", undefined), FILE).consensusParams, defaultConsensusParams());
    const doc = parseGenesis(
      JSON.stringify({
        ...cometGenesis(),
        initial_height: 5,
        consensus_params: {
          block: { max_bytes: -1, max_gas: 1000 },
          evidence: { max_age_num_blocks: 1, max_age_duration: "1", max_bytes: 0 },
          validator: { pub_key_types: ["secp256k1"] },
        },
        validators: [],
      }),
      FILE,
    );
    assert.equal(doc.initialHeight, 5n);
    assert.equal(doc.consensusParams.block.maxBytes, -1n);
    assert.equal(doc.consensusParams.version.app, 0n);
    assert.equal(doc.consensusParams.abci.voteExtensionsEnableHeight, 0n);
  });

  test("accepts initial_height up to 2^53 − 1, the last height the state store can number", () => {
    const doc = parseGenesis(edit("initial_height", "9007199254740991"), FILE);
    assert.equal(doc.initialHeight, MAX_VERSION);
    assert.equal(MAX_VERSION, 2n ** 53n - 1n);
  });
});

describe("genesis errors name the file and the field", () => {
  const HEIGHT_EXPECTED =
    'expected a height from 1 to 9007199254740991 (2^53 − 1, the highest this node can run; "0" means 1) as a string, e.g. "1"';
  const cases: [path: string, value: unknown, message: string][] = [
    ["chain_id", "", 'chain_id: expected a non-empty chain ID of at most 50 characters, got ""'],
    [
      "chain_id",
      "c".repeat(51),
      `chain_id: expected a non-empty chain ID of at most 50 characters, got "${"c".repeat(51)}"`,
    ],
    ["chain_id", undefined, "chain_id: expected a non-empty chain ID of at most 50 characters, but the key is missing"],
    ["chain_id", 7, "chain_id: expected a non-empty chain ID of at most 50 characters, got 7"],
    [
      "genesis_time",
      "yesterday",
      'genesis_time: expected an RFC 3339 time such as "2025-01-31T12:00:00.123456789Z", got "yesterday"',
    ],
    ["initial_height", "-1", `initial_height: ${HEIGHT_EXPECTED}, got "-1"`],
    ["initial_height", 2 ** 60, `initial_height: ${HEIGHT_EXPECTED}, got ${2 ** 60} (write large numbers as strings)`],
    // Above the last height the state store can number (N13: 2^63 − 1 reached the store and printed a stack).
    ["initial_height", "9007199254740992", `initial_height: ${HEIGHT_EXPECTED}, got "9007199254740992"`],
    ["initial_height", "9223372036854775807", `initial_height: ${HEIGHT_EXPECTED}, got "9223372036854775807"`],
    [
      "consensus_params.block.max_bytes",
      "0",
      'consensus_params.block.max_bytes: expected -1 (no limit) or an integer from 1 to 104857600, got "0"',
    ],
    [
      "consensus_params.block.max_bytes",
      "104857601",
      'consensus_params.block.max_bytes: expected -1 (no limit) or an integer from 1 to 104857600, got "104857601"',
    ],
    [
      "consensus_params.block.max_bytes",
      "lots",
      'consensus_params.block.max_bytes: expected an integer written as a string, got "lots"',
    ],
    [
      "consensus_params.block.max_gas",
      "-2",
      'consensus_params.block.max_gas: expected -1 (no limit) or a non-negative integer, got "-2"',
    ],
    [
      "consensus_params.evidence.max_age_num_blocks",
      "0",
      'consensus_params.evidence.max_age_num_blocks: expected a positive integer, got "0"',
    ],
    [
      "consensus_params.evidence.max_age_duration",
      "0",
      'consensus_params.evidence.max_age_duration: expected a positive duration in nanoseconds, e.g. "172800000000000" (48 hours), got "0"',
    ],
    [
      "consensus_params.evidence.max_bytes",
      "30000000",
      'consensus_params.evidence.max_bytes: expected an integer from 0 to the block size limit (22020096), got "30000000"',
    ],
    [
      "consensus_params.validator.pub_key_types",
      [],
      'consensus_params.validator.pub_key_types: expected a non-empty list of "ed25519" and/or "secp256k1", got []',
    ],
    [
      "consensus_params.validator.pub_key_types",
      ["rsa"],
      'consensus_params.validator.pub_key_types: expected a non-empty list of "ed25519" and/or "secp256k1", got ["rsa"]',
    ],
    [
      "consensus_params.abci.vote_extensions_enable_height",
      "-1",
      'consensus_params.abci.vote_extensions_enable_height: expected a non-negative height (0 = off), got "-1"',
    ],
    [
      "consensus_params",
      "default",
      'consensus_params: expected an object with block, evidence and validator, got "default"',
    ],
    [
      "validators[0].power",
      "0",
      'validators[0].power: expected a positive voting power as a string, e.g. "10", got "0"',
    ],
    [
      "validators[0].address",
      "00".repeat(20),
      `validators[0].address: expected the address of pub_key, "${ED_ADDRESS.toString("hex").toUpperCase()}", got "${"00".repeat(20)}"`,
    ],
    [
      "validators[0].pub_key.type",
      "tendermint/PubKeyBls",
      'validators[0].pub_key.type: expected "tendermint/PubKeyEd25519" or "tendermint/PubKeySecp256k1", got "tendermint/PubKeyBls"',
    ],
    [
      "validators[0].pub_key.value",
      SECP_PUB.toString("base64"),
      `validators[0].pub_key.value: expected base64 of the 32-byte public key, got "${SECP_PUB.toString("base64")}" (decodes to 33 bytes, not 32)`,
    ],
    ["validators", {}, "validators: expected a list of validators, got an object"],
    ["app_hash", "xyz", 'app_hash: expected the app hash in hex, usually empty, got "xyz"'],
    ["app_state", [], "app_state: expected a JSON object (the application's genesis state), got []"],
  ];
  for (const [path, value, message] of cases) {
    test(`${path} = ${JSON.stringify(value)}`, () => {
      const error = errorOf(edit(path, value));
      assert.equal(error.message, `${FILE}: ${message}`);
      assert.equal(error.problems.length, 1);
    });
  }

  test("a missing block section reports each missing field", () => {
    const error = errorOf(edit("consensus_params.block", undefined));
    assert.deepEqual(
      error.problems.map((p) => p.key),
      ["consensus_params.block.max_bytes", "consensus_params.block.max_gas"],
    );
    assert.match(error.message, /block\.max_bytes: expected an integer written as a string, but the key is missing/);
  });

  test("not an object, and not JSON", () => {
    assert.equal(errorOf("[]").message, `${FILE}: expected a JSON object (the genesis document), got []`);
    const syntax = errorOf('{\n  "chain_id": "x",\n}');
    assert.equal(syntax.code, "CONFIG_SYNTAX");
    assert.equal(syntax.problems[0].line, 3);
  });

  test("validateGenesis checks a document in memory", () => {
    const doc = newGenesis({ chainId: "" });
    assert.throws(() => validateGenesis(doc, FILE), {
      message: `${FILE}: chain_id: expected a non-empty chain ID of at most 50 characters, got ""`,
    });
  });
});

describe("genesis on disk", () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "chaind-genesis-"));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  test("save then load; an invalid document is refused and the file is untouched", async () => {
    const file = join(dir, "genesis.json");
    const doc = newGenesis({ chainId: "chain-9", appState: { x: 1 } });
    await saveGenesis(file, doc);
    assert.deepEqual((await loadGenesis(file)).appState, { x: 1 });
    assert.equal((await stat(file)).mode & 0o777, 0o644);
    const before = await readFile(file, "utf8");
    await assert.rejects(saveGenesis(file, { ...doc, chainId: "" }), ConfigError);
    assert.equal(await readFile(file, "utf8"), before);
    assert.deepEqual(await readdir(dir), ["genesis.json"]);
    await assert.rejects(loadGenesis(join(dir, "missing.json")), { code: "CONFIG_UNREADABLE" });
  });
});
