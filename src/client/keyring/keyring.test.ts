import assert from "node:assert/strict";
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { after, before, describe, it } from "node:test";
import { toHex } from "../../bytes/hex.ts";
import { addressToBech32 } from "../../crypto/bech32.ts";
import { privateKeyFromMnemonic, verifySecp256k1 } from "../../crypto/secp256k1.ts";
import {
  armorPrivateKey,
  createLineReader,
  envOrStdinPassphrase,
  formatKeysText,
  formatKeyText,
  type KeyringError,
  keyOutput,
  openKeyring,
  type PassphrasePurpose,
  parseKeyringBackend,
  unarmorPrivateKey,
} from "./index.ts";

const FAUCET_MNEMONIC =
  "economy stock theory fatal elder harbor betray wasp final emotion task crumble siren bottom lizard educate guess current outdoor pair theory focus wife stone";
const FAUCET_ADDRESS = "chain1pkptre7fdkl6gfrzlesjjvhxhlc3r4gmw5ngm0";
// Cheap scrypt so the file-backend tests stay quick; the default cost is exercised by the armor test.
const FAST_SCRYPT = { n: 1024, r: 8, p: 1 };

let home: string;
before(async () => {
  home = await mkdtemp(join(tmpdir(), "chaind-keyring-"));
});
after(async () => {
  await rm(home, { recursive: true, force: true });
});

function code(expected: string, pattern?: RegExp): (error: unknown) => boolean {
  return (error) => {
    assert.ok(error instanceof Error);
    assert.equal((error as KeyringError).code, expected, error.message);
    if (pattern !== undefined) assert.match(error.message, pattern);
    return true;
  };
}

function fixedPassphrase(value: string, calls: PassphrasePurpose[] = []) {
  return async (purpose: PassphrasePurpose) => {
    calls.push(purpose);
    return value;
  };
}

describe("test backend", () => {
  it("adds, shows, lists, signs and deletes, with 0600 files and a 0700 directory", async () => {
    const dir = join(home, "t1");
    const keyring = openKeyring({ home: dir, backend: "test" });
    const { key, mnemonic } = await keyring.add("bob");
    assert.equal(mnemonic.split(" ").length, 24);
    assert.equal(key.hdPath, "m/44'/118'/0'/0/0");
    const alice = await keyring.recover("alice", FAUCET_MNEMONIC);
    assert.equal(addressToBech32(alice.address), FAUCET_ADDRESS);

    assert.deepEqual(
      (await keyring.list()).map((k) => k.name),
      ["alice", "bob"],
    );
    assert.deepEqual(await keyring.show(FAUCET_ADDRESS), alice);
    assert.deepEqual(await keyring.show("alice"), alice);

    const files = (await readdir(keyring.directory)).sort();
    assert.deepEqual(
      files,
      [`${toHex(alice.address)}.address`, `${toHex(key.address)}.address`, "alice.info", "bob.info"].sort(),
    );
    assert.equal((await stat(keyring.directory)).mode & 0o777, 0o700);
    for (const file of files) assert.equal((await stat(join(keyring.directory, file))).mode & 0o777, 0o600, file);

    const message = new TextEncoder().encode("sign me");
    const { signature, pubKey } = await keyring.sign("alice", message);
    assert.ok(verifySecp256k1(pubKey, message, signature));
    const signer = await keyring.signer(FAUCET_ADDRESS);
    assert.deepEqual(await signer.sign(message), signature);

    await keyring.delete("alice");
    await assert.rejects(keyring.show("alice"), code("key-not-found", /key "alice" not found in the test keyring at /));
    await assert.rejects(keyring.show(FAUCET_ADDRESS), code("key-not-found"));
    assert.deepEqual(await readdir(keyring.directory), [`${toHex(key.address)}.address`, "bob.info"].sort());
  });

  it("derives on the requested account and index", async () => {
    const keyring = openKeyring({ home: join(home, "t2"), backend: "test" });
    const key = await keyring.recover("k", FAUCET_MNEMONIC, { account: 1, index: 2 });
    assert.equal(key.hdPath, "m/44'/118'/1'/0/2");
    assert.equal(
      await keyring.exportPrivateKeyHex("k"),
      toHex(privateKeyFromMnemonic(FAUCET_MNEMONIC, { account: 1, index: 2 })),
    );
  });

  it("refuses an existing name, a duplicate address, a bad mnemonic and unsafe names, writing nothing", async () => {
    const keyring = openKeyring({ home: join(home, "t3"), backend: "test" });
    await keyring.recover("alice", FAUCET_MNEMONIC);
    const before = (await readdir(keyring.directory)).sort();
    await assert.rejects(keyring.add("alice"), code("key-exists", /key "alice" already exists in the test keyring/));
    await assert.rejects(
      keyring.recover("alias", FAUCET_MNEMONIC),
      code("address-exists", /which key "alice" already has/),
    );
    await assert.rejects(keyring.recover("x", "not a mnemonic"), (error: unknown) => {
      assert.match((error as Error).message, /invalid mnemonic: 3 words/);
      return true;
    });
    for (const bad of ["", "../escape", "a/b", ".hidden", " padded"]) {
      await assert.rejects(keyring.add(bad), code("name-invalid", /invalid key name/), bad);
    }
    assert.deepEqual((await readdir(keyring.directory)).sort(), before);
    await assert.rejects(keyring.delete("nobody"), code("key-not-found"));
    await assert.rejects(keyring.sign("nobody", new Uint8Array(1)), code("key-not-found"));
  });

  it("reports a corrupt record by file name", async () => {
    const keyring = openKeyring({ home: join(home, "t4"), backend: "test" });
    await keyring.add("c");
    await writeFile(join(keyring.directory, "c.info"), "{not json");
    await assert.rejects(keyring.show("c"), code("record-corrupt", /c\.info is corrupt: not JSON/));
  });

  it("is empty when the directory does not exist", async () => {
    assert.deepEqual(await openKeyring({ home: join(home, "none"), backend: "test" }).list(), []);
  });
});

describe("file backend", () => {
  it("encrypts private keys and opens them only with the passphrase", async () => {
    const dir = join(home, "f1");
    const calls: PassphrasePurpose[] = [];
    const keyring = openKeyring({
      home: dir,
      backend: "file",
      passphrase: fixedPassphrase("correct horse", calls),
      scrypt: FAST_SCRYPT,
    });
    const alice = await keyring.recover("alice", FAUCET_MNEMONIC);
    await keyring.add("bob");
    assert.deepEqual(calls, ["keyring-create"]);
    assert.equal(keyring.directory, join(dir, "keyring-file"));
    const text = await readFile(join(keyring.directory, "alice.info"), "utf8");
    const privateHex = toHex(privateKeyFromMnemonic(FAUCET_MNEMONIC));
    const privateB64 = Buffer.from(privateHex, "hex").toString("base64");
    assert.ok(!text.includes(privateHex) && !text.includes(privateB64), "private key stored in clear");
    assert.ok(text.includes("encrypted_private_key"));
    assert.ok((await readdir(keyring.directory)).includes("keyhash"));

    // A fresh instance with the right passphrase signs; list/show need no passphrase at all.
    const reopened = openKeyring({ home: dir, backend: "file", passphrase: fixedPassphrase("correct horse") });
    const message = Uint8Array.of(1, 2, 3);
    const { signature } = await reopened.sign("alice", message);
    assert.ok(verifySecp256k1(alice.pubKey, message, signature));
    const noPassphrase = openKeyring({ home: dir, backend: "file" });
    assert.equal((await noPassphrase.list()).length, 2);
    await assert.rejects(noPassphrase.sign("alice", message), code("passphrase-missing", /needs a passphrase/));

    const wrong = openKeyring({ home: dir, backend: "file", passphrase: fixedPassphrase("wrong horse") });
    await assert.rejects(
      wrong.sign("alice", message),
      code("passphrase-wrong", /wrong passphrase for the file keyring/),
    );
    await assert.rejects(wrong.add("carol"), code("passphrase-wrong"));
    assert.equal(await wrong.has("carol"), false);
  });

  it("wants a passphrase of at least 8 characters for a new keyring", async () => {
    const keyring = openKeyring({ home: join(home, "f2"), backend: "file", passphrase: fixedPassphrase("short") });
    await assert.rejects(keyring.add("a"), code("passphrase-too-short", /at least 8 characters/));
    assert.deepEqual(await keyring.list(), []);
  });
});

describe("export and import", () => {
  it("round-trips a key between backends through the armor", async () => {
    const source = openKeyring({ home: join(home, "e1"), backend: "test" });
    const alice = await source.recover("alice", FAUCET_MNEMONIC);
    const armor = await source.exportArmor("alice", "export-pass");
    assert.match(armor, /^-----BEGIN CHAIND PRIVATE KEY-----\ntype: secp256k1\nkdf: scrypt\n/);
    assert.ok(armor.endsWith("-----END CHAIND PRIVATE KEY-----\n"));

    const target = openKeyring({
      home: join(home, "e2"),
      backend: "file",
      passphrase: fixedPassphrase("keyring-pass"),
      scrypt: FAST_SCRYPT,
    });
    const imported = await target.importArmor("alice2", armor, "export-pass");
    assert.deepEqual(imported.pubKey, alice.pubKey);
    assert.equal(imported.hdPath, undefined);
    await assert.rejects(target.importArmor("alice2", armor, "export-pass"), code("key-exists"));
    await assert.rejects(
      target.importArmor("alice3", armor, "nope"),
      code("passphrase-wrong", /wrong passphrase for the exported key/),
    );
  });

  it("rejects altered, foreign and malformed armor with clear errors", async () => {
    const armor = await armorPrivateKey(privateKeyFromMnemonic(FAUCET_MNEMONIC), "pw", FAST_SCRYPT);
    const lines = armor.split("\n");
    const bodyLine = lines.indexOf("") + 1;
    lines[bodyLine] = (lines[bodyLine].startsWith("A") ? "B" : "A") + lines[bodyLine].slice(1);
    await assert.rejects(unarmorPrivateKey(lines.join("\n"), "pw"), code("passphrase-wrong", /altered/));
    const upstream =
      "-----BEGIN TENDERMINT PRIVATE KEY-----\nkdf: bcrypt\n\nAAAA\n-----END TENDERMINT PRIVATE KEY-----\n";
    await assert.rejects(unarmorPrivateKey(upstream, "pw"), code("armor-unsupported", /Cosmos SDK keyring/));
    await assert.rejects(unarmorPrivateKey("hello", "pw"), code("armor-invalid", /missing BEGIN\/END/));
    await assert.rejects(
      unarmorPrivateKey(armor.replace("type: secp256k1", "type: ed25519"), "pw"),
      code("armor-invalid", /type "ed25519", expected secp256k1/),
    );
    await assert.rejects(
      unarmorPrivateKey(armor.replace("n=1024", "n=1000"), "pw"),
      code("armor-invalid", /power of two/),
    );
    assert.deepEqual(
      await unarmorPrivateKey(armor.replace(/\n/g, "\r\n"), "pw"),
      privateKeyFromMnemonic(FAUCET_MNEMONIC),
    );
  });
});

describe("backend names", () => {
  it("accepts test and file, names the alternatives otherwise", () => {
    assert.equal(parseKeyringBackend("test"), "test");
    assert.equal(parseKeyringBackend("file"), "file");
    assert.throws(
      () => parseKeyringBackend("os"),
      code("backend-unsupported", /"os" is not supported by chaind: use test or file/),
    );
    assert.throws(
      () => parseKeyringBackend("tset"),
      code("backend-unknown", /unknown keyring backend "tset": expected test or file/),
    );
  });
});

describe("line input and passphrase sources", () => {
  it("splits lines across chunks, strips CR and returns the last unterminated line", async () => {
    const reader = createLineReader(Readable.from([Buffer.from("one\r\ntw"), "o\nthr", Buffer.from("ee")]));
    assert.equal(await reader.readLine(), "one");
    assert.equal(await reader.readLine(), "two");
    assert.equal(await reader.readLine(), "three");
    assert.equal(await reader.readLine(), undefined);
  });

  it("prefers the environment, else prompts and reads a line, else fails clearly", async () => {
    const prompts: string[] = [];
    const reader = createLineReader(Readable.from(["typed\n"]));
    const provider = envOrStdinPassphrase({
      env: { CHAIND_KEYRING_PASSPHRASE: "from-env" },
      reader,
      prompt: (text) => prompts.push(text),
    });
    assert.equal(await provider("keyring-unlock"), "from-env");
    assert.equal(await provider("export-encrypt"), "typed");
    assert.deepEqual(prompts, ["Enter passphrase to encrypt the exported key:"]);
    await assert.rejects(provider("export-decrypt"), code("passphrase-missing", /set CHAIND_EXPORT_PASSPHRASE/));
  });
});

describe("key output", () => {
  it("prints upstream's YAML and JSON shapes", async () => {
    const keyring = openKeyring({ home: join(home, "o1"), backend: "test" });
    const alice = await keyring.recover("alice", FAUCET_MNEMONIC);
    const output = keyOutput(alice);
    assert.equal(
      JSON.stringify(output),
      `{"name":"alice","type":"local","address":"${FAUCET_ADDRESS}","pubkey":"{\\"@type\\":\\"/chain.crypto.secp256k1.PubKey\\",\\"key\\":\\"A08EGB7ro1ORuFhjOnZcSgwYlpe0DSFjVNUIkNNQxwKQ\\"}"}`,
    );
    const pubkeyLine = `pubkey: '{"@type":"/chain.crypto.secp256k1.PubKey","key":"A08EGB7ro1ORuFhjOnZcSgwYlpe0DSFjVNUIkNNQxwKQ"}'`;
    assert.equal(formatKeyText(output), `address: ${FAUCET_ADDRESS}\nname: alice\n${pubkeyLine}\ntype: local\n`);
    assert.equal(
      formatKeysText([output]),
      `- address: ${FAUCET_ADDRESS}\n  name: alice\n  ${pubkeyLine}\n  type: local\n`,
    );
    assert.ok(keyOutput(alice, "val").address.startsWith("chainvaloper1"));
    assert.match(formatKeyText({ ...output, name: "yes" }), /name: 'yes'/);
    assert.match(formatKeyText({ ...output, name: "it's" }), /name: 'it''s'/);
  });
});
