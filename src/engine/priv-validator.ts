// The validator's signing key (config/priv_validator_key.json) and its double-sign guard
// (data/priv_validator_state.json), in CometBFT's FilePV JSON formats.
import { createPrivateKey, createPublicKey, sign as edSign, type KeyObject } from "node:crypto";
import { readFile } from "node:fs/promises";
import { writeFileAtomic } from "../config/atomic-file.ts";
import { ed25519Address } from "./hashing/hashes.ts";

/** Raised for a missing or malformed key/state file, or a signature the guard refuses. */
export class PrivValidatorError extends Error {
  override name = "PrivValidatorError";
}

/** CometBFT's sign steps (privval/file.go). */
export const SignStep = { none: 0, propose: 1, prevote: 2, precommit: 3 } as const;

/** The last thing signed, as priv_validator_state.json records it. */
export interface LastSignState {
  height: bigint;
  round: number;
  step: number;
  signature: Uint8Array;
  signBytes: Uint8Array;
}

const PKCS8_ED25519_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");

/** An ed25519 validator key with its guard. */
export class PrivValidator {
  readonly pubKey: Uint8Array;
  readonly address: Uint8Array;
  private readonly key: KeyObject;
  private readonly statePath: string | undefined;
  private last: LastSignState;

  private constructor(seed: Uint8Array, statePath: string | undefined, last: LastSignState) {
    this.key = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]), format: "der", type: "pkcs8" });
    const spki = createPublicKey(this.key).export({ format: "der", type: "spki" });
    this.pubKey = new Uint8Array(spki.subarray(spki.length - 32));
    this.address = ed25519Address(this.pubKey);
    this.statePath = statePath;
    this.last = last;
  }

  /** A validator from a 32-byte seed (or 64-byte seed ‖ pubkey); `statePath` undefined keeps the guard in memory. */
  static fromSeed(seed: Uint8Array, statePath?: string, last?: LastSignState): PrivValidator {
    if (seed.length !== 32 && seed.length !== 64) {
      throw new PrivValidatorError(`an ed25519 private key is 32 or 64 bytes, got ${seed.length}`);
    }
    const empty = new Uint8Array(0);
    return new PrivValidator(
      seed.subarray(0, 32),
      statePath,
      last ?? { height: 0n, round: 0, step: 0, signature: empty, signBytes: empty },
    );
  }

  /** A validator from a seed whose guard state lives in `statePath` (read now; missing means nothing signed). */
  static async withStateFile(seed: Uint8Array, statePath: string): Promise<PrivValidator> {
    return PrivValidator.fromSeed(seed, statePath, await readState(statePath));
  }

  /** Loads priv_validator_key.json and priv_validator_state.json (a missing state file means nothing signed yet). */
  static async load(keyPath: string, statePath: string): Promise<PrivValidator> {
    let doc: { pub_key?: { value?: string }; priv_key?: { type?: string; value?: string }; address?: string };
    try {
      doc = JSON.parse(await readFile(keyPath, "utf8"));
    } catch (cause) {
      throw new PrivValidatorError(`cannot read the validator key ${keyPath}: ${(cause as Error).message}`, { cause });
    }
    if (doc.priv_key?.type !== "tendermint/PrivKeyEd25519" || typeof doc.priv_key.value !== "string") {
      throw new PrivValidatorError(
        `${keyPath}: priv_key: expected {"type":"tendermint/PrivKeyEd25519","value":"<base64 of 64 bytes>"}`,
      );
    }
    const pv = await PrivValidator.withStateFile(new Uint8Array(Buffer.from(doc.priv_key.value, "base64")), statePath);
    const declared = doc.pub_key?.value;
    if (declared !== undefined && declared !== Buffer.from(pv.pubKey).toString("base64")) {
      throw new PrivValidatorError(`${keyPath}: pub_key does not match priv_key`);
    }
    return pv;
  }

  /** The last signed height/round/step. */
  get lastSigned(): LastSignState {
    return this.last;
  }

  /**
   * Signs `signBytes` for (height, round, step) unless the guard forbids it: signing below the last signed
   * height/round/step is refused; re-signing the same step returns the earlier signature when the bytes match.
   */
  sign(height: bigint, round: number, step: number, signBytes: Uint8Array): Uint8Array {
    const l = this.last;
    const regress =
      height < l.height || (height === l.height && (round < l.round || (round === l.round && step < l.step)));
    if (regress) {
      throw new PrivValidatorError(
        `refusing to sign height ${height} round ${round} step ${step}: already signed height ${l.height} round ${l.round} step ${l.step} (data/priv_validator_state.json)`,
      );
    }
    if (height === l.height && round === l.round && step === l.step && Buffer.compare(signBytes, l.signBytes) === 0) {
      return l.signature;
    }
    const signature = new Uint8Array(edSign(null, signBytes, this.key));
    this.last = { height, round, step, signature, signBytes };
    return signature;
  }

  /** Persists the guard state atomically (after the signed commit has been saved). */
  async saveState(): Promise<void> {
    if (this.statePath === undefined) return;
    const l = this.last;
    const doc: Record<string, unknown> = { height: l.height.toString(), round: l.round, step: l.step };
    if (l.signature.length > 0) doc.signature = Buffer.from(l.signature).toString("base64");
    if (l.signBytes.length > 0) doc.signbytes = Buffer.from(l.signBytes).toString("hex").toUpperCase();
    await writeFileAtomic(this.statePath, `${JSON.stringify(doc, null, 2)}\n`, 0o600);
  }
}

async function readState(path: string): Promise<LastSignState> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code === "ENOENT") {
      return { height: 0n, round: 0, step: 0, signature: new Uint8Array(0), signBytes: new Uint8Array(0) };
    }
    throw new PrivValidatorError(`cannot read ${path}: ${(cause as Error).message}`, { cause });
  }
  try {
    const doc = JSON.parse(text) as {
      height?: unknown;
      round?: unknown;
      step?: unknown;
      signature?: unknown;
      signbytes?: unknown;
    };
    return {
      height: BigInt(String(doc.height ?? "0")),
      round: Number(doc.round ?? 0),
      step: Number(doc.step ?? 0),
      signature: new Uint8Array(Buffer.from(typeof doc.signature === "string" ? doc.signature : "", "base64")),
      signBytes: new Uint8Array(Buffer.from(typeof doc.signbytes === "string" ? doc.signbytes : "", "hex")),
    };
  } catch (cause) {
    throw new PrivValidatorError(`${path}: expected {"height":"<n>","round":0,"step":0}: ${(cause as Error).message}`, {
      cause,
    });
  }
}
