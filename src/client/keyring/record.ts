// The on-disk form of one key (`<name>.info`, JSON). The public half is stored in the clear so that
// list/show work without a passphrase; the private key is in the clear (test backend) or encrypted
// (file backend). Upstream stores a protobuf Record; bit-compatibility with Go keyrings is not a goal.
import { fromBase64, toBase64 } from "../../crypto/hash.ts";
import { type EncryptedSecret, isEncryptedSecret } from "./encryption.ts";
import { KeyringError } from "./errors.ts";

/** Format version written into every record. */
export const RECORD_VERSION = 1;

/** What a keyring holds for one key (without the private key). */
export interface KeyInfo {
  name: string;
  /** Always "local": the private key is in this keyring (upstream also has ledger, multi, offline). */
  type: "local";
  algorithm: "secp256k1";
  /** 33-byte compressed public key. */
  pubKey: Uint8Array;
  /** 20-byte account address. */
  address: Uint8Array;
  /** The HD path the key was derived on, when it came from a mnemonic. */
  hdPath?: string;
}

/** A stored record: the key info plus its private key, plain or encrypted. */
export interface StoredRecord extends KeyInfo {
  privateKey: { plain: Uint8Array } | { encrypted: EncryptedSecret };
}

interface RecordJson {
  version: number;
  name: string;
  type: "local";
  algorithm: "secp256k1";
  pub_key: string;
  address: string;
  hd_path?: string;
  private_key?: string;
  encrypted_private_key?: EncryptedSecret;
}

/** The JSON text of a record. */
export function serializeRecord(record: StoredRecord): string {
  const json: RecordJson = {
    version: RECORD_VERSION,
    name: record.name,
    type: record.type,
    algorithm: record.algorithm,
    pub_key: toBase64(record.pubKey),
    address: Buffer.from(record.address).toString("hex"),
    ...(record.hdPath === undefined ? {} : { hd_path: record.hdPath }),
    ...("plain" in record.privateKey
      ? { private_key: toBase64(record.privateKey.plain) }
      : { encrypted_private_key: record.privateKey.encrypted }),
  };
  return `${JSON.stringify(json, null, 2)}\n`;
}

/** Parses a record file; `file` names it in errors. Throws KeyringError `record-corrupt`. */
export function parseRecord(text: string, file: string): StoredRecord {
  const corrupt = (why: string, cause?: unknown): KeyringError =>
    new KeyringError("record-corrupt", `key record ${file} is corrupt: ${why}`, { file }, { cause });
  let json: Partial<RecordJson>;
  try {
    json = JSON.parse(text) as Partial<RecordJson>;
  } catch (error) {
    throw corrupt("not JSON", error);
  }
  if (typeof json !== "object" || json === null) throw corrupt("not a JSON object");
  if (json.version !== RECORD_VERSION) throw corrupt(`version ${json.version}, expected ${RECORD_VERSION}`);
  if (typeof json.name !== "string" || json.type !== "local" || json.algorithm !== "secp256k1") {
    throw corrupt("expected a name, type local and algorithm secp256k1");
  }
  let pubKey: Uint8Array;
  let address: Uint8Array;
  try {
    pubKey = fromBase64(String(json.pub_key));
    address = new Uint8Array(Buffer.from(String(json.address), "hex"));
  } catch (error) {
    throw corrupt("bad pub_key or address encoding", error);
  }
  if (pubKey.length !== 33 || address.length !== 20) throw corrupt("pub_key must be 33 bytes and address 20 bytes");
  let privateKey: StoredRecord["privateKey"];
  if (typeof json.private_key === "string") {
    privateKey = { plain: fromBase64(json.private_key) };
    if (privateKey.plain.length !== 32) throw corrupt("private_key must be 32 bytes");
  } else if (isEncryptedSecret(json.encrypted_private_key)) {
    privateKey = { encrypted: json.encrypted_private_key };
  } else {
    throw corrupt("no private_key or encrypted_private_key");
  }
  return {
    name: json.name,
    type: "local",
    algorithm: "secp256k1",
    pubKey,
    address,
    ...(typeof json.hd_path === "string" ? { hdPath: json.hd_path } : {}),
    privateKey,
  };
}

/** The public part of a stored record. */
export function keyInfoOf(record: StoredRecord): KeyInfo {
  const { privateKey: _privateKey, ...info } = record;
  return info;
}
