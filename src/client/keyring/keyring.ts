// A keyring of secp256k1 keys on disk, in one of two backends:
//   test — <home>/keyring-test/, private keys unencrypted (for development and tests; never for real funds);
//   file — <home>/keyring-file/, each private key encrypted with the keyring passphrase (scrypt + AES-256-GCM).
// Each key is two files, as upstream keeps two items: `<name>.info` (the record) and `<hex address>.address`
// (the name, for lookups by address). The file backend also keeps `keyhash`, a check value that tells a wrong
// passphrase apart before any key is written with it. All files are written atomically with mode 0600.
import { mkdir, readdir, readFile, unlink } from "node:fs/promises";
import { dirname, join } from "node:path";
import { writeFileAtomic } from "../../config/atomic-file.ts";
import { currentBinaryName } from "../../config/home.ts";
import { accAddressFromPubKey } from "../../crypto/address.ts";
import { type AddressKind, addressToBech32, decodeBech32 } from "../../crypto/bech32.ts";
import { generateMnemonic, hdPath as makeHdPath } from "../../crypto/mnemonic.ts";
import {
  type DeriveKeyParameters,
  privateKeyFromMnemonic,
  secp256k1PublicKey,
  signSecp256k1,
} from "../../crypto/secp256k1.ts";
import { armorPrivateKey, unarmorPrivateKey } from "./armor.ts";
import {
  DEFAULT_SCRYPT,
  DecryptionFailedError,
  decryptSecret,
  type EncryptedSecret,
  encryptSecret,
  isEncryptedSecret,
  type ScryptParameters,
} from "./encryption.ts";
import { KeyExistsError, KeyNotFoundError, KeyringError, WrongPassphraseError } from "./errors.ts";
import type { PassphraseProvider } from "./passphrase.ts";
import { type KeyInfo, keyInfoOf, parseRecord, type StoredRecord, serializeRecord } from "./record.ts";

/** The keyring backends chaind implements. */
export type KeyringBackendName = "test" | "file";

/** Backends upstream has that chaind does not (named in the error so the user knows why). */
const UPSTREAM_ONLY_BACKENDS = ["os", "memory", "kwallet", "pass"];

/** Minimum length of a new file keyring passphrase (upstream asks for at least 8 characters too). */
export const MIN_PASSPHRASE_LENGTH = 8;

const INFO_SUFFIX = ".info";
const ADDRESS_SUFFIX = ".address";
const KEYHASH_FILE = "keyhash";
const KEYHASH_CHECK = "chaind keyring passphrase check";
const PRIVATE_KEY_AAD = "chaind keyring private key v1";
/** Mode of every keyring file: readable and writable by the owner only. */
const KEY_FILE_MODE = 0o600;
/** Mode of keyring directories. */
const KEY_DIR_MODE = 0o700;

/** Validates a backend name; throws KeyringError naming the supported ones. */
export function parseKeyringBackend(name: string): KeyringBackendName {
  if (name === "test" || name === "file") return name;
  if (UPSTREAM_ONLY_BACKENDS.includes(name)) {
    throw new KeyringError(
      "backend-unsupported",
      `keyring backend "${name}" is not supported by ${currentBinaryName()}: use test or file`,
      { backend: name },
    );
  }
  throw new KeyringError("backend-unknown", `unknown keyring backend "${name}": expected test or file`, {
    backend: name,
  });
}

/** Options for opening a keyring. */
export interface OpenKeyringParameters {
  /** The node/client home directory; keys live in `<home>/keyring-<backend>/`. */
  home: string;
  /** "test" or "file" (other names throw). */
  backend: string;
  /** Supplies the file backend's passphrase; not called for the test backend. */
  passphrase?: PassphraseProvider;
  /** scrypt cost for newly encrypted keys (file backend); tests may lower it. */
  scrypt?: ScryptParameters;
}

/** Options for creating a key from a mnemonic: account/index (or a full hdPath) and a BIP39 passphrase. */
export type AddKeyParameters = DeriveKeyParameters;

/** The outcome of `add`: the new key and the mnemonic it came from (show it to the user once). */
export interface AddKeyResult {
  key: KeyInfo;
  mnemonic: string;
}

/** A signature with the public key that made it. */
export interface SignResult {
  signature: Uint8Array;
  pubKey: Uint8Array;
}

/** Signs bytes as one key of a keyring (what the tx builder needs from a key). */
export interface KeyringSigner {
  readonly name: string;
  readonly pubKey: Uint8Array;
  readonly address: Uint8Array;
  /** 64-byte low-S signature of SHA-256(signBytes). */
  sign(signBytes: Uint8Array): Promise<Uint8Array>;
}

/** Opens (without touching the disk yet) the keyring of `home` and `backend`. */
export function openKeyring(parameters: OpenKeyringParameters): Keyring {
  return new Keyring(parameters);
}

/** A keyring directory. Reads and writes go straight to disk; nothing but the passphrase is cached. */
export class Keyring {
  readonly backend: KeyringBackendName;
  readonly directory: string;
  readonly #passphraseProvider: PassphraseProvider | undefined;
  readonly #scrypt: ScryptParameters;
  #passphrase: string | undefined;

  constructor(parameters: OpenKeyringParameters) {
    this.backend = parseKeyringBackend(parameters.backend);
    this.directory = join(parameters.home, `keyring-${this.backend}`);
    this.#passphraseProvider = parameters.passphrase;
    this.#scrypt = parameters.scrypt ?? DEFAULT_SCRYPT;
  }

  /**
   * Creates a key from a new 24-word mnemonic (or the given one) on m/44'/118'/account'/0/index. With `dryRun` the
   * key is derived and returned but nothing is written or checked against the keyring (upstream's `keys add
   * --dry-run`, which adds to a keyring in memory).
   */
  async add(
    name: string,
    parameters: AddKeyParameters & { mnemonic?: string; dryRun?: boolean } = {},
  ): Promise<AddKeyResult> {
    const mnemonic = parameters.mnemonic ?? generateMnemonic();
    const path = parameters.hdPath ?? makeHdPath(parameters);
    assertKeyName(name);
    const privateKey = privateKeyFromMnemonic(mnemonic, { ...parameters, hdPath: path });
    if (parameters.dryRun === true) {
      const pubKey = secp256k1PublicKey(privateKey);
      const record: StoredRecord = {
        name,
        type: "local",
        algorithm: "secp256k1",
        pubKey,
        address: accAddressFromPubKey(pubKey),
        hdPath: path,
        privateKey: { plain: privateKey },
      };
      return { key: keyInfoOf(record), mnemonic };
    }
    const key = await this.#store(name, privateKey, path);
    return { key, mnemonic };
  }

  /** Restores a key from an existing mnemonic; throws MnemonicError when it is not valid BIP39. */
  async recover(
    name: string,
    mnemonic: string,
    parameters: AddKeyParameters & { dryRun?: boolean } = {},
  ): Promise<KeyInfo> {
    return (await this.add(name, { ...parameters, mnemonic })).key;
  }

  /** Stores a raw 32-byte secp256k1 private key under `name`. */
  async importPrivateKey(name: string, privateKey: Uint8Array): Promise<KeyInfo> {
    assertKeyName(name);
    return this.#store(name, privateKey, undefined);
  }

  /** Every key, sorted by name. */
  async list(): Promise<KeyInfo[]> {
    let entries: string[];
    try {
      entries = await readdir(this.directory);
    } catch (error) {
      if (isNotFound(error)) return [];
      throw error;
    }
    const names = entries
      .filter((file) => file.endsWith(INFO_SUFFIX) && !file.startsWith("."))
      .map((file) => file.slice(0, -INFO_SUFFIX.length))
      .sort();
    const keys: KeyInfo[] = [];
    for (const name of names) keys.push(keyInfoOf(await this.#read(name)));
    return keys;
  }

  /** True when a key named `name` exists. */
  async has(name: string): Promise<boolean> {
    return (await this.#tryRead(name)) !== undefined;
  }

  /** The key named `reference`, or else the key whose bech32 address (any prefix) is `reference`. */
  async show(reference: string): Promise<KeyInfo> {
    return keyInfoOf(await this.#resolve(reference));
  }

  /** Removes a key (both of its files). */
  async delete(reference: string): Promise<KeyInfo> {
    const record = await this.#resolve(reference);
    await unlinkIfPresent(this.#addressPath(record.address));
    await unlink(this.#infoPath(record.name));
    return keyInfoOf(record);
  }

  /** The armored, passphrase-encrypted private key (format in armor.ts). */
  async exportArmor(reference: string, exportPassphrase: string): Promise<string> {
    assertPassphrase(exportPassphrase, 1, "the export passphrase");
    const record = await this.#resolve(reference);
    return armorPrivateKey(await this.#privateKey(record), exportPassphrase, this.#scrypt);
  }

  /** The raw private key as lower-case hex (`keys export --unarmored-hex --unsafe`). */
  async exportPrivateKeyHex(reference: string): Promise<string> {
    const record = await this.#resolve(reference);
    return Buffer.from(await this.#privateKey(record)).toString("hex");
  }

  /** Imports an armored key made by `exportArmor` under a new name. */
  async importArmor(name: string, armor: string, exportPassphrase: string): Promise<KeyInfo> {
    assertKeyName(name);
    if ((await this.#tryRead(name)) !== undefined) throw keyExists(name, this);
    const privateKey = await unarmorPrivateKey(armor, exportPassphrase);
    return this.importPrivateKey(name, privateKey);
  }

  /** Signs SHA-256(`bytes`) with the key: a 64-byte low-S secp256k1 signature. */
  async sign(reference: string, bytes: Uint8Array): Promise<SignResult> {
    const record = await this.#resolve(reference);
    const privateKey = await this.#privateKey(record);
    return { signature: signSecp256k1(privateKey, bytes), pubKey: record.pubKey };
  }

  /** A signer bound to one key; the private key is decrypted once and kept in the signer. */
  async signer(reference: string): Promise<KeyringSigner> {
    const record = await this.#resolve(reference);
    const privateKey = await this.#privateKey(record);
    return {
      name: record.name,
      pubKey: record.pubKey,
      address: record.address,
      sign: async (signBytes) => signSecp256k1(privateKey, signBytes),
    };
  }

  /** Asks for and checks the file keyring's passphrase now (no-op for the test backend). */
  async unlock(): Promise<void> {
    if (this.backend === "file") await this.#unlock(false);
  }

  /** Where this keyring lives, for messages: e.g. `test keyring at /home/me/.chaind/keyring-test`. */
  describe(): string {
    return `${this.backend} keyring at ${this.directory}`;
  }

  async #store(name: string, privateKey: Uint8Array, hdPath: string | undefined): Promise<KeyInfo> {
    const pubKey = secp256k1PublicKey(privateKey);
    const address = accAddressFromPubKey(pubKey);
    if ((await this.#tryRead(name)) !== undefined) throw keyExists(name, this);
    const holder = await this.#nameAtAddress(address);
    if (holder !== undefined) {
      throw new KeyExistsError(
        "address-exists",
        `key "${name}" would have address ${addressToBech32(address)}, which key "${holder}" already has in the ${this.describe()}`,
        { name, existing: holder },
      );
    }
    const record: StoredRecord = {
      name,
      type: "local",
      algorithm: "secp256k1",
      pubKey,
      address,
      ...(hdPath === undefined ? {} : { hdPath }),
      privateKey:
        this.backend === "test"
          ? { plain: privateKey }
          : { encrypted: await encryptSecret(privateKey, await this.#unlock(true), PRIVATE_KEY_AAD, this.#scrypt) },
    };
    // The record first, then the reverse index: a crash in between leaves a usable key, never a dangling index.
    await writeKeyFile(this.#infoPath(name), serializeRecord(record));
    await writeKeyFile(this.#addressPath(address), name);
    return keyInfoOf(record);
  }

  async #privateKey(record: StoredRecord): Promise<Uint8Array> {
    if ("plain" in record.privateKey) return record.privateKey.plain;
    const passphrase = await this.#unlock(false);
    let privateKey: Uint8Array;
    try {
      privateKey = await decryptSecret(record.privateKey.encrypted, passphrase, PRIVATE_KEY_AAD);
    } catch (error) {
      if (!(error instanceof DecryptionFailedError)) throw error;
      throw new WrongPassphraseError(
        `wrong passphrase for key "${record.name}" in the ${this.describe()}`,
        { name: record.name },
        { cause: error },
      );
    }
    // Guard against a record whose encrypted half was swapped with another key's.
    if (!Buffer.from(secp256k1PublicKey(privateKey)).equals(Buffer.from(record.pubKey))) {
      throw new KeyringError(
        "record-corrupt",
        `key record ${this.#infoPath(record.name)} is corrupt: its private key does not match its public key`,
      );
    }
    return privateKey;
  }

  // Returns the file keyring's passphrase, checked against `keyhash` (created on first use when `create`).
  async #unlock(create: boolean): Promise<string> {
    if (this.#passphrase !== undefined) return this.#passphrase;
    const keyhashPath = join(this.directory, KEYHASH_FILE);
    const existing = await readFileIfPresent(keyhashPath);
    if (this.#passphraseProvider === undefined) {
      throw new KeyringError(
        "passphrase-missing",
        `the ${this.describe()} needs a passphrase and none was provided`,
        {},
      );
    }
    if (existing === undefined) {
      if (!create) {
        throw new KeyringError(
          "record-corrupt",
          `the ${this.describe()} has no ${KEYHASH_FILE} file, so no key in it can be decrypted`,
        );
      }
      const passphrase = await this.#passphraseProvider("keyring-create");
      assertPassphrase(passphrase, MIN_PASSPHRASE_LENGTH, "a new file keyring passphrase");
      const check = await encryptSecret(
        new TextEncoder().encode(KEYHASH_CHECK),
        passphrase,
        KEYHASH_FILE,
        this.#scrypt,
      );
      await writeKeyFile(keyhashPath, `${JSON.stringify(check, null, 2)}\n`);
      this.#passphrase = passphrase;
      return passphrase;
    }
    let check: EncryptedSecret;
    try {
      const parsed: unknown = JSON.parse(existing);
      if (!isEncryptedSecret(parsed)) throw new TypeError("not an encrypted check value");
      check = parsed;
    } catch (error) {
      throw new KeyringError("record-corrupt", `${keyhashPath} is corrupt`, { file: keyhashPath }, { cause: error });
    }
    const passphrase = await this.#passphraseProvider("keyring-unlock");
    try {
      await decryptSecret(check, passphrase, KEYHASH_FILE);
    } catch (error) {
      if (!(error instanceof DecryptionFailedError)) throw error;
      throw new WrongPassphraseError(`wrong passphrase for the ${this.describe()}`, {}, { cause: error });
    }
    this.#passphrase = passphrase;
    return passphrase;
  }

  async #resolve(reference: string): Promise<StoredRecord> {
    const byName = isUsableName(reference) ? await this.#tryRead(reference) : undefined;
    if (byName !== undefined) return byName;
    let address: Uint8Array | undefined;
    try {
      address = decodeBech32(reference).data;
    } catch {
      address = undefined;
    }
    if (address !== undefined) {
      const name = await this.#nameAtAddress(address);
      const record = name === undefined ? undefined : await this.#tryRead(name);
      if (record !== undefined) return record;
    }
    throw new KeyNotFoundError(reference, this.describe());
  }

  async #nameAtAddress(address: Uint8Array): Promise<string | undefined> {
    const text = await readFileIfPresent(this.#addressPath(address));
    return text === undefined ? undefined : text.trim();
  }

  async #read(name: string): Promise<StoredRecord> {
    const record = await this.#tryRead(name);
    if (record === undefined) throw new KeyNotFoundError(name, this.describe());
    return record;
  }

  async #tryRead(name: string): Promise<StoredRecord | undefined> {
    const path = this.#infoPath(name);
    const text = await readFileIfPresent(path);
    if (text === undefined) return undefined;
    const record = parseRecord(text, path);
    if (record.name !== name) {
      throw new KeyringError("record-corrupt", `key record ${path} is corrupt: it holds key "${record.name}"`);
    }
    if (this.backend === "file" && "plain" in record.privateKey) {
      throw new KeyringError("record-corrupt", `key record ${path} holds an unencrypted key in a file keyring`);
    }
    return record;
  }

  #infoPath(name: string): string {
    return join(this.directory, `${name}${INFO_SUFFIX}`);
  }

  #addressPath(address: Uint8Array): string {
    return join(this.directory, `${Buffer.from(address).toString("hex")}${ADDRESS_SUFFIX}`);
  }
}

/** The bech32 address of a key under the prefix of `kind`. */
export function keyAddress(key: KeyInfo, kind: AddressKind = "acc"): string {
  return addressToBech32(key.address, kind);
}

// Names become file names, so anything that could escape the directory or hide the file is refused.
function isUsableName(name: string): boolean {
  return (
    name.length > 0 && name.length <= 200 && !name.startsWith(".") && !/[/\\\0]/.test(name) && name.trim() === name
  );
}

function assertKeyName(name: string): void {
  if (!isUsableName(name)) {
    throw new KeyringError(
      "name-invalid",
      `invalid key name "${name}": expected 1-200 characters, no leading dot, no slashes or surrounding spaces`,
      { name },
    );
  }
}

function assertPassphrase(passphrase: string, minimum: number, what: string): void {
  if (passphrase.length < minimum) {
    throw new KeyringError(
      minimum > 1 ? "passphrase-too-short" : "passphrase-missing",
      `${what} must be at least ${minimum} character${minimum === 1 ? "" : "s"} long`,
      { minimum },
    );
  }
}

function keyExists(name: string, keyring: Keyring): KeyExistsError {
  return new KeyExistsError(
    "key-exists",
    `key "${name}" already exists in the ${keyring.describe()}; delete it first or choose another name`,
    { name },
  );
}

/** Atomically replaces a keyring file (mode 0600), creating the owner-only directory on first write. */
async function writeKeyFile(path: string, data: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: KEY_DIR_MODE });
  await writeFileAtomic(path, data, KEY_FILE_MODE);
}

async function readFileIfPresent(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

async function unlinkIfPresent(path: string): Promise<void> {
  try {
    await unlink(path);
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
}

function isNotFound(error: unknown): boolean {
  return error instanceof Error && (error as NodeJS.ErrnoException).code === "ENOENT";
}
