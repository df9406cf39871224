// The export format of `keys export` / `keys import` (ours, not upstream's bcrypt + xsalsa20 armor):
//
//   -----BEGIN CHAIND PRIVATE KEY-----
//   type: secp256k1
//   kdf: scrypt
//   params: n=32768,r=8,p=1
//   salt: <base64>
//   cipher: aes-256-gcm
//   nonce: <base64>
//
//   <base64 of AES-256-GCM(32-byte private key) ‖ 16-byte tag, wrapped at 64 columns>
//   -----END CHAIND PRIVATE KEY-----
//
// The key is derived from the export passphrase with scrypt; the associated data is the fixed string
// "chaind exported private key v1".

import { currentBinaryName } from "../../config/home.ts";
import { decryptSecret, encryptSecret, type ScryptParameters } from "./encryption.ts";
import { KeyringError, WrongPassphraseError } from "./errors.ts";

const BEGIN = "-----BEGIN CHAIND PRIVATE KEY-----";
const END = "-----END CHAIND PRIVATE KEY-----";
const UPSTREAM_BEGIN = "-----BEGIN TENDERMINT PRIVATE KEY-----";
const ASSOCIATED_DATA = "chaind exported private key v1";

/** Encrypts a secp256k1 private key under `passphrase` into the armored export text (ends with a newline). */
export async function armorPrivateKey(
  privateKey: Uint8Array,
  passphrase: string,
  parameters?: ScryptParameters,
): Promise<string> {
  const secret = await encryptSecret(privateKey, passphrase, ASSOCIATED_DATA, parameters);
  const body = secret.ciphertext.match(/.{1,64}/g) ?? [];
  return [
    BEGIN,
    "type: secp256k1",
    `kdf: ${secret.kdf}`,
    `params: n=${secret.n},r=${secret.r},p=${secret.p}`,
    `salt: ${secret.salt}`,
    `cipher: ${secret.cipher}`,
    `nonce: ${secret.nonce}`,
    "",
    ...body,
    END,
    "",
  ].join("\n");
}

/**
 * The private key inside an armored export. Throws KeyringError `armor-invalid` for text that is not our
 * armor, `armor-unsupported` for upstream's armor, and WrongPassphraseError for a wrong passphrase.
 */
export async function unarmorPrivateKey(armor: string, passphrase: string): Promise<Uint8Array> {
  const lines = armor.replace(/\r\n/g, "\n").trim().split("\n");
  if (lines[0] === UPSTREAM_BEGIN) {
    throw new KeyringError(
      "armor-unsupported",
      "this key was exported by a Cosmos SDK keyring (TENDERMINT PRIVATE KEY armor, bcrypt + xsalsa20); " +
        `${currentBinaryName()} imports only its own "${BEGIN}" format`,
    );
  }
  const invalid = (why: string): KeyringError =>
    new KeyringError("armor-invalid", `invalid exported key: ${why}; expected the "${BEGIN}" format of keys export`);
  if (lines[0] !== BEGIN || lines.at(-1) !== END) throw invalid("missing BEGIN/END lines");
  const blank = lines.indexOf("");
  if (blank < 0) throw invalid("no blank line between the headers and the body");
  const headers = new Map<string, string>();
  for (const line of lines.slice(1, blank)) {
    const colon = line.indexOf(":");
    if (colon < 0) throw invalid(`header line "${line}" has no colon`);
    headers.set(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
  }
  if (headers.get("type") !== "secp256k1") throw invalid(`type "${headers.get("type")}", expected secp256k1`);
  if (headers.get("kdf") !== "scrypt" || headers.get("cipher") !== "aes-256-gcm") {
    throw invalid("expected kdf scrypt and cipher aes-256-gcm");
  }
  const params = /^n=(\d+),r=(\d+),p=(\d+)$/.exec(headers.get("params") ?? "");
  const salt = headers.get("salt");
  const nonce = headers.get("nonce");
  if (params === null || salt === undefined || nonce === undefined) throw invalid("missing params, salt or nonce");
  const n = Number(params[1]);
  if (n < 2 || n > 2 ** 20 || (n & (n - 1)) !== 0) throw invalid(`scrypt n=${n}, expected a power of two up to 2^20`);
  const ciphertext = lines.slice(blank + 1, -1).join("");
  let privateKey: Uint8Array;
  try {
    privateKey = await decryptSecret(
      {
        kdf: "scrypt",
        n,
        r: Number(params[2]),
        p: Number(params[3]),
        salt,
        cipher: "aes-256-gcm",
        nonce,
        ciphertext,
      },
      passphrase,
      ASSOCIATED_DATA,
    );
  } catch (error) {
    throw new WrongPassphraseError(
      "wrong passphrase for the exported key (or the export text was altered)",
      {},
      { cause: error },
    );
  }
  if (privateKey.length !== 32) throw invalid(`decrypted key is ${privateKey.length} bytes, expected 32`);
  return privateKey;
}
