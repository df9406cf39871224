// Passphrase encryption of secrets at rest: scrypt derives a 256-bit key from the passphrase and a random
// salt, AES-256-GCM encrypts and authenticates. A wrong passphrase shows up as a failed GCM tag check.
import { createCipheriv, createDecipheriv, randomBytes, scrypt } from "node:crypto";
import { UserError } from "../../errors/user-error.ts";

/** scrypt cost parameters (N, r, p). */
export interface ScryptParameters {
  n: number;
  r: number;
  p: number;
}

/**
 * Default cost: N = 2^15, r = 8, p = 1 (32 MiB, about 0.1 s) — the level commonly recommended for
 * interactive logins, which is how a keyring is opened.
 */
export const DEFAULT_SCRYPT: ScryptParameters = { n: 2 ** 15, r: 8, p: 1 };

/** A secret encrypted under a passphrase; every field needed to decrypt it except the passphrase. */
export interface EncryptedSecret {
  kdf: "scrypt";
  n: number;
  r: number;
  p: number;
  /** base64, 16 random bytes. */
  salt: string;
  cipher: "aes-256-gcm";
  /** base64, 12 random bytes. */
  nonce: string;
  /** base64 of the ciphertext followed by the 16-byte GCM tag. */
  ciphertext: string;
}

const TAG_LENGTH = 16;

/** Thrown by `decryptSecret` when the passphrase (or the associated data) does not match. */
export class DecryptionFailedError extends UserError {
  constructor(options?: ErrorOptions) {
    super("decryption failed: wrong passphrase or tampered data", options);
    this.name = "DecryptionFailedError";
  }
}

/** Encrypts `secret` under `passphrase`; `associatedData` binds the ciphertext to its purpose. */
export async function encryptSecret(
  secret: Uint8Array,
  passphrase: string,
  associatedData: string,
  parameters: ScryptParameters = DEFAULT_SCRYPT,
): Promise<EncryptedSecret> {
  const salt = randomBytes(16);
  const nonce = randomBytes(12);
  const key = await deriveKey(passphrase, salt, parameters);
  const cipher = createCipheriv("aes-256-gcm", key, nonce, { authTagLength: TAG_LENGTH });
  cipher.setAAD(Buffer.from(associatedData, "utf8"));
  const body = Buffer.concat([cipher.update(secret), cipher.final(), cipher.getAuthTag()]);
  return {
    kdf: "scrypt",
    ...parameters,
    salt: salt.toString("base64"),
    cipher: "aes-256-gcm",
    nonce: nonce.toString("base64"),
    ciphertext: body.toString("base64"),
  };
}

/** Decrypts an EncryptedSecret; throws DecryptionFailedError for a wrong passphrase. */
export async function decryptSecret(
  encrypted: EncryptedSecret,
  passphrase: string,
  associatedData: string,
): Promise<Uint8Array> {
  const salt = Buffer.from(encrypted.salt, "base64");
  const nonce = Buffer.from(encrypted.nonce, "base64");
  const body = Buffer.from(encrypted.ciphertext, "base64");
  if (body.length < TAG_LENGTH) throw new DecryptionFailedError();
  const key = await deriveKey(passphrase, salt, encrypted);
  const decipher = createDecipheriv("aes-256-gcm", key, nonce, { authTagLength: TAG_LENGTH });
  decipher.setAAD(Buffer.from(associatedData, "utf8"));
  decipher.setAuthTag(body.subarray(body.length - TAG_LENGTH));
  try {
    return new Uint8Array(
      Buffer.concat([decipher.update(body.subarray(0, body.length - TAG_LENGTH)), decipher.final()]),
    );
  } catch (error) {
    throw new DecryptionFailedError({ cause: error });
  }
}

/** True when `value` has the shape of an EncryptedSecret. */
export function isEncryptedSecret(value: unknown): value is EncryptedSecret {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    v.kdf === "scrypt" &&
    v.cipher === "aes-256-gcm" &&
    Number.isSafeInteger(v.n) &&
    Number.isSafeInteger(v.r) &&
    Number.isSafeInteger(v.p) &&
    typeof v.salt === "string" &&
    typeof v.nonce === "string" &&
    typeof v.ciphertext === "string"
  );
}

function deriveKey(passphrase: string, salt: Uint8Array, parameters: ScryptParameters): Promise<Buffer> {
  const { n, r, p } = parameters;
  return new Promise((resolve, reject) => {
    // maxmem must exceed 128·N·r; allow twice that so the default cost fits Node's limit check.
    scrypt(passphrase.normalize("NFKC"), salt, 32, { N: n, r, p, maxmem: 256 * n * r + 1024 * 1024 }, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
}
