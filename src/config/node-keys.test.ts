import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { ConfigError } from "./errors.ts";
import {
  ed25519KeyFromSeed,
  ed25519Sign,
  generateEd25519Key,
  loadNodeKey,
  loadOrCreateNodeKey,
  loadOrCreatePrivValidatorKey,
  loadPrivValidatorKey,
  nodeKeyToJson,
  parseNodeKey,
  parsePrivValidatorKey,
  privValidatorKeyToJson,
  saveNodeKey,
  savePrivValidatorKey,
} from "./node-keys.ts";
import {
  initialPrivValidatorState,
  loadOrCreatePrivValidatorState,
  loadPrivValidatorState,
  parsePrivValidatorState,
  privValidatorStateToJson,
  savePrivValidatorState,
} from "./priv-validator-state.ts";

// RFC 8032 section 7.1, test 1.
const SEED = Buffer.from("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60", "hex");
const PUB = Buffer.from("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a", "hex");
const SIG_OF_EMPTY = Buffer.from(
  "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b",
  "hex",
);
const ADDRESS = createHash("sha256").update(PUB).digest().subarray(0, 20);
const FILE = "/h/config/priv_validator_key.json";

/** A priv_validator_key.json as CometBFT writes it, built independently of the code under test. */
function cometFile(overrides: { address?: string; pub?: string; priv?: string; privType?: string } = {}): string {
  return JSON.stringify(
    {
      address: overrides.address ?? ADDRESS.toString("hex").toUpperCase(),
      pub_key: { type: "tendermint/PubKeyEd25519", value: overrides.pub ?? PUB.toString("base64") },
      priv_key: {
        type: overrides.privType ?? "tendermint/PrivKeyEd25519",
        value: overrides.priv ?? Buffer.concat([SEED, PUB]).toString("base64"),
      },
    },
    null,
    2,
  );
}

function errorOf(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof ConfigError, `expected a ConfigError, got ${String(error)}`);
    return error;
  }
  assert.fail("expected a ConfigError");
}

describe("ed25519 keys", () => {
  test("match the RFC 8032 vector", () => {
    const key = ed25519KeyFromSeed(SEED);
    assert.deepEqual(Buffer.from(key.publicKey), PUB);
    assert.deepEqual(Buffer.from(ed25519Sign(key, new Uint8Array(0))), SIG_OF_EMPTY);
  });

  test("the file is byte for byte what CometBFT writes", () => {
    assert.equal(privValidatorKeyToJson(ed25519KeyFromSeed(SEED)), cometFile());
    const node = parseNodeKey(nodeKeyToJson(ed25519KeyFromSeed(SEED)), "/h/config/node_key.json");
    assert.equal(node.id, ADDRESS.toString("hex"));
  });

  test("a CometBFT file loads with its address", () => {
    const key = parsePrivValidatorKey(cometFile(), FILE);
    assert.deepEqual(Buffer.from(key.address), ADDRESS);
    assert.deepEqual(Buffer.from(key.seed), SEED);
  });

  test("random keys round trip through both files", () => {
    for (let i = 0; i < 5; i++) {
      const key = generateEd25519Key();
      const loaded = parsePrivValidatorKey(privValidatorKeyToJson(key), FILE);
      assert.deepEqual(loaded.seed, key.seed);
      assert.deepEqual(loaded.publicKey, key.publicKey);
      assert.deepEqual(parseNodeKey(nodeKeyToJson(key), FILE).publicKey, key.publicKey);
    }
  });
});

describe("bad key files give errors naming the file and the field", () => {
  const other = generateEd25519Key();
  const cases: [name: string, text: string, message: string][] = [
    [
      "a second half that is not the seed's public key",
      cometFile({ priv: Buffer.concat([SEED, other.publicKey]).toString("base64") }),
      `${FILE}: priv_key.value: expected base64 of 64 bytes: the 32-byte seed followed by its 32-byte public key, got "${Buffer.concat([SEED, other.publicKey]).toString("base64")}" (the second half is not the public key of the first)`,
    ],
    [
      "a short private key",
      cometFile({ priv: SEED.toString("base64") }),
      `${FILE}: priv_key.value: expected base64 of 64 bytes: the 32-byte seed followed by its 32-byte public key, got "${SEED.toString("base64")}" (decodes to 32 bytes, not 64)`,
    ],
    [
      "a private key that is not base64",
      cometFile({ priv: "not base64!" }),
      `${FILE}: priv_key.value: expected base64 of 64 bytes: the 32-byte seed followed by its 32-byte public key, got "not base64!"`,
    ],
    [
      "another key type",
      cometFile({ privType: "tendermint/PrivKeySecp256k1" }),
      `${FILE}: priv_key.type: expected "tendermint/PrivKeyEd25519", got "tendermint/PrivKeySecp256k1" (only ed25519 keys are supported)`,
    ],
    [
      "a public key of another key",
      cometFile({ pub: Buffer.from(other.publicKey).toString("base64") }),
      `${FILE}: pub_key.value: expected the public key of priv_key, "${PUB.toString("base64")}", got "${Buffer.from(other.publicKey).toString("base64")}"`,
    ],
    [
      "a wrong address",
      cometFile({ address: "00".repeat(20) }),
      `${FILE}: address: expected the address of the key, "${ADDRESS.toString("hex").toUpperCase()}", got "${"00".repeat(20)}"`,
    ],
    ["not an object", "[]", `${FILE}: expected a JSON object with address, pub_key and priv_key, got []`],
  ];
  for (const [name, text, message] of cases) {
    test(name, () => {
      assert.equal(errorOf(() => parsePrivValidatorKey(text, FILE)).message, message);
    });
  }

  test("a missing field", () => {
    const text = JSON.stringify({ priv_key: { type: "tendermint/PrivKeyEd25519" } });
    assert.equal(
      errorOf(() => parseNodeKey(text, "/h/config/node_key.json")).message,
      "/h/config/node_key.json: priv_key.value: expected base64 of 64 bytes: the 32-byte seed followed by its 32-byte public key, but the key is missing",
    );
  });

  test("a JSON syntax error names the line", () => {
    const error = errorOf(() => parsePrivValidatorKey('{\n  "address": "AB",\n  "pub_key": {\n}', FILE));
    assert.equal(error.code, "CONFIG_SYNTAX");
    assert.equal(error.problems[0].line, 4);
    assert.match(error.message, /^\/h\/config\/priv_validator_key\.json: line 4, column \d+: invalid JSON: /);
    assert.equal(errorOf(() => parseNodeKey("", FILE)).message, `${FILE}: invalid JSON: the file is empty`);
  });
});

describe("key files on disk", () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "chaind-keys-"));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  test("save then load, owner-only, no temp files", async () => {
    const key = generateEd25519Key();
    const pv = join(dir, "priv_validator_key.json");
    const nk = join(dir, "node_key.json");
    await savePrivValidatorKey(pv, key);
    await saveNodeKey(nk, key);
    assert.deepEqual((await loadPrivValidatorKey(pv)).publicKey, key.publicKey);
    assert.deepEqual((await loadNodeKey(nk)).publicKey, key.publicKey);
    assert.equal((await stat(pv)).mode & 0o777, 0o600);
    assert.equal((await stat(nk)).mode & 0o777, 0o600);
    assert.deepEqual((await readdir(dir)).sort(), ["node_key.json", "priv_validator_key.json"]);
  });

  test("loadOrCreate never replaces an existing key; a recovery seed must match it", async () => {
    const sub = await mkdtemp(join(dir, "create-"));
    const nk = join(sub, "node_key.json");
    const first = await loadOrCreateNodeKey(nk);
    const second = await loadOrCreateNodeKey(nk);
    assert.equal(second.id, first.id);
    const pv = join(sub, "priv_validator_key.json");
    const recovered = await loadOrCreatePrivValidatorKey(pv, SEED);
    assert.deepEqual(Buffer.from(recovered.publicKey), PUB);
    await assert.rejects(loadOrCreatePrivValidatorKey(pv, new Uint8Array(32).fill(7)), {
      message: `${pv}: already holds a different validator key; move it away to recover one`,
    });
    assert.deepEqual(Buffer.from((await loadOrCreatePrivValidatorKey(pv)).publicKey), PUB);
  });

  test("a missing file says so", async () => {
    const missing = join(dir, "nope.json");
    await assert.rejects(loadNodeKey(missing), {
      code: "CONFIG_UNREADABLE",
      message: `${missing}: file not found; run "chaind init" to create it`,
    });
  });
});

describe("priv_validator_state.json", () => {
  const STATE_FILE = "/h/data/priv_validator_state.json";

  test("the initial state is CometBFT's", () => {
    assert.equal(
      privValidatorStateToJson(initialPrivValidatorState()),
      '{\n  "height": "0",\n  "round": 0,\n  "step": 0\n}',
    );
  });

  test("round trips with a signature", () => {
    const state = {
      height: 12345678901234n,
      round: 2,
      step: 3,
      signature: new Uint8Array(64).fill(9),
      signBytes: new Uint8Array([0xab, 0xcd]),
    };
    const text = privValidatorStateToJson(state);
    assert.match(text, /"signbytes": "ABCD"/);
    assert.deepEqual(parsePrivValidatorState(text, STATE_FILE), state);
  });

  test("bad values", () => {
    const cases: [text: string, message: string][] = [
      ['{"height":"-1","round":0,"step":0}', 'height: expected a non-negative height as a string, e.g. "0", got "-1"'],
      ['{"height":"x","round":0,"step":0}', 'height: expected a non-negative height as a string, e.g. "0", got "x"'],
      ['{"height":"1","round":"0","step":0}', 'round: expected a non-negative integer, got "0"'],
      ['{"height":"1","round":0,"step":4}', "step: expected 0, 1, 2 or 3 (none, propose, prevote, precommit), got 4"],
      ['{"height":"1","round":0,"step":1,"signature":"??"}', 'signature: expected a base64 signature, got "??"'],
    ];
    for (const [text, message] of cases) {
      assert.equal(errorOf(() => parsePrivValidatorState(text, STATE_FILE)).message, `${STATE_FILE}: ${message}`);
    }
  });

  test("on disk: created once, then loaded; saves are atomic", async () => {
    const dir = await mkdtemp(join(tmpdir(), "chaind-pvs-"));
    try {
      const file = join(dir, "priv_validator_state.json");
      assert.deepEqual(await loadOrCreatePrivValidatorState(file), initialPrivValidatorState());
      await savePrivValidatorState(file, { height: 5n, round: 0, step: 3 });
      assert.deepEqual(await loadOrCreatePrivValidatorState(file), { height: 5n, round: 0, step: 3 });
      assert.equal((await stat(file)).mode & 0o777, 0o600);
      assert.deepEqual(await readdir(dir), ["priv_validator_state.json"]);
      await writeFile(file, '{"height": 5');
      await assert.rejects(loadPrivValidatorState(file), { code: "CONFIG_SYNTAX" });
      assert.equal(await readFile(file, "utf8"), '{"height": 5', "a malformed guard is never reset");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
