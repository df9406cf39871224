// The node's two ed25519 keys in CometBFT's JSON files: the validator's consensus key
// (priv_validator_key.json) and the p2p identity (node_key.json, whose public key gives the node ID).
// Keys are made and used with node:crypto; the files are byte-compatible with what `cometbft init`
// writes, so either program can use keys the other made.
import { createHash, createPrivateKey, createPublicKey, type KeyObject, randomBytes, sign } from "node:crypto";
import { access } from "node:fs/promises";
import { writeFileAtomic } from "./atomic-file.ts";
import { ConfigError } from "./errors.ts";
import { currentBinaryName } from "./home.ts";
import { JsonFieldReader, type JsonValue, parseJsonText, readJsonFile } from "./json-reader.ts";

/** The amino type names CometBFT's JSON uses for ed25519 keys. */
export const ED25519_PUB_KEY_TYPE = "tendermint/PubKeyEd25519";
/** The Amino type name of an ed25519 private key in node_key.json / priv_validator_key.json. */
export const ED25519_PRIV_KEY_TYPE = "tendermint/PrivKeyEd25519";

/** An ed25519 key pair: the 32-byte seed and the 32-byte public key derived from it. */
export interface Ed25519Key {
  seed: Uint8Array;
  publicKey: Uint8Array;
}

/** The validator's consensus key with its address (first 20 bytes of sha256(public key)). */
export interface PrivValidatorKey extends Ed25519Key {
  address: Uint8Array;
}

/** The node's p2p key with its node ID (lowercase hex of the same 20-byte address). */
export interface NodeKey extends Ed25519Key {
  id: string;
}

// DER header of a PKCS#8 ed25519 private key; the 32-byte seed follows it.
const PKCS8_ED25519_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");

function privateKeyObject(seed: Uint8Array): KeyObject {
  return createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]), format: "der", type: "pkcs8" });
}

/** Derives the key pair of a 32-byte seed. */
export function ed25519KeyFromSeed(seed: Uint8Array): Ed25519Key {
  if (seed.length !== 32) throw new RangeError(`an ed25519 seed is 32 bytes, got ${seed.length}`);
  const spki = createPublicKey(privateKeyObject(seed)).export({ format: "der", type: "spki" });
  return { seed: new Uint8Array(seed), publicKey: new Uint8Array(spki.subarray(spki.length - 32)) };
}

/** A new random ed25519 key pair. */
export function generateEd25519Key(): Ed25519Key {
  return ed25519KeyFromSeed(new Uint8Array(randomBytes(32)));
}

/** Signs `message` with the key (64-byte ed25519 signature). */
export function ed25519Sign(key: Ed25519Key, message: Uint8Array): Uint8Array {
  return new Uint8Array(sign(null, message, privateKeyObject(key.seed)));
}

/** The 20-byte address of an ed25519 public key: the first 20 bytes of its sha256. */
export function ed25519Address(publicKey: Uint8Array): Uint8Array {
  return new Uint8Array(createHash("sha256").update(publicKey).digest().subarray(0, 20));
}

/** The node ID of a p2p public key: lowercase hex of its address. */
export function nodeIdFromPublicKey(publicKey: Uint8Array): string {
  return Buffer.from(ed25519Address(publicKey)).toString("hex");
}

/** The 64-byte private key value CometBFT stores: seed followed by public key. */
function expandedPrivateKey(key: Ed25519Key): Uint8Array {
  const out = new Uint8Array(64);
  out.set(key.seed, 0);
  out.set(key.publicKey, 32);
  return out;
}

function base64(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString("base64");
}

/** A consensus key with its address, from a key pair. */
export function privValidatorKeyFrom(key: Ed25519Key): PrivValidatorKey {
  return { seed: key.seed, publicKey: key.publicKey, address: ed25519Address(key.publicKey) };
}

/** A p2p key with its node ID, from a key pair. */
export function nodeKeyFrom(key: Ed25519Key): NodeKey {
  return { seed: key.seed, publicKey: key.publicKey, id: nodeIdFromPublicKey(key.publicKey) };
}

/** priv_validator_key.json text, laid out as CometBFT writes it. */
export function privValidatorKeyToJson(key: Ed25519Key): string {
  return JSON.stringify(
    {
      address: Buffer.from(ed25519Address(key.publicKey)).toString("hex").toUpperCase(),
      pub_key: { type: ED25519_PUB_KEY_TYPE, value: base64(key.publicKey) },
      priv_key: { type: ED25519_PRIV_KEY_TYPE, value: base64(expandedPrivateKey(key)) },
    },
    null,
    2,
  );
}

/** node_key.json text, laid out as CometBFT writes it. */
export function nodeKeyToJson(key: Ed25519Key): string {
  return JSON.stringify({ priv_key: { type: ED25519_PRIV_KEY_TYPE, value: base64(expandedPrivateKey(key)) } }, null, 2);
}

const PRIV_VALUE_EXPECTED = "base64 of 64 bytes: the 32-byte seed followed by its 32-byte public key";

/** Reads the `priv_key` object shared by both files and checks that its halves belong together. */
function readPrivKey(read: JsonFieldReader): Ed25519Key | undefined {
  const type = read.string("priv_key.type", { expected: JSON.stringify(ED25519_PRIV_KEY_TYPE) });
  if (type !== undefined && type !== ED25519_PRIV_KEY_TYPE) {
    read.problem("priv_key.type", JSON.stringify(ED25519_PRIV_KEY_TYPE), type, "only ed25519 keys are supported");
  }
  const value = read.base64("priv_key.value", { expected: PRIV_VALUE_EXPECTED, length: 64 });
  if (value === undefined) return undefined;
  const key = ed25519KeyFromSeed(value.subarray(0, 32));
  if (!Buffer.from(key.publicKey).equals(value.subarray(32))) {
    read.problem(
      "priv_key.value",
      PRIV_VALUE_EXPECTED,
      read.get("priv_key.value"),
      "the second half is not the public key of the first",
    );
    return undefined;
  }
  return key;
}

/** Parses and checks priv_validator_key.json text: key halves, public key and address must agree. */
export function parsePrivValidatorKey(text: string, file: string): PrivValidatorKey {
  return privValidatorKeyFromJson(parseJsonText(text, file), file);
}

function privValidatorKeyFromJson(json: JsonValue, file: string): PrivValidatorKey {
  const read = new JsonFieldReader(file, json);
  if (read.object("", "a JSON object with address, pub_key and priv_key") === undefined) read.finish();
  const key = readPrivKey(read);
  const pubType = read.string("pub_key.type", { expected: JSON.stringify(ED25519_PUB_KEY_TYPE) });
  if (pubType !== undefined && pubType !== ED25519_PUB_KEY_TYPE) {
    read.problem("pub_key.type", JSON.stringify(ED25519_PUB_KEY_TYPE), pubType);
  }
  const pub = read.base64("pub_key.value", { expected: "base64 of a 32-byte ed25519 public key", length: 32 });
  const address = read.hex("address", { expected: "the 20-byte address in hex (40 characters)", length: 20 });
  if (key !== undefined && pub !== undefined && !Buffer.from(pub).equals(key.publicKey)) {
    read.problem("pub_key.value", `the public key of priv_key, "${base64(key.publicKey)}"`, read.get("pub_key.value"));
  }
  if (key !== undefined && address !== undefined) {
    const derived = ed25519Address(key.publicKey);
    if (!Buffer.from(address).equals(derived)) {
      read.problem(
        "address",
        `the address of the key, "${Buffer.from(derived).toString("hex").toUpperCase()}"`,
        read.get("address"),
      );
    }
  }
  read.finish();
  return privValidatorKeyFrom(key as Ed25519Key);
}

/** Parses and checks node_key.json text. */
export function parseNodeKey(text: string, file: string): NodeKey {
  return nodeKeyFromJson(parseJsonText(text, file), file);
}

function nodeKeyFromJson(json: JsonValue, file: string): NodeKey {
  const read = new JsonFieldReader(file, json);
  if (read.object("", "a JSON object with priv_key") === undefined) read.finish();
  const key = readPrivKey(read);
  read.finish();
  return nodeKeyFrom(key as Ed25519Key);
}

/** Loads priv_validator_key.json; every problem is a ConfigError naming the file and field. */
export async function loadPrivValidatorKey(file: string): Promise<PrivValidatorKey> {
  return privValidatorKeyFromJson(await readJsonFile(file, `run "${currentBinaryName()} init" to create it`), file);
}

/** Loads node_key.json; every problem is a ConfigError naming the file and field. */
export async function loadNodeKey(file: string): Promise<NodeKey> {
  return nodeKeyFromJson(await readJsonFile(file, `run "${currentBinaryName()} init" to create it`), file);
}

/** Writes priv_validator_key.json atomically, readable by the owner only. */
export async function savePrivValidatorKey(file: string, key: Ed25519Key): Promise<void> {
  await writeFileAtomic(file, privValidatorKeyToJson(key), 0o600);
}

/** Writes node_key.json atomically, readable by the owner only. */
export async function saveNodeKey(file: string, key: Ed25519Key): Promise<void> {
  await writeFileAtomic(file, nodeKeyToJson(key), 0o600);
}

async function exists(file: string): Promise<boolean> {
  try {
    await access(file);
    return true;
  } catch {
    return false;
  }
}

/**
 * Loads the consensus key, or creates it when the file does not exist (never overwrites). With
 * `seed`, a new key is made from it, and an existing file must hold that same key.
 */
export async function loadOrCreatePrivValidatorKey(file: string, seed?: Uint8Array): Promise<PrivValidatorKey> {
  if (await exists(file)) {
    const key = await loadPrivValidatorKey(file);
    if (seed !== undefined && !Buffer.from(ed25519KeyFromSeed(seed).publicKey).equals(key.publicKey)) {
      throw new ConfigError({ file, reason: "already holds a different validator key; move it away to recover one" });
    }
    return key;
  }
  const key = seed === undefined ? generateEd25519Key() : ed25519KeyFromSeed(seed);
  await savePrivValidatorKey(file, key);
  return privValidatorKeyFrom(key);
}

/** Loads the p2p key, or creates a random one when the file does not exist (never overwrites). */
export async function loadOrCreateNodeKey(file: string): Promise<NodeKey> {
  if (await exists(file)) return loadNodeKey(file);
  const key = generateEd25519Key();
  await saveNodeKey(file, key);
  return nodeKeyFrom(key);
}
