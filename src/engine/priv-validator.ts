// The validator's signing key with its double-sign guard. The files (config/priv_validator_key.json and
// data/priv_validator_state.json) are read, checked and written by src/config; what is the engine's own is
// the guard: which (height, round, step) may still be signed, and when the state is persisted.
import { type Ed25519Key, ed25519Address, ed25519KeyFromSeed, loadPrivValidatorKey } from "../config/node-keys.ts";
import {
  loadOrCreatePrivValidatorState,
  type PrivValidatorState,
  savePrivValidatorState,
} from "../config/priv-validator-state.ts";
import { type Ed25519Signer, ed25519Signer } from "../crypto/ed25519.ts";
import { UserError } from "../errors/user-error.ts";

/** Raised for a seed of the wrong size, or a signature the guard refuses. */
export class PrivValidatorError extends UserError {
  override name = "PrivValidatorError";
}

/** The last thing signed, as priv_validator_state.json records it (empty bytes before anything was signed). */
export interface LastSignState {
  height: bigint;
  round: number;
  step: number;
  signature: Uint8Array;
  signBytes: Uint8Array;
}

function lastSignStateOf(state: PrivValidatorState): LastSignState {
  const empty = new Uint8Array(0);
  return {
    height: state.height,
    round: state.round,
    step: state.step,
    signature: state.signature ?? empty,
    signBytes: state.signBytes ?? empty,
  };
}

/** An ed25519 validator key with its guard. */
export class PrivValidator {
  readonly pubKey: Uint8Array;
  readonly address: Uint8Array;
  /** The key, parsed once: every precommit and vote extension is signed with it. */
  private readonly signer: Ed25519Signer;
  private readonly statePath: string | undefined;
  private last: LastSignState;

  private constructor(key: Ed25519Key, statePath: string | undefined, last: LastSignState) {
    this.signer = ed25519Signer(key.seed);
    this.pubKey = key.publicKey;
    this.address = ed25519Address(key.publicKey);
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
      ed25519KeyFromSeed(seed.subarray(0, 32)),
      statePath,
      last ?? { height: 0n, round: 0, step: 0, signature: empty, signBytes: empty },
    );
  }

  /** A validator from a seed whose guard state lives in `statePath` (a missing file is created: nothing signed). */
  static async withStateFile(seed: Uint8Array, statePath: string): Promise<PrivValidator> {
    return PrivValidator.fromSeed(seed, statePath, lastSignStateOf(await loadOrCreatePrivValidatorState(statePath)));
  }

  /**
   * Loads priv_validator_key.json and priv_validator_state.json (a missing state file means nothing signed yet).
   * Malformed files are src/config's ConfigError, naming the file and the field.
   */
  static async load(keyPath: string, statePath: string): Promise<PrivValidator> {
    const key = await loadPrivValidatorKey(keyPath);
    return PrivValidator.withStateFile(key.seed, statePath);
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
    const signature = this.signer.sign(signBytes);
    this.last = { height, round, step, signature, signBytes };
    return signature;
  }

  /**
   * Signs a vote extension's sign bytes. No guard, as CometBFT's own validator: the extension is signed with its
   * precommit, which the guard already covers, and signing it again (after a restart) equivocates nothing.
   */
  signVoteExtension(signBytes: Uint8Array): Promise<Uint8Array> {
    // On the thread pool: the signature is needed only by the next proposal, and the engine has a block to finalize.
    return this.signer.signInBackground(signBytes);
  }

  /** Persists the guard state atomically (after the signed commit has been saved). */
  async saveState(): Promise<void> {
    if (this.statePath === undefined) return;
    await savePrivValidatorState(this.statePath, this.last);
  }
}
