// data/priv_validator_state.json: the last height, round and step the validator signed. It is the
// double-sign guard, so it is written atomically before a signature leaves the process, and a
// malformed file stops the node instead of being reset.
import { access } from "node:fs/promises";
import { writeFileAtomic } from "./atomic-file.ts";
import { currentBinaryName } from "./home.ts";
import { JsonFieldReader, type JsonObject, type JsonValue, parseJsonText, readJsonFile } from "./json-reader.ts";

/** The signing steps in CometBFT's numbering (0 before anything was signed). */
export const SIGN_STEP = { none: 0, propose: 1, prevote: 2, precommit: 3 } as const;

/** The last signature made, as CometBFT's FilePVLastSignState holds it. */
export interface PrivValidatorState {
  height: bigint;
  round: number;
  /** 0 none, 1 propose, 2 prevote, 3 precommit. */
  step: number;
  /** The last signature, when one was made. */
  signature?: Uint8Array;
  /** The bytes that were signed, when one was made. */
  signBytes?: Uint8Array;
}

/** The state of a validator that never signed: `{"height":"0","round":0,"step":0}`. */
export function initialPrivValidatorState(): PrivValidatorState {
  return { height: 0n, round: 0, step: SIGN_STEP.none };
}

/** priv_validator_state.json text, laid out as CometBFT writes it (empty signature fields left out). */
export function privValidatorStateToJson(state: PrivValidatorState): string {
  const json: JsonObject = { height: state.height.toString(), round: state.round, step: state.step };
  if (state.signature !== undefined && state.signature.length > 0) {
    json.signature = Buffer.from(state.signature).toString("base64");
  }
  if (state.signBytes !== undefined && state.signBytes.length > 0) {
    json.signbytes = Buffer.from(state.signBytes).toString("hex").toUpperCase();
  }
  return JSON.stringify(json, null, 2);
}

function stateFromJson(json: JsonValue, file: string): PrivValidatorState {
  const read = new JsonFieldReader(file, json);
  if (read.object("", "a JSON object with height, round and step") === undefined) read.finish();
  const height = read.int64("height", { expected: 'a non-negative height as a string, e.g. "0"', min: 0n });
  const round = read.smallInt("round", { expected: "a non-negative integer", min: 0, max: 2147483647 });
  const step = read.smallInt("step", { expected: "0, 1, 2 or 3 (none, propose, prevote, precommit)", min: 0, max: 3 });
  const state: PrivValidatorState = { height: height ?? 0n, round: round ?? 0, step: step ?? 0 };
  if (read.get("signature") !== undefined && read.get("signature") !== null) {
    const signature = read.base64("signature", { expected: "a base64 signature" });
    if (signature !== undefined) state.signature = signature;
  }
  if (read.get("signbytes") !== undefined && read.get("signbytes") !== null) {
    const signBytes = read.hex("signbytes", { expected: "the signed bytes in hex" });
    if (signBytes !== undefined) state.signBytes = signBytes;
  }
  read.finish();
  return state;
}

/** Parses and checks priv_validator_state.json text. */
export function parsePrivValidatorState(text: string, file: string): PrivValidatorState {
  return stateFromJson(parseJsonText(text, file), file);
}

/** Loads priv_validator_state.json; a malformed file is a ConfigError naming the file and field. */
export async function loadPrivValidatorState(file: string): Promise<PrivValidatorState> {
  return stateFromJson(await readJsonFile(file, `run "${currentBinaryName()} init" to create it`), file);
}

/** Writes priv_validator_state.json atomically (owner-only), as must happen before each signature is used. */
export async function savePrivValidatorState(file: string, state: PrivValidatorState): Promise<void> {
  await writeFileAtomic(file, privValidatorStateToJson(state), 0o600);
}

/** Loads the state, or writes and returns the initial one when the file does not exist. */
export async function loadOrCreatePrivValidatorState(file: string): Promise<PrivValidatorState> {
  try {
    await access(file);
  } catch {
    const state = initialPrivValidatorState();
    await savePrivValidatorState(file, state);
    return state;
  }
  return loadPrivValidatorState(file);
}
