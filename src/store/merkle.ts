// RFC 6962 merkle root as CometBFT computes it (leaf = sha256(0x00‖item), inner =
// sha256(0x01‖left‖right), split at the largest power of two below n), and the app hash over
// (store name, store root) pairs encoded as CometBFT's simple-map KV pairs.
import { ByteWriter, concatBytes, utf8 } from "./bytes.ts";
import { EMPTY_HASH, sha256 } from "./hash.ts";

const LEAF_PREFIX = new Uint8Array([0]);
const INNER_PREFIX = new Uint8Array([1]);

/** Largest power of two strictly below n (n ≥ 2). */
function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/** The RFC 6962 root of `items` (sha256 of nothing for no items). */
export function merkleRoot(items: Uint8Array[]): Uint8Array {
  return rootOf(items, 0, items.length);
}

function rootOf(items: Uint8Array[], from: number, to: number): Uint8Array {
  const n = to - from;
  if (n === 0) return EMPTY_HASH;
  if (n === 1) return sha256(concatBytes(LEAF_PREFIX, items[from]));
  const k = splitPoint(n);
  return sha256(concatBytes(INNER_PREFIX, rootOf(items, from, from + k), rootOf(items, from + k, to)));
}

/** One step of a merkle path, as an ICS-23 inner op: hash(prefix ‖ child ‖ suffix). */
export interface MerkleStep {
  prefix: Uint8Array;
  suffix: Uint8Array;
}

/** The steps from item `index` up to the root, leaf side first. */
export function merklePath(items: Uint8Array[], index: number): MerkleStep[] {
  const steps: MerkleStep[] = [];
  let from = 0;
  let to = items.length;
  const stack: MerkleStep[] = [];
  while (to - from > 1) {
    const k = splitPoint(to - from);
    if (index < from + k) {
      stack.push({ prefix: INNER_PREFIX, suffix: rootOf(items, from + k, to) });
      to = from + k;
    } else {
      stack.push({ prefix: concatBytes(INNER_PREFIX, rootOf(items, from, from + k)), suffix: new Uint8Array(0) });
      from = from + k;
    }
  }
  for (let i = stack.length - 1; i >= 0; i--) steps.push(stack[i]);
  return steps;
}

/**
 * The simple-map item of one store: uvarint(len name) name uvarint(32) sha256(storeRoot). Its
 * RFC 6962 leaf is what an ICS-23 proof under the Tendermint spec recomputes from (name, root).
 */
export function storeLeafItem(name: string, storeRoot: Uint8Array): Uint8Array {
  const nameBytes = utf8(name);
  const w = new ByteWriter(nameBytes.length + 40);
  w.lengthPrefixed(nameBytes).lengthPrefixed(sha256(storeRoot));
  return w.finish();
}

/** Items for the app hash, sorted by store name (bytewise on UTF-8, as Go sorts strings). */
export function appHashItems(roots: { name: string; root: Uint8Array }[]): { names: string[]; items: Uint8Array[] } {
  const sorted = [...roots].sort((a, b) => Buffer.compare(utf8(a.name), utf8(b.name)));
  return { names: sorted.map((r) => r.name), items: sorted.map((r) => storeLeafItem(r.name, r.root)) };
}

/** The app hash: RFC 6962 root over the stores' simple-map items, sorted by name. */
export function appHash(roots: { name: string; root: Uint8Array }[]): Uint8Array {
  return merkleRoot(appHashItems(roots).items);
}
