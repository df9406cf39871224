// genesis.json in CometBFT's format (docs/CONTRACT.md §1): the CometBFT part is read, checked and written here;
// app_state stays an opaque JSON object that the application checks itself. The checks are CometBFT's
// (types/genesis.go ValidateAndComplete plus the consensus-parameter bounds), reported with the file
// and the field.
import { createHash } from "node:crypto";
import { MAX_VERSION } from "../store/version-limit.ts";
import { writeFileAtomic } from "./atomic-file.ts";
import {
  type ConsensusParams,
  consensusParamsProblems,
  consensusParamsToJson,
  defaultConsensusParams,
} from "./consensus-params.ts";
import { ConfigError } from "./errors.ts";
import { currentBinaryName } from "./home.ts";
import {
  isJsonObject,
  JsonFieldReader,
  type JsonObject,
  type JsonValue,
  parseJsonText,
  readJsonFile,
} from "./json-reader.ts";
import { ed25519Address } from "./node-keys.ts";
import { formatRfc3339, parseRfc3339, type Timestamp, timestampFromDate } from "./rfc3339.ts";

/** CometBFT refuses longer chain IDs. */
export const MAX_CHAIN_ID_LENGTH = 50;

/** A validator public key: the ABCI type name and the raw key bytes. */
export interface GenesisPubKey {
  type: "ed25519" | "secp256k1";
  value: Uint8Array;
}

/** One genesis validator. */
export interface GenesisValidator {
  /** 20 bytes, derived from the public key. */
  address: Uint8Array;
  pubKey: GenesisPubKey;
  power: bigint;
  name: string;
}

/** The genesis document. */
export interface GenesisDoc {
  genesisTime: Timestamp;
  chainId: string;
  /** The first block's height (>= 1; "0" in the file means 1). */
  initialHeight: bigint;
  consensusParams: ConsensusParams;
  validators: GenesisValidator[];
  /** Usually empty. */
  appHash: Uint8Array;
  /** The application's genesis state, unchecked here; undefined when the file has none. */
  appState: JsonObject | undefined;
}

const PUB_KEY_JSON_TYPES = {
  ed25519: "tendermint/PubKeyEd25519",
  secp256k1: "tendermint/PubKeySecp256k1",
} as const;
const PUB_KEY_LENGTHS = { ed25519: 32, secp256k1: 33 } as const;

/** The address CometBFT derives from a validator key: sha256[:20] for ed25519, RIPEMD160(sha256) for secp256k1. */
export function validatorAddress(pubKey: GenesisPubKey): Uint8Array {
  if (pubKey.type === "ed25519") return ed25519Address(pubKey.value);
  const sha = createHash("sha256").update(pubKey.value).digest();
  return new Uint8Array(createHash("ripemd160").update(sha).digest());
}

/** Options of {@link newGenesis}. */
export interface NewGenesisParameters {
  chainId: string;
  /** Default: now (millisecond precision). */
  genesisTime?: Timestamp;
  /** Default: 1. */
  initialHeight?: bigint;
  /** Default: CometBFT v0.38's defaults. */
  consensusParams?: ConsensusParams;
  /** Default: none (the application returns the set from InitChain, e.g. from gentxs). */
  validators?: GenesisValidator[];
  appState?: JsonObject;
}

/** A new genesis document with CometBFT's defaults for everything not given. */
export function newGenesis(parameters: NewGenesisParameters): GenesisDoc {
  return {
    genesisTime: parameters.genesisTime ?? timestampFromDate(new Date()),
    chainId: parameters.chainId,
    initialHeight: parameters.initialHeight ?? 1n,
    consensusParams: parameters.consensusParams ?? defaultConsensusParams(),
    validators: parameters.validators ?? [],
    appHash: new Uint8Array(0),
    appState: parameters.appState ?? {},
  };
}

const HEX_UPPER = (bytes: Uint8Array): string => Buffer.from(bytes).toString("hex").toUpperCase();

/** The JSON object CometBFT writes for a genesis document (64-bit values as strings, hex uppercase). */
export function genesisToJsonObject(doc: GenesisDoc): JsonObject {
  const json: JsonObject = {
    genesis_time: formatRfc3339(doc.genesisTime),
    chain_id: doc.chainId,
    initial_height: doc.initialHeight.toString(),
    consensus_params: consensusParamsToJson(doc.consensusParams),
    validators: doc.validators.map((validator) => ({
      address: HEX_UPPER(validator.address),
      pub_key: {
        type: PUB_KEY_JSON_TYPES[validator.pubKey.type],
        value: Buffer.from(validator.pubKey.value).toString("base64"),
      },
      power: validator.power.toString(),
      name: validator.name,
    })),
    app_hash: HEX_UPPER(doc.appHash),
  };
  if (doc.appState !== undefined) json.app_state = doc.appState;
  return json;
}

/** genesis.json text: two-space indentation, a final newline. */
export function genesisToJson(doc: GenesisDoc): string {
  return `${JSON.stringify(genesisToJsonObject(doc), null, 2)}\n`;
}

/** Parses and checks genesis.json text; every problem is reported with the file and the field. */
export function parseGenesis(text: string, file: string): GenesisDoc {
  return genesisFromJson(parseJsonText(text, file), file);
}

/** Loads and checks a genesis file (usually `homePaths(home).genesis`). */
export async function loadGenesis(file: string): Promise<GenesisDoc> {
  return genesisFromJson(await readJsonFile(file, `run "${currentBinaryName()} init" to create it`), file);
}

/**
 * Checks an in-memory document with the same rules as {@link parseGenesis} and writes it atomically
 * (temp file, fsync, rename), so a crash never leaves a half-written genesis.
 */
export async function saveGenesis(file: string, doc: GenesisDoc): Promise<void> {
  const text = genesisToJson(doc);
  parseGenesis(text, file);
  await writeFileAtomic(file, text, 0o644);
}

/** Checks a document in memory; throws the ConfigError that reading it from `file` would give. */
export function validateGenesis(doc: GenesisDoc, file = "genesis.json"): void {
  parseGenesis(genesisToJson(doc), file);
}

/** Builds a GenesisDoc from parsed JSON, reporting every problem at once. */
export function genesisFromJson(json: JsonValue, file: string): GenesisDoc {
  const read = new JsonFieldReader(file, json);
  if (!isJsonObject(json)) {
    read.problem("", "a JSON object (the genesis document)", json);
    read.finish();
  }

  const chainId = read.string("chain_id", {
    expected: `a non-empty chain ID of at most ${MAX_CHAIN_ID_LENGTH} characters`,
  });
  if (chainId !== undefined && (chainId === "" || chainId.length > MAX_CHAIN_ID_LENGTH)) {
    read.problem("chain_id", `a non-empty chain ID of at most ${MAX_CHAIN_ID_LENGTH} characters`, chainId);
  }

  const timeExpected = 'an RFC 3339 time such as "2025-01-31T12:00:00.123456789Z"';
  const timeText = read.string("genesis_time", { expected: timeExpected });
  const genesisTime = timeText === undefined ? undefined : parseRfc3339(timeText);
  if (timeText !== undefined && genesisTime === undefined) read.problem("genesis_time", timeExpected, timeText);

  // Up to the last height the state store can number (2^53 − 1, src/store/version-limit.ts): a chain that
  // started higher could not commit its first block.
  let initialHeight = read.int64("initial_height", {
    expected: `a height from 1 to ${MAX_VERSION} (2^53 − 1, the highest this node can run; "0" means 1) as a string, e.g. "1"`,
    min: 0n,
    max: MAX_VERSION,
    optional: true,
    fallback: 1n,
  });
  // CometBFT writes "0" for a chain that starts at height 1.
  if (initialHeight === 0n) initialHeight = 1n;

  const consensusParams = readConsensusParams(read);
  const validators = readValidators(read);

  const appHash = read.hex("app_hash", { expected: "the app hash in hex, usually empty", optional: true });
  const appStateRaw = read.get("app_state");
  let appState: JsonObject | undefined;
  if (appStateRaw !== undefined && appStateRaw !== null) {
    if (isJsonObject(appStateRaw)) appState = appStateRaw;
    else read.problem("app_state", "a JSON object (the application's genesis state)", appStateRaw);
  }

  read.finish();
  return {
    genesisTime: genesisTime as Timestamp,
    chainId: chainId as string,
    initialHeight: initialHeight as bigint,
    consensusParams,
    validators,
    appHash: appHash as Uint8Array,
    appState,
  };
}

function readConsensusParams(read: JsonFieldReader): ConsensusParams {
  const defaults = defaultConsensusParams();
  const raw = read.get("consensus_params");
  // CometBFT uses its defaults when the whole object is absent.
  if (raw === undefined || raw === null) return defaults;
  if (!isJsonObject(raw)) {
    read.problem("consensus_params", "an object with block, evidence and validator", raw);
    return defaults;
  }
  const int = (key: string, fallback: bigint, required: boolean): bigint =>
    read.int64(`consensus_params.${key}`, {
      expected: "an integer written as a string",
      optional: !required,
      fallback,
    }) ?? fallback;
  const params: ConsensusParams = {
    block: { maxBytes: int("block.max_bytes", 0n, true), maxGas: int("block.max_gas", 0n, true) },
    evidence: {
      maxAgeNumBlocks: int("evidence.max_age_num_blocks", 0n, true),
      maxAgeDuration: int("evidence.max_age_duration", 0n, true),
      maxBytes: int("evidence.max_bytes", 0n, true),
    },
    validator: { pubKeyTypes: [] },
    // version and abci came later than the rest; files without them mean 0.
    version: { app: int("version.app", 0n, false) },
    abci: { voteExtensionsEnableHeight: int("abci.vote_extensions_enable_height", 0n, false) },
  };
  const types = read.get("consensus_params.validator.pub_key_types");
  if (Array.isArray(types) && types.every((t) => typeof t === "string")) {
    params.validator.pubKeyTypes = types as string[];
  }
  const before = read.problems.length;
  const malformed = new Set(read.problems.slice(0, before).map((p) => p.key));
  for (const problem of consensusParamsProblems(params)) {
    const key = `consensus_params.${problem.key}`;
    // A field already reported as malformed is not reported again as out of range, nor are bounds
    // computed from it.
    const inputs = [problem.key, ...(problem.dependsOn ?? [])].map((k) => `consensus_params.${k}`);
    if (inputs.some((input) => malformed.has(input))) continue;
    read.problem(key, problem.expected, read.get(key));
    malformed.add(key);
  }
  return params;
}

function readValidators(read: JsonFieldReader): GenesisValidator[] {
  const raw = read.get("validators");
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) {
    read.problem("validators", "a list of validators", raw);
    return [];
  }
  const validators: GenesisValidator[] = [];
  raw.forEach((_, index) => {
    const at = `validators[${index}]`;
    if (read.object(at, "an object with address, pub_key, power and name") === undefined) return;
    const typeText = read.string(`${at}.pub_key.type`, {
      expected: `"${PUB_KEY_JSON_TYPES.ed25519}" or "${PUB_KEY_JSON_TYPES.secp256k1}"`,
    });
    let type: GenesisPubKey["type"] | undefined;
    if (typeText === PUB_KEY_JSON_TYPES.ed25519) type = "ed25519";
    else if (typeText === PUB_KEY_JSON_TYPES.secp256k1) type = "secp256k1";
    else if (typeText !== undefined) {
      read.problem(
        `${at}.pub_key.type`,
        `"${PUB_KEY_JSON_TYPES.ed25519}" or "${PUB_KEY_JSON_TYPES.secp256k1}"`,
        typeText,
      );
    }
    const length = type === undefined ? undefined : PUB_KEY_LENGTHS[type];
    const value = read.base64(`${at}.pub_key.value`, {
      expected: `base64 of the ${length ?? 32}-byte public key`,
      length,
    });
    const power = read.int64(`${at}.power`, { expected: 'a positive voting power as a string, e.g. "10"', min: 1n });
    const name = read.string(`${at}.name`, { optional: true, fallback: "" });
    if (type === undefined || value === undefined || power === undefined || name === undefined) return;
    const pubKey: GenesisPubKey = { type, value };
    const derived = validatorAddress(pubKey);
    const givenText = read.get(`${at}.address`);
    if (givenText !== undefined && givenText !== "") {
      const given = read.hex(`${at}.address`, { expected: `the validator's address, "${HEX_UPPER(derived)}"` });
      if (given !== undefined && !Buffer.from(given).equals(derived)) {
        read.problem(`${at}.address`, `the address of pub_key, "${HEX_UPPER(derived)}"`, givenText);
      }
    }
    validators.push({ address: derived, pubKey, power, name });
  });
  return validators;
}

/** Rejects a document whose chain ID differs from the one a command was given (e.g. `--chain-id`). */
export function assertChainId(doc: GenesisDoc, chainId: string, file: string): void {
  if (doc.chainId !== chainId) {
    throw new ConfigError({
      file,
      key: "chain_id",
      expected: JSON.stringify(chainId),
      got: JSON.stringify(doc.chainId),
    });
  }
}
