// Parsed public keys, kept: turning a raw key into an OpenSSL KeyObject costs more than a verify, and a node sees
// the same signers over and over (accounts' keys, a validator set's consensus keys block after block). Bounded,
// the oldest dropped first; a key that does not parse is remembered as null so it is not parsed again.
import { createPublicKey, type KeyObject } from "node:crypto";

/** A bounded cache of public keys parsed from their raw bytes behind one curve's SPKI DER prefix. */
export class SpkiKeyCache {
  private readonly keys = new Map<string, KeyObject | null>();
  private readonly spkiPrefix: Uint8Array;
  private readonly limit: number;

  /**
   * @param spkiPrefix the DER bytes before the raw key in the curve's SubjectPublicKeyInfo
   * @param limit how many keys are kept
   */
  constructor(spkiPrefix: Uint8Array, limit: number) {
    this.spkiPrefix = spkiPrefix;
    this.limit = limit;
  }

  /**
   * The parsed key for `publicKey`, or undefined when OpenSSL refuses it.
   *
   * @example new SpkiKeyCache(ED25519_SPKI_PREFIX, 4096).keyObject(pubKey) // a KeyObject for node:crypto's verify
   */
  keyObject(publicKey: Uint8Array): KeyObject | undefined {
    const cacheKey = Buffer.from(publicKey.buffer, publicKey.byteOffset, publicKey.byteLength).toString("latin1");
    const cached = this.keys.get(cacheKey);
    if (cached !== undefined) return cached ?? undefined;
    let key: KeyObject | null;
    try {
      const der = new Uint8Array(this.spkiPrefix.length + publicKey.length);
      der.set(this.spkiPrefix);
      der.set(publicKey, this.spkiPrefix.length);
      key = createPublicKey({ key: Buffer.from(der.buffer), format: "der", type: "spki" });
    } catch {
      key = null;
    }
    if (this.keys.size >= this.limit) {
      const oldest = this.keys.keys().next();
      if (!oldest.done) this.keys.delete(oldest.value);
    }
    this.keys.set(cacheKey, key);
    return key ?? undefined;
  }
}
