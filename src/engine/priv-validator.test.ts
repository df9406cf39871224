import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { seedOf } from "../../test/support/engine/fixtures.ts";
import { ConfigError } from "../config/errors.ts";
import { SIGN_STEP } from "../config/priv-validator-state.ts";
import { PrivValidator, PrivValidatorError } from "./priv-validator.ts";

const dirs: string[] = [];
after(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

async function keyFile(seed: Uint8Array, mutate: (doc: Record<string, unknown>) => void = () => {}) {
  const dir = await mkdtemp(join(tmpdir(), "chaind-pv-"));
  dirs.push(dir);
  const pv = PrivValidator.fromSeed(seed);
  const doc: Record<string, unknown> = {
    address: Buffer.from(pv.address).toString("hex").toUpperCase(),
    pub_key: { type: "tendermint/PubKeyEd25519", value: Buffer.from(pv.pubKey).toString("base64") },
    priv_key: { type: "tendermint/PrivKeyEd25519", value: Buffer.concat([seed, pv.pubKey]).toString("base64") },
  };
  mutate(doc);
  await writeFile(join(dir, "key.json"), JSON.stringify(doc));
  return { dir, key: join(dir, "key.json"), state: join(dir, "state.json") };
}

describe("priv validator", () => {
  it("loads the CometBFT key file, signs, and persists the guard state it reloads", async () => {
    const f = await keyFile(seedOf("pv"));
    const pv = await PrivValidator.load(f.key, f.state);
    assert.equal(pv.lastSigned.height, 0n);
    const sig = pv.sign(5n, 0, SIGN_STEP.precommit, Uint8Array.of(1, 2, 3));
    assert.equal(sig.length, 64);
    assert.deepEqual(
      pv.sign(5n, 0, SIGN_STEP.precommit, Uint8Array.of(1, 2, 3)),
      sig,
      "same step, same bytes → same signature",
    );
    await pv.saveState();
    const state = JSON.parse(await readFile(f.state, "utf8"));
    assert.deepEqual([state.height, state.round, state.step, state.signbytes], ["5", 0, 3, "010203"]);
    const again = await PrivValidator.load(f.key, f.state);
    assert.equal(again.lastSigned.height, 5n);
    assert.throws(
      () => again.sign(4n, 0, SIGN_STEP.precommit, Uint8Array.of(9)),
      (e: unknown) => {
        assert.ok(e instanceof PrivValidatorError);
        assert.match(e.message, /refusing to sign height 4 round 0 step 3: already signed height 5/);
        return true;
      },
    );
  });

  it("rejects malformed key and state files with src/config's errors (file, field, what was expected)", async () => {
    const isConfigError = (re: RegExp) => (e: unknown) => e instanceof ConfigError && re.test(e.message);
    const wrongType = await keyFile(seedOf("pv2"), (d) => {
      d.priv_key = { type: "tendermint/PrivKeySecp256k1", value: "AA==" };
    });
    await assert.rejects(
      PrivValidator.load(wrongType.key, wrongType.state),
      isConfigError(/key\.json: priv_key\.type: expected "tendermint\/PrivKeyEd25519"/),
    );
    const mismatch = await keyFile(seedOf("pv3"), (d) => {
      d.pub_key = { type: "tendermint/PubKeyEd25519", value: Buffer.alloc(32).toString("base64") };
    });
    await assert.rejects(
      PrivValidator.load(mismatch.key, mismatch.state),
      isConfigError(/key\.json: pub_key\.value: expected the public key of priv_key/),
    );
    await assert.rejects(
      PrivValidator.load(join(mismatch.dir, "missing.json"), mismatch.state),
      isConfigError(/missing\.json: file not found/),
    );
    const good = await keyFile(seedOf("pv4"));
    await writeFile(good.state, JSON.stringify({ height: "x", round: 0, step: 0 }));
    await assert.rejects(
      PrivValidator.load(good.key, good.state),
      isConfigError(/state\.json: height: expected a non-negative height/),
    );
    assert.throws(() => PrivValidator.fromSeed(new Uint8Array(5)), /32 or 64 bytes, got 5/);
  });
});
