// The last few signatures this process made itself, by exact bytes (public key, message, signature). A validator
// signs its vote extension and, as the next proposer, checks the very same signature again in its own block's
// extended commit: an ed25519 verify costs about three signatures. A signature this process computed with a key over
// a message verifies with that key's public key (ed25519 signing is deterministic and OpenSSL's is correct), so a
// triple found here byte for byte needs no curve math; anything one byte apart — another message, another key, a
// forged or altered signature — is not found and is verified as before.

/** One signature made here: the signer's public key, the message and the signature, copied. */
interface OwnSignature {
  publicKey: Uint8Array;
  message: Uint8Array;
  signature: Uint8Array;
}

/** A bounded memo of signatures this process made; the oldest is dropped first. */
export class OwnSignatures {
  private readonly entries: OwnSignature[] = [];
  private readonly limit: number;

  /** @param limit how many signatures are kept (a validator needs two: its precommit's and its extension's) */
  constructor(limit: number) {
    this.limit = limit;
  }

  /** Records a signature made here; the bytes are copied, so a caller may reuse its buffers. */
  add(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): void {
    if (this.entries.length >= this.limit) this.entries.shift();
    this.entries.push({ publicKey: copy(publicKey), message: copy(message), signature: copy(signature) });
  }

  /**
   * True when exactly this signature of exactly this message by exactly this key was made here.
   *
   * @example memo.add(pub, msg, sig); memo.has(pub, msg, sig) // true; with any byte of the three changed, false
   */
  has(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
    for (let i = this.entries.length - 1; i >= 0; i--) {
      const entry = this.entries[i]!;
      if (same(entry.signature, signature) && same(entry.message, message) && same(entry.publicKey, publicKey)) {
        return true;
      }
    }
    return false;
  }
}

function copy(bytes: Uint8Array): Uint8Array {
  return new Uint8Array(bytes);
}

function same(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  return Buffer.from(a.buffer, a.byteOffset, a.length).equals(Buffer.from(b.buffer, b.byteOffset, b.length));
}
