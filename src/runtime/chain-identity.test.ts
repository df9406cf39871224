// A chain's identity: the reference chain's values by default, a chain's own where declared, bad values refused
// with one line naming the field, and useChain making the identity (prefixes, binary, home) the process's.
import assert from "node:assert/strict";
import { homedir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { ChainIdentityError, chainIdentity } from "../config/chain-identity.ts";
import { currentBinaryName, defaultHome } from "../config/home.ts";
import { addressFromBech32, addressToBech32, BECH32_PREFIXES, currentBech32Prefixes } from "../crypto/bech32.ts";
import { currentChainIdentity, STANDARD_CHAIN, useChain } from "./current-chain.ts";
import { defineChain } from "./release.ts";

after(() => useChain(STANDARD_CHAIN));

test("the reference chain's identity is chain/stake/chaind-dev with ~/.chaind", () => {
  const identity = chainIdentity({ name: "chaind" });
  assert.deepEqual(identity.bech32, BECH32_PREFIXES);
  assert.equal(identity.bech32.val, "chainvaloper");
  assert.equal(identity.bech32.cons, "chainvalcons");
  assert.equal(identity.denom, "stake");
  assert.equal(identity.devChainId, "chaind-dev");
  assert.equal(identity.binary, "chaind");
  assert.equal(identity.defaultHome, join(homedir(), ".chaind"));
});

test("a chain's own identity: derived operator and consensus prefixes unless given", () => {
  const tally = chainIdentity({ name: "tallyd", identity: { bech32Prefix: "tally", denom: "utally" } });
  assert.deepEqual(tally.bech32, {
    acc: "tally",
    val: "tallyvaloper",
    cons: "tallyvalcons",
    accPub: "tallypub",
    valPub: "tallyvaloperpub",
    consPub: "tallyvalconspub",
  });
  assert.equal(tally.defaultHome, join(homedir(), ".tallyd"));
  const custom = chainIdentity({
    name: "x",
    identity: {
      bech32Prefix: "x",
      bech32ValidatorPrefix: "xop",
      bech32ConsensusPrefix: "xcons",
      binary: "xd",
      defaultHome: "~/xhome",
    },
  });
  assert.equal(custom.bech32.val, "xop");
  assert.equal(custom.bech32.consPub, "xconspub");
  assert.equal(custom.binary, "xd");
  assert.equal(custom.defaultHome, join(homedir(), "xhome"));
});

test("an identity that cannot work is refused in one line naming the field", () => {
  const refused = (identity: object, pattern: RegExp) =>
    assert.throws(
      () => chainIdentity({ name: "bad", identity }),
      (error: unknown) =>
        error instanceof ChainIdentityError && pattern.test(error.message) && !error.message.includes("\n"),
    );
  refused({ bech32Prefix: "Tally" }, /invalid account bech32 prefix "Tally": expected lower-case letters/);
  refused({ bech32Prefix: "" }, /invalid account bech32 prefix ""/);
  refused({ bech32ValidatorPrefix: "op-1" }, /invalid validator operator bech32 prefix "op-1"/);
  refused({ denom: "u" }, /invalid denom "u": expected a letter then 2-127/);
  refused({ denom: "1tally" }, /invalid denom "1tally"/);
  refused({ devChainId: "tally dev" }, /invalid dev chain id "tally dev": expected 1-50 characters without spaces/);
  refused({ binary: "tally d" }, /invalid binary name "tally d"/);
  // A bad chain changes nothing of the process's identity.
  const before = currentChainIdentity();
  assert.throws(() =>
    useChain(defineChain({ name: "bad", identity: { denom: "x" }, releases: [{ name: "v1", version: "1" }] })),
  );
  assert.equal(currentChainIdentity(), before);
});

test("useChain makes the chain's identity the process's: addresses, binary name, home; explicit prefixes still win", () => {
  const bytes = new Uint8Array(20).fill(3);
  useChain(
    defineChain({
      name: "tallyd",
      identity: { bech32Prefix: "tally", denom: "utally", devChainId: "tally-dev" },
      releases: [{ name: "v1", version: "1.0.0" }],
    }),
  );
  assert.equal(currentChainIdentity().denom, "utally");
  assert.equal(currentBech32Prefixes().acc, "tally");
  assert.equal(currentBinaryName(), "tallyd");
  assert.equal(defaultHome(), join(homedir(), ".tallyd"));
  const tally = addressToBech32(bytes);
  assert.match(tally, /^tally1/);
  assert.match(addressToBech32(bytes, "val"), /^tallyvaloper1/);
  assert.deepEqual(addressFromBech32(tally), bytes);
  // Another chain's address is refused, naming the expected prefix; passed explicitly, it is read.
  const reference = addressToBech32(bytes, "acc", BECH32_PREFIXES);
  assert.match(reference, /^chain1/);
  assert.throws(() => addressFromBech32(reference), /prefix "chain", expected "tally"/);
  assert.deepEqual(addressFromBech32(reference, "acc", [20], BECH32_PREFIXES), bytes);

  useChain(STANDARD_CHAIN);
  assert.match(addressToBech32(bytes), /^chain1/);
  assert.equal(currentBinaryName(), "chaind");
});
