// RFC 6962 Merkle tree with SHA-256, as CometBFT's crypto/merkle builds it: leaves and inner nodes carry domain
// prefixes 0x00 and 0x01, the split point is the largest power of two strictly below n, and the root of an
// empty list is SHA-256 of nothing (no prefix). The one implementation: the engine's block hashes and proofs and the
// store's app hash and ICS-23 paths all use it.
import { concatBytes } from "../bytes/concat.ts";
import { sha256 } from "../bytes/sha256.ts";

const LEAF_PREFIX = Uint8Array.of(0);
const INNER_PREFIX = Uint8Array.of(1);

/** The hash of one leaf: SHA-256(0x00 ‖ item). */
export function leafHash(item: Uint8Array): Uint8Array {
  return sha256(LEAF_PREFIX, item);
}

/** The hash of an inner node: SHA-256(0x01 ‖ left ‖ right). */
export function innerHash(left: Uint8Array, right: Uint8Array): Uint8Array {
  return sha256(INNER_PREFIX, left, right);
}

/** The largest power of two strictly less than n (n ≥ 2). */
export function splitPoint(n: number): number {
  if (n < 2) throw new RangeError(`splitPoint needs at least 2 items, got ${n}`);
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

function rootOfRange(items: readonly Uint8Array[], start: number, end: number): Uint8Array {
  const n = end - start;
  if (n === 1) return leafHash(items[start]);
  const k = splitPoint(n);
  return innerHash(rootOfRange(items, start, start + k), rootOfRange(items, start + k, end));
}

/** The Merkle root of a list of byte slices (CometBFT `merkle.HashFromByteSlices`). */
export function merkleRoot(items: readonly Uint8Array[]): Uint8Array {
  if (items.length === 0) return sha256();
  return rootOfRange(items, 0, items.length);
}

/** One step of a merkle path, as an ICS-23 inner op: hash(prefix ‖ child ‖ suffix). */
export interface MerkleStep {
  prefix: Uint8Array;
  suffix: Uint8Array;
}

/** The steps from item `index` up to the root, leaf side first (the store's ICS-23 proofs of a store's root). */
export function merklePath(items: readonly Uint8Array[], index: number): MerkleStep[] {
  const stack: MerkleStep[] = [];
  let from = 0;
  let to = items.length;
  while (to - from > 1) {
    const k = splitPoint(to - from);
    if (index < from + k) {
      stack.push({ prefix: INNER_PREFIX, suffix: rootOfRange(items, from + k, to) });
      to = from + k;
    } else {
      stack.push({ prefix: concatBytes(INNER_PREFIX, rootOfRange(items, from, from + k)), suffix: new Uint8Array(0) });
      from = from + k;
    }
  }
  return stack.reverse();
}

/** A Merkle inclusion proof in CometBFT's shape (`merkle.Proof`): sibling hashes from the leaf up. */
export interface MerkleProof {
  total: number;
  index: number;
  leafHash: Uint8Array;
  aunts: Uint8Array[];
}

function auntsOf(items: readonly Uint8Array[], start: number, end: number, index: number): Uint8Array[] {
  const n = end - start;
  if (n === 1) return [];
  const k = splitPoint(n);
  if (index < start + k) {
    return [...auntsOf(items, start, start + k, index), rootOfRange(items, start + k, end)];
  }
  return [...auntsOf(items, start + k, end, index), rootOfRange(items, start, start + k)];
}

/** The inclusion proof of item `index` (CometBFT `merkle.ProofsFromByteSlices`, one entry). */
export function merkleProof(items: readonly Uint8Array[], index: number): MerkleProof {
  if (index < 0 || index >= items.length) {
    throw new RangeError(`proof index ${index} is outside the ${items.length} items`);
  }
  return {
    total: items.length,
    index,
    leafHash: leafHash(items[index]),
    aunts: auntsOf(items, 0, items.length, index),
  };
}

/** Recomputes the root from a proof; used by tests and by anyone checking `/tx?prove=true` answers. */
export function rootFromProof(proof: MerkleProof): Uint8Array {
  const walk = (index: number, total: number, leaf: Uint8Array, aunts: Uint8Array[]): Uint8Array => {
    if (total === 1) {
      if (aunts.length !== 0) throw new Error("proof has more aunts than the tree is deep");
      return leaf;
    }
    const k = splitPoint(total);
    const last = aunts[aunts.length - 1];
    if (last === undefined) throw new Error("proof has fewer aunts than the tree is deep");
    const rest = aunts.slice(0, -1);
    if (index < k) return innerHash(walk(index, k, leaf, rest), last);
    return innerHash(last, walk(index - k, total - k, leaf, rest));
  };
  return walk(proof.index, proof.total, proof.leafHash, proof.aunts);
}
