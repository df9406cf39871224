// The SHA-256 of each imported leaf's value, reusing the previous leaf's when the value repeats. Consecutive keys
// of a store often hold the same value — an index's empty one, the same balance or flag under every key of a
// prefix — and a short value compared byte for byte costs a fraction of a hash call (~0.3 µs, nearly all of it
// node:crypto's call overhead).
import { hash } from "node:crypto";
import type { Digest } from "./tree-node.ts";

/** Values up to this long are remembered and compared; a longer one is rarely repeated and costs more to compare. */
const MAX_REMEMBERED = 64;

/** Digests of a stream of values, remembering the last short one. */
export class ValueDigests {
  private readonly last = new Uint8Array(MAX_REMEMBERED);
  /** Length of the remembered value, or -1 when none is. */
  private lastLength = -1;
  private lastDigest: Digest = "";

  /** SHA-256 of `value` as a Digest. */
  of(value: Uint8Array): Digest {
    const n = value.length;
    if (n === this.lastLength && this.sameAsLast(value, n)) return this.lastDigest;
    const digest = hash("sha256", value, "binary");
    if (n <= MAX_REMEMBERED) {
      this.last.set(value);
      this.lastLength = n;
      this.lastDigest = digest;
    } else {
      this.lastLength = -1;
    }
    return digest;
  }

  private sameAsLast(value: Uint8Array, n: number): boolean {
    const last = this.last;
    for (let i = 0; i < n; i++) if (value[i] !== last[i]) return false;
    return true;
  }
}
