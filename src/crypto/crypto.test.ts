import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { DirectSecp256k1HdWallet } from "@cosmjs/proto-signing";
import { ed25519 as nobleEd25519 } from "@noble/curves/ed25519";
import { secp256k1 as nobleSecp256k1 } from "@noble/curves/secp256k1";
import { sha256 as nobleSha256 } from "@noble/hashes/sha2";
import fc from "fast-check";
import { ed25519Signer } from "./ed25519.ts";
import {
  accAddressFromPubKey,
  addressFromBech32,
  addressToBech32,
  assertValidMnemonic,
  BECH32_PREFIXES,
  Bech32Error,
  consAddressFromEd25519PubKey,
  convertAddress,
  DEFAULT_HD_PATH,
  decodeBech32,
  decodePubKeyValue,
  ed25519KeyPairFromSeed,
  encodeBech32,
  encodePubKeyValue,
  fromBase64,
  fromHex,
  generateEd25519KeyPair,
  generateMnemonic,
  hdPath,
  isLowS,
  KeyError,
  MnemonicError,
  moduleAddress,
  privateKeyFromMnemonic,
  pubKeyFromBech32,
  pubKeyToBech32,
  pubKeyToJson,
  randomSecp256k1PrivateKey,
  secp256k1PublicKey,
  signEd25519,
  signSecp256k1,
  toBase64,
  toHex,
  verifyEd25519,
  verifySecp256k1,
} from "./index.ts";
import { OwnSignatures } from "./own-signatures.ts";

// CosmJS's well-known test mnemonic ("faucet" in proto-signing's test utilities) and what it derives to.
const FAUCET_MNEMONIC =
  "economy stock theory fatal elder harbor betray wasp final emotion task crumble siren bottom lizard educate guess current outdoor pair theory focus wife stone";
const FAUCET_PUBKEY_BASE64 = "A08EGB7ro1ORuFhjOnZcSgwYlpe0DSFjVNUIkNNQxwKQ";
const FAUCET_ADDRESS_HEX = "0d82b1e7c96dbfa42462fe612932e6bff111d51b";

// CosmJS SIGN_MODE_DIRECT vector 0 (chain id simd-testing, account 1, sequence 0): sign bytes and signature.
const VECTOR_SIGN_BYTES =
  "0a93010a90010a1c2f636f736d6f732e62616e6b2e763162657461312e4d736753656e6412700a2d636f736d6f7331706b707472653766646b6c366766727a6c65736a6a766878686c63337234676d6d6b38727336122d636f736d6f7331717970717870713971637273737a673270767871367273307a716733797963356c7a763778751a100a0575636f736d12073132333435363712650a4e0a460a1f2f636f736d6f732e63727970746f2e736563703235366b312e5075624b657912230a21034f04181eeba35391b858633a765c4a0c189697b40d216354d50890d350c7029012040a02080112130a0d0a0575636f736d12043230303010c09a0c1a0c73696d642d74657374696e672001";
const VECTOR_SIGNATURE =
  "c9dd20e07464d3a688ff4b710b1fbc027e495e797cfa0b4804da2ed117959227772de059808f765aa29b8f92edf30f4c2c5a438e30d3fe6897daa7141e3ce6f9";

const CURVE_ORDER = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

function expectCode(code: string, pattern?: RegExp): (error: unknown) => boolean {
  return (error) => {
    assert.ok(error instanceof Error, "expected an Error");
    assert.equal((error as { code?: string }).code, code, `code of: ${error.message}`);
    if (pattern !== undefined) assert.match(error.message, pattern);
    return true;
  };
}

describe("mnemonic and HD derivation", () => {
  it("derives CosmJS's key and address from the test mnemonic on m/44'/118'/0'/0/0", async () => {
    const privateKey = privateKeyFromMnemonic(FAUCET_MNEMONIC);
    const publicKey = secp256k1PublicKey(privateKey);
    assert.equal(toBase64(publicKey), FAUCET_PUBKEY_BASE64);
    const address = accAddressFromPubKey(publicKey);
    assert.equal(toHex(address), FAUCET_ADDRESS_HEX);

    const wallet = await DirectSecp256k1HdWallet.fromMnemonic(FAUCET_MNEMONIC, { prefix: "chain" });
    const [account] = await wallet.getAccounts();
    assert.equal(addressToBech32(address), account.address);
    assert.equal(toBase64(publicKey), toBase64(account.pubkey));
  });

  it("follows account and index into the path like CosmJS does", async () => {
    const { makeCosmoshubPath } = await import("@cosmjs/proto-signing");
    const wallet = await DirectSecp256k1HdWallet.fromMnemonic(FAUCET_MNEMONIC, {
      prefix: "chain",
      hdPaths: [makeCosmoshubPath(3)],
    });
    const [account] = await wallet.getAccounts();
    const ours = secp256k1PublicKey(privateKeyFromMnemonic(FAUCET_MNEMONIC, { index: 3 }));
    assert.equal(addressToBech32(accAddressFromPubKey(ours)), account.address);
    assert.equal(hdPath({ account: 2, index: 5 }), "m/44'/118'/2'/0/5");
    assert.equal(hdPath(), DEFAULT_HD_PATH);
    const viaPath = privateKeyFromMnemonic(FAUCET_MNEMONIC, { hdPath: "m/44'/118'/2'/0/5" });
    assert.deepEqual(viaPath, privateKeyFromMnemonic(FAUCET_MNEMONIC, { account: 2, index: 5 }));
    assert.notDeepEqual(viaPath, privateKeyFromMnemonic(FAUCET_MNEMONIC));
  });

  it("a BIP39 passphrase gives another key", () => {
    assert.notDeepEqual(
      privateKeyFromMnemonic(FAUCET_MNEMONIC, { bip39Passphrase: "x" }),
      privateKeyFromMnemonic(FAUCET_MNEMONIC),
    );
  });

  it("generates 24-word mnemonics that validate", () => {
    const words = generateMnemonic().split(" ");
    assert.equal(words.length, 24);
    assert.equal(assertValidMnemonic(` ${words.join("  ")}\n`), words.join(" "));
  });

  it("says what is wrong with a bad mnemonic", () => {
    assert.throws(
      () => assertValidMnemonic("economy stock theory"),
      expectCode("mnemonic-invalid", /3 words, expected 12/),
    );
    const unknownWord = FAUCET_MNEMONIC.replace("wasp", "waspx");
    assert.throws(
      () => assertValidMnemonic(unknownWord),
      (error: unknown) => {
        assert.ok(error instanceof MnemonicError);
        assert.match(error.message, /word 8 "waspx" is not in the BIP39 English word list/);
        return true;
      },
    );
    const swapped = FAUCET_MNEMONIC.replace("economy stock", "stock economy");
    assert.throws(() => assertValidMnemonic(swapped), expectCode("mnemonic-invalid", /checksum/));
    assert.throws(() => privateKeyFromMnemonic(""), expectCode("mnemonic-invalid", /0 words/));
  });

  it("rejects bad HD paths", () => {
    assert.throws(() => hdPath({ account: -1 }), expectCode("hd-path-invalid", /account -1/));
    assert.throws(() => hdPath({ index: 2 ** 31 }), expectCode("hd-path-invalid", /index/));
    assert.throws(
      () => privateKeyFromMnemonic(FAUCET_MNEMONIC, { hdPath: "44/118" }),
      expectCode("hd-path-invalid", /expected the form/),
    );
  });
});

describe("secp256k1 signatures", () => {
  const privateKey = privateKeyFromMnemonic(FAUCET_MNEMONIC);
  const publicKey = secp256k1PublicKey(privateKey);
  const signBytes = fromHex(VECTOR_SIGN_BYTES);

  it("signs CosmJS's golden SignDoc byte for byte and verifies it natively", () => {
    const signature = signSecp256k1(privateKey, signBytes);
    assert.equal(toHex(signature), VECTOR_SIGNATURE);
    assert.ok(verifySecp256k1(publicKey, signBytes, signature));
  });

  it("rejects a high-S twin of a valid signature, which OpenSSL alone would accept", () => {
    const signature = signSecp256k1(privateKey, signBytes);
    const s = BigInt(`0x${toHex(signature.subarray(32))}`);
    const highS = fromHex((CURVE_ORDER - s).toString(16).padStart(64, "0"));
    const twin = new Uint8Array(64);
    twin.set(signature.subarray(0, 32));
    twin.set(highS, 32);
    assert.equal(isLowS(twin), false);
    assert.equal(nobleSecp256k1.verify(twin, fromHex(sha256Hex(signBytes)), publicKey, { lowS: false }), true);
    assert.equal(verifySecp256k1(publicKey, signBytes, twin), false);
  });

  it("returns false for a wrong message, key, length or a malformed key", () => {
    const signature = signSecp256k1(privateKey, signBytes);
    const other = secp256k1PublicKey(randomSecp256k1PrivateKey());
    assert.equal(verifySecp256k1(publicKey, Uint8Array.of(1, 2, 3), signature), false);
    assert.equal(verifySecp256k1(other, signBytes, signature), false);
    assert.equal(verifySecp256k1(publicKey, signBytes, signature.subarray(0, 63)), false);
    assert.equal(verifySecp256k1(publicKey.subarray(1), signBytes, signature), false);
    const notOnCurve = new Uint8Array(33).fill(0xff);
    notOnCurve[0] = 0x02;
    assert.equal(verifySecp256k1(notOnCurve, signBytes, signature), false);
    assert.equal(verifySecp256k1(publicKey, signBytes, new Uint8Array(64)), false);
  });

  it("agrees with noble on random keys and messages (property)", () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), fc.uint8Array({ maxLength: 200 }), (seed, msg) => {
        fc.pre(nobleSecp256k1.utils.isValidPrivateKey(seed));
        const pub = secp256k1PublicKey(seed);
        const sig = signSecp256k1(seed, msg);
        assert.ok(isLowS(sig));
        assert.ok(verifySecp256k1(pub, msg, sig));
        assert.ok(nobleSecp256k1.verify(sig, fromHex(sha256Hex(msg)), pub));
      }),
      { numRuns: 40 },
    );
  });

  it("rejects invalid private keys with a clear error", () => {
    assert.throws(() => signSecp256k1(new Uint8Array(31), signBytes), expectCode("private-key-invalid", /32 bytes/));
    assert.throws(() => secp256k1PublicKey(new Uint8Array(32)), expectCode("private-key-invalid"));
  });
});

describe("ed25519", () => {
  it("signs like noble and verifies natively", () => {
    const pair = generateEd25519KeyPair();
    assert.deepEqual(pair.publicKey, nobleEd25519.getPublicKey(pair.seed));
    const message = new TextEncoder().encode("vote");
    const signature = signEd25519(pair.privateKey, message);
    assert.deepEqual(signature, nobleEd25519.sign(message, pair.seed));
    assert.ok(verifyEd25519(pair.publicKey, message, signature));
    assert.ok(verifyEd25519(pair.publicKey, message, signEd25519(pair.seed, message)));
    assert.equal(verifyEd25519(pair.publicKey, Uint8Array.of(0), signature), false);
    assert.equal(verifyEd25519(pair.publicKey.subarray(1), message, signature), false);
    assert.deepEqual(ed25519KeyPairFromSeed(pair.privateKey), pair);
    assert.throws(() => signEd25519(new Uint8Array(10), message), expectCode("private-key-invalid", /32-byte seed/));
  });

  it("knows its own signers' signatures by their exact bytes, and verifies anything one byte apart", async () => {
    const pair = generateEd25519KeyPair();
    const other = generateEd25519KeyPair();
    const signer = ed25519Signer(pair.seed);
    const message = new TextEncoder().encode("vote extension");
    for (const signature of [signer.sign(message), await signer.signInBackground(message)]) {
      assert.deepEqual(signature, signEd25519(pair.seed, message));
      assert.ok(verifyEd25519(pair.publicKey, message, signature));
      const altered = new Uint8Array(signature);
      altered[10] ^= 1;
      assert.equal(verifyEd25519(pair.publicKey, message, altered), false, "an altered signature");
      assert.equal(verifyEd25519(pair.publicKey, Uint8Array.of(...message, 0), signature), false, "another message");
      assert.equal(verifyEd25519(other.publicKey, message, signature), false, "another key");
      // The other key's own signature of the message is not taken for this key's.
      assert.equal(verifyEd25519(pair.publicKey, message, ed25519Signer(other.seed).sign(message)), false);
    }
  });

  it("keeps a bounded memo of own signatures, matched on all three byte strings", () => {
    const memo = new OwnSignatures(2);
    const [key, message, signature] = [Uint8Array.of(1), Uint8Array.of(2), Uint8Array.of(3)];
    memo.add(key, message, signature);
    assert.ok(memo.has(key, message, signature));
    assert.equal(memo.has(Uint8Array.of(9), message, signature), false);
    assert.equal(memo.has(key, Uint8Array.of(9), signature), false);
    assert.equal(memo.has(key, message, Uint8Array.of(9)), false);
    assert.equal(memo.has(key, message, Uint8Array.of(3, 0)), false);
    message[0] = 7; // the memo copied the bytes it was given
    assert.ok(memo.has(key, Uint8Array.of(2), signature));
    memo.add(key, Uint8Array.of(4), signature);
    memo.add(key, Uint8Array.of(5), signature);
    assert.equal(memo.has(key, Uint8Array.of(2), signature), false, "the oldest is dropped");
    assert.ok(memo.has(key, Uint8Array.of(5), signature));
  });

  it("derives the consensus address as the first 20 bytes of sha256(pubkey)", () => {
    const pubKey = new Uint8Array(32).fill(1);
    assert.equal(toHex(consAddressFromEd25519PubKey(pubKey)), sha256Hex(pubKey).slice(0, 40));
    assert.throws(
      () => consAddressFromEd25519PubKey(new Uint8Array(33)),
      expectCode("public-key-invalid", /expected 32/),
    );
  });
});

describe("bech32 addresses", () => {
  const address = fromHex(FAUCET_ADDRESS_HEX);

  it("encodes the module accounts of the reference table", () => {
    assert.equal(addressToBech32(moduleAddress("gov")), "chain10d07y265gmmuvt4z0w9aw880jnsr700j0q8wax");
    assert.equal(addressToBech32(moduleAddress("fee_collector")), "chain17xpfvakm2amg962yls6f84z3kell8c5l9mhtqg");
    assert.equal(addressToBech32(moduleAddress("upgrade")), "chain10lheg7wgh3drep5frjuzj6wt7tluw0rnmktmjt");
  });

  it("round-trips every prefix and converts between kinds", () => {
    for (const kind of ["acc", "val", "cons"] as const) {
      const text = addressToBech32(address, kind);
      assert.ok(text.startsWith(`${BECH32_PREFIXES[kind]}1`));
      assert.deepEqual(addressFromBech32(text, kind), address);
      assert.deepEqual(addressFromBech32(text.toUpperCase(), kind), address);
    }
    const val = convertAddress(addressToBech32(address), "acc", "val");
    assert.ok(val.startsWith("chainvaloper1"));
  });

  it("names the expected prefix when given another", () => {
    const cosmos = encodeBech32("cosmos", address);
    assert.equal(cosmos, "cosmos1pkptre7fdkl6gfrzlesjjvhxhlc3r4gmmk8rs6");
    assert.throws(() => addressFromBech32(cosmos), expectCode("bech32-prefix", /prefix "cosmos", expected "chain"/));
    const val = addressToBech32(address, "val");
    assert.throws(
      () => addressFromBech32(val, "acc"),
      expectCode("bech32-prefix", /prefix "chainvaloper", expected "chain"/),
    );
  });

  it("reports a bad checksum", () => {
    const text = addressToBech32(address);
    const last = text.at(-1) === "q" ? "p" : "q";
    assert.throws(
      () => addressFromBech32(text.slice(0, -1) + last),
      (error: unknown) => {
        assert.ok(error instanceof Bech32Error);
        assert.equal(error.code, "bech32-checksum");
        assert.match(error.message, /bad checksum/);
        return true;
      },
    );
  });

  it("names the expected length", () => {
    const long = encodeBech32("chain", new Uint8Array(32));
    assert.throws(() => addressFromBech32(long), expectCode("bech32-length", /decodes to 32 bytes, expected 20/));
    assert.deepEqual(addressFromBech32(long, "acc", [20, 32]), new Uint8Array(32));
    assert.throws(() => addressToBech32(new Uint8Array(5)), expectCode("bech32-length", /expected 20 or 32/));
  });

  it("reports malformed input", () => {
    for (const bad of ["", "chain", "chain1", "Chain1pkptre7fdkl6gfrzlesjjvhxhlc3r4gmm", "chain1b!!"]) {
      assert.throws(() => decodeBech32(bad), expectCode("bech32-malformed"), bad);
    }
  });

  it("round-trips arbitrary data (property)", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 100 }), (data) => {
        assert.deepEqual(decodeBech32(encodeBech32("chainpub", data)), { prefix: "chainpub", data });
      }),
      { numRuns: 100 },
    );
  });
});

describe("public key forms", () => {
  const publicKey = fromBase64(FAUCET_PUBKEY_BASE64);

  it("prints the keys-show JSON and the protobuf value", () => {
    assert.equal(
      pubKeyToJson({ algorithm: "secp256k1", key: publicKey }),
      `{"@type":"/chain.crypto.secp256k1.PubKey","key":"${FAUCET_PUBKEY_BASE64}"}`,
    );
    const value = encodePubKeyValue(publicKey);
    assert.equal(toHex(value.subarray(0, 2)), "0a21");
    assert.deepEqual(decodePubKeyValue(value, "secp256k1"), publicKey);
    assert.throws(() => decodePubKeyValue(value, "ed25519"), expectCode("public-key-invalid", /32 key bytes/));
    assert.throws(() => decodePubKeyValue(new Uint8Array(0), "secp256k1"), expectCode("public-key-invalid", /empty/));
  });

  it("round-trips legacy bech32 public keys", () => {
    const text = pubKeyToBech32({ algorithm: "secp256k1", key: publicKey });
    // The same key under the cosmos prefix is what upstream prints: cosmospub1addwnpepq…
    assert.ok(
      pubKeyToBech32({ algorithm: "secp256k1", key: publicKey }, "cosmospub").startsWith("cosmospub1addwnpepq"),
    );
    assert.deepEqual(pubKeyFromBech32(text), { algorithm: "secp256k1", key: publicKey });
    const ed = pubKeyToBech32({ algorithm: "ed25519", key: new Uint8Array(32).fill(9) }, BECH32_PREFIXES.consPub);
    assert.equal(pubKeyFromBech32(ed, BECH32_PREFIXES.consPub).algorithm, "ed25519");
    assert.throws(
      () => pubKeyFromBech32(encodeBech32("chainpub", publicKey)),
      (error: unknown) => {
        assert.ok(error instanceof KeyError);
        assert.match(error.message, /amino-prefixed/);
        return true;
      },
    );
  });
});

// An independent SHA-256 (noble's) so the tests do not check our hash with itself.
function sha256Hex(data: Uint8Array): string {
  return toHex(nobleSha256(data));
}
