// Reads a CometBFT-format genesis.json into what the engine needs (chain id, time, initial height, consensus
// params, validators, app hash, app_state bytes). int64 values may be JSON strings (CometBFT) or numbers.
import { readFile } from "node:fs/promises";
import { ConsensusParamsError, validateConsensusParams } from "./params.ts";
import { parseRfc3339, TimeFormatError } from "./time.ts";
import { type ConsensusParams, defaultConsensusParams, type PublicKey, type Timestamp } from "./types.ts";
import { addressOf } from "./validator-set.ts";

/** A genesis validator. */
export interface GenesisValidator {
  address: Uint8Array;
  pubKey: PublicKey;
  power: bigint;
  name: string;
}

/** The parsed genesis document. */
export interface GenesisDoc {
  genesisTime: Timestamp;
  chainId: string;
  initialHeight: bigint;
  consensusParams: ConsensusParams;
  validators: GenesisValidator[];
  appHash: Uint8Array;
  /** The raw JSON of app_state (empty when absent), as CometBFT passes it to InitChain. */
  appStateBytes: Uint8Array;
  /** The document itself, for the `/genesis` RPC. */
  document: Record<string, unknown>;
}

/** Raised for an unreadable or invalid genesis file; names the file and the field. */
export class GenesisError extends Error {
  override name = "GenesisError";
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

function int64(v: unknown, where: string, fallback: bigint): bigint {
  if (v === undefined || v === null) return fallback;
  if (typeof v === "number" && Number.isSafeInteger(v)) return BigInt(v);
  if (typeof v === "string" && /^-?\d+$/.test(v)) return BigInt(v);
  throw new GenesisError(`${where}: expected an integer (as a string, e.g. "1"), got ${JSON.stringify(v)}`);
}

function pubKeyOf(v: unknown, where: string): PublicKey {
  if (!isObj(v) || typeof v.type !== "string" || typeof v.value !== "string") {
    throw new GenesisError(`${where}: expected {"type":"tendermint/PubKeyEd25519","value":"<base64>"}`);
  }
  const key = new Uint8Array(Buffer.from(v.value, "base64"));
  if (v.type === "tendermint/PubKeyEd25519" && key.length === 32) return { type: "ed25519", key };
  if (v.type === "tendermint/PubKeySecp256k1" && key.length === 33) return { type: "secp256k1", key };
  throw new GenesisError(`${where}: unsupported key type ${v.type} or wrong key length ${key.length}`);
}

function paramsOf(v: unknown, where: string): ConsensusParams {
  const p = defaultConsensusParams();
  if (v === undefined || v === null) return p;
  if (!isObj(v)) throw new GenesisError(`${where}: expected an object`);
  if (isObj(v.block)) {
    p.block.maxBytes = int64(v.block.max_bytes, `${where}.block.max_bytes`, p.block.maxBytes);
    p.block.maxGas = int64(v.block.max_gas, `${where}.block.max_gas`, p.block.maxGas);
  }
  if (isObj(v.evidence)) {
    const e = v.evidence;
    p.evidence.maxAgeNumBlocks = int64(e.max_age_num_blocks, `${where}.evidence.max_age_num_blocks`, 100000n);
    const nanos = int64(e.max_age_duration, `${where}.evidence.max_age_duration`, 172800000000000n);
    p.evidence.maxAgeDuration = { seconds: nanos / 1_000_000_000n, nanos: Number(nanos % 1_000_000_000n) };
    p.evidence.maxBytes = int64(e.max_bytes, `${where}.evidence.max_bytes`, p.evidence.maxBytes);
  }
  if (isObj(v.validator) && Array.isArray(v.validator.pub_key_types)) {
    p.validator.pubKeyTypes = v.validator.pub_key_types.map(String);
  }
  if (isObj(v.version)) p.version.app = int64(v.version.app, `${where}.version.app`, 0n);
  if (isObj(v.abci)) {
    p.abci.voteExtensionsEnableHeight = int64(
      v.abci.vote_extensions_enable_height,
      `${where}.abci.vote_extensions_enable_height`,
      0n,
    );
  }
  try {
    validateConsensusParams(p);
  } catch (cause) {
    if (cause instanceof ConsensusParamsError) throw new GenesisError(`${where}: ${cause.message}`, { cause });
    throw cause;
  }
  return p;
}

/** Parses genesis JSON text; `file` names the source in error messages. */
export function parseGenesis(text: string, file = "genesis.json"): GenesisDoc {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (cause) {
    throw new GenesisError(`${file}: not valid JSON: ${(cause as Error).message}`, { cause });
  }
  if (!isObj(doc)) throw new GenesisError(`${file}: expected a JSON object`);
  if (typeof doc.chain_id !== "string" || doc.chain_id === "") {
    throw new GenesisError(`${file}: chain_id: expected a non-empty string`);
  }
  if (doc.chain_id.length > 50) throw new GenesisError(`${file}: chain_id: longer than 50 characters`);
  let genesisTime: Timestamp;
  try {
    genesisTime = parseRfc3339(String(doc.genesis_time ?? ""));
  } catch (cause) {
    if (cause instanceof TimeFormatError) throw new GenesisError(`${file}: genesis_time: ${cause.message}`, { cause });
    throw cause;
  }
  const initialHeight = int64(doc.initial_height, `${file}: initial_height`, 1n);
  if (initialHeight < 0n) throw new GenesisError(`${file}: initial_height: cannot be negative`);
  // The Cosmos SDK's own format nests params and validators under "consensus"; accept it too.
  const consensus = isObj(doc.consensus) ? doc.consensus : {};
  const consensusParams = paramsOf(doc.consensus_params ?? consensus.params, `${file}: consensus_params`);
  const rawValidators = doc.validators ?? consensus.validators ?? [];
  if (!Array.isArray(rawValidators)) throw new GenesisError(`${file}: validators: expected an array`);
  const validators = rawValidators.map((v: unknown, i): GenesisValidator => {
    const where = `${file}: validators[${i}]`;
    if (!isObj(v)) throw new GenesisError(`${where}: expected an object`);
    const pubKey = pubKeyOf(v.pub_key, `${where}.pub_key`);
    const power = int64(v.power, `${where}.power`, 0n);
    if (power <= 0n) throw new GenesisError(`${where}.power: must be positive`);
    const address = addressOf(pubKey);
    if (
      typeof v.address === "string" &&
      v.address !== "" &&
      v.address.toUpperCase() !== Buffer.from(address).toString("hex").toUpperCase()
    ) {
      throw new GenesisError(`${where}.address: ${v.address} does not match the public key`);
    }
    return { address, pubKey, power, name: typeof v.name === "string" ? v.name : "" };
  });
  const appHashText = typeof doc.app_hash === "string" ? doc.app_hash : "";
  if (!/^([0-9a-fA-F]{2})*$/.test(appHashText)) throw new GenesisError(`${file}: app_hash: expected hex`);
  const appStateBytes =
    doc.app_state === undefined || doc.app_state === null
      ? new Uint8Array(0)
      : new TextEncoder().encode(JSON.stringify(doc.app_state));
  return {
    genesisTime,
    chainId: doc.chain_id,
    initialHeight: initialHeight === 0n ? 1n : initialHeight,
    consensusParams,
    validators,
    appHash: new Uint8Array(Buffer.from(appHashText, "hex")),
    appStateBytes,
    document: doc,
  };
}

/** Reads and parses a genesis file. */
export async function loadGenesis(path: string): Promise<GenesisDoc> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (cause) {
    throw new GenesisError(`cannot read the genesis file ${path}: ${(cause as Error).message}`, { cause });
  }
  return parseGenesis(text, path);
}
