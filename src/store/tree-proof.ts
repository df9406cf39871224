// Reading one version of the commitment tree: lookups by key and by index, and ICS-23 existence
// and non-existence proofs in IAVL's encoding.

import { compareBytes, equalBytes } from "../bytes/compare.ts";
import { putUvarint, uvarintLength } from "../bytes/varint.ts";
import { type NodeLoader, resolve } from "./avl-tree.ts";
import { ByteWriter } from "./byte-records.ts";
import { slabBytes } from "./byte-slab.ts";
import {
  type CommitmentProof,
  type ExistenceProof,
  encodeCommitmentProof,
  encodeLeafOp,
  HASH_OP,
  IAVL_SPEC,
  type InnerOp,
} from "./ics23.ts";
import { copyDigest, hashOf, type InnerNode, keyPrefix, type LeafNode, sizeOf, type TreeNode } from "./tree-node.ts";

interface Step {
  node: InnerNode;
  wentLeft: boolean;
}

interface LeafPath {
  leaf: LeafNode;
  /** Steps from the root down. */
  steps: Step[];
  /** Index of the leaf in key order. */
  index: number;
}

/**
 * The leaf where a search for `key` ends (the key itself, or a neighbour of where it would be). Each level
 * compares the key's first 4 bytes with the inner node's (`kp`) first, as a commit's descent does: the
 * inner key's own bytes, another object elsewhere in the heap, are read only on a tie.
 */
function pathToKey(root: TreeNode, loader: NodeLoader, key: Uint8Array): LeafPath {
  const steps: Step[] = [];
  const kp = keyPrefix(key);
  let index = 0;
  let node = resolve(loader, root);
  while (node.kind === 1) {
    const nkp = node.kp;
    const wentLeft = kp < nkp || (kp === nkp && compareBytes(key, node.key) < 0);
    steps.push({ node, wentLeft });
    if (!wentLeft) index += sizeOf(node.left);
    node = resolve(loader, wentLeft ? node.left : node.right);
  }
  return { leaf: node, steps, index };
}

function pathToIndex(root: TreeNode, loader: NodeLoader, index: number): LeafPath {
  const steps: Step[] = [];
  let remaining = index;
  let node = resolve(loader, root);
  while (node.kind === 1) {
    const leftSize = sizeOf(node.left);
    const wentLeft = remaining < leftSize;
    steps.push({ node, wentLeft });
    if (!wentLeft) remaining -= leftSize;
    node = resolve(loader, wentLeft ? node.left : node.right);
  }
  return { leaf: node, steps, index };
}

/** The leaf of `key` in the tree, if present. */
export function findLeaf(root: TreeNode | undefined, loader: NodeLoader, key: Uint8Array): LeafNode | undefined {
  if (root === undefined) return undefined;
  const { leaf } = pathToKey(root, loader, key);
  return equalBytes(leaf.key, key) ? leaf : undefined;
}

const NO_SUFFIX = new Uint8Array(0);

/** Length of a zig-zag varint of a non-negative number (heights, sizes, versions). */
function svarintLength(value: number): number {
  return uvarintLength(value * 2);
}

/** Writes the 32 bytes of a digest string at `offset` (one native call: 32 `charCodeAt` stores were ~10% of a proof). */
const putDigest = copyDigest;

// IAVL's inner op: prefix = svarint(height) svarint(size) svarint(version) then the left child's hash
// (length-prefixed) when the path goes right, and the right child's hash as the suffix when it goes left.
// Built straight into arrays of their exact length: proofs of a large tree make ~17 of these each, and
// growable writers (an array per writer, another per copy out) were most of a proof's cost.
function innerOp(step: Step): InnerOp {
  const { node, wentLeft } = step;
  const head = svarintLength(node.height) + svarintLength(node.size) + svarintLength(node.version) + 1;
  const prefix = new Uint8Array(wentLeft ? head : head + 33);
  let o = putUvarint(prefix, 0, node.height * 2);
  o = putUvarint(prefix, o, node.size * 2);
  o = putUvarint(prefix, o, node.version * 2);
  prefix[o++] = 32;
  if (wentLeft) {
    const suffix = new Uint8Array(33);
    suffix[0] = 32;
    putDigest(suffix, 1, hashOf(node.right));
    return { hash: HASH_OP.SHA256, prefix, suffix };
  }
  putDigest(prefix, o, hashOf(node.left));
  prefix[o + 32] = 32;
  return { hash: HASH_OP.SHA256, prefix, suffix: NO_SUFFIX };
}

function leafPrefix(leaf: LeafNode): Uint8Array {
  return new ByteWriter(12).svarint(0).svarint(1).svarint(leaf.version).finish();
}

function existence(path: LeafPath, value: Uint8Array): ExistenceProof {
  const ops: InnerOp[] = [];
  for (let i = path.steps.length - 1; i >= 0; i--) ops.push(innerOp(path.steps[i]));
  return {
    key: path.leaf.key,
    value,
    leaf: { ...IAVL_SPEC.leaf, prefix: leafPrefix(path.leaf) },
    path: ops,
  };
}

// ---- an existence proof written straight from its path ------------------------------------------
// The same bytes as encodeCommitmentProof({ exist: existence(path, value) }) (proofs.test.ts checks them
// against it), without an InnerOp, a prefix array and a suffix array per level to copy out again: those
// were ~40% of a proof at latest on a 100k-key store.

/** Bytes of a length-delimited field with a one-byte tag, nothing when empty (proto3 omits it). */
function fieldLength(length: number): number {
  return length === 0 ? 0 : 1 + uvarintLength(length) + length;
}

function putField(out: Uint8Array, o: number, tag: number, value: Uint8Array): number {
  if (value.length === 0) return o;
  out[o++] = tag;
  o = putUvarint(out, o, value.length);
  out.set(value, o);
  return o + value.length;
}

/** Length of a step's inner op prefix: svarint(height) svarint(size) svarint(version), 32, and the left hash and 32 going right. */
function innerPrefixLength(step: Step): number {
  const { node } = step;
  const head = svarintLength(node.height) + svarintLength(node.size) + svarintLength(node.version) + 1;
  return step.wentLeft ? head : head + 33;
}

/** Length of a step's InnerOp message: hash = SHA256, the prefix, and the suffix (32, the right hash) going left. */
function innerOpMessageLength(prefixLength: number, wentLeft: boolean): number {
  return 2 + 1 + uvarintLength(prefixLength) + prefixLength + (wentLeft ? 35 : 0);
}

function putInnerOp(out: Uint8Array, o: number, step: Step): number {
  const { node, wentLeft } = step;
  const prefixLength = innerPrefixLength(step);
  out[o++] = 4 * 8 + 2; // ExistenceProof.path
  o = putUvarint(out, o, innerOpMessageLength(prefixLength, wentLeft));
  out[o++] = 1 * 8; // InnerOp.hash
  out[o++] = HASH_OP.SHA256;
  out[o++] = 2 * 8 + 2; // InnerOp.prefix
  o = putUvarint(out, o, prefixLength);
  o = putUvarint(out, o, node.height * 2);
  o = putUvarint(out, o, node.size * 2);
  o = putUvarint(out, o, node.version * 2);
  out[o++] = 32;
  if (wentLeft) {
    out[o++] = 3 * 8 + 2; // InnerOp.suffix
    out[o++] = 33;
    out[o++] = 32;
    putDigest(out, o, hashOf(node.right));
    return o + 32;
  }
  putDigest(out, o, hashOf(node.left));
  out[o + 32] = 32;
  return o + 33;
}

/** encodeCommitmentProof({ exist: existence(path, value) }), written into one array of its exact length. */
function encodeExistencePath(path: LeafPath, value: Uint8Array): Uint8Array {
  const key = path.leaf.key;
  const leaf = encodeLeafOp({ ...IAVL_SPEC.leaf, prefix: leafPrefix(path.leaf) });
  let body = fieldLength(key.length) + fieldLength(value.length) + fieldLength(leaf.length);
  for (const step of path.steps) {
    const n = innerOpMessageLength(innerPrefixLength(step), step.wentLeft);
    body += 1 + uvarintLength(n) + n;
  }
  const out = slabBytes(1 + uvarintLength(body) + body);
  out[0] = 1 * 8 + 2; // CommitmentProof.exist
  let o = putUvarint(out, 1, body);
  o = putField(out, o, 1 * 8 + 2, key);
  o = putField(out, o, 2 * 8 + 2, value);
  o = putField(out, o, 3 * 8 + 2, leaf);
  for (let i = path.steps.length - 1; i >= 0; i--) o = putInnerOp(out, o, path.steps[i]);
  return out;
}

/**
 * `encodeCommitmentProof(proveKey(...))`: an existence proof is written straight from the key's path;
 * a non-existence proof (two neighbours' paths) goes through proveKey.
 */
export function proveKeyEncoded(
  root: TreeNode | undefined,
  loader: NodeLoader,
  key: Uint8Array,
  valueAt: (key: Uint8Array) => Uint8Array,
): Uint8Array {
  if (root !== undefined) {
    const found = pathToKey(root, loader, key);
    if (equalBytes(found.leaf.key, key)) return encodeExistencePath(found, valueAt(key));
  }
  return encodeCommitmentProof(proveKey(root, loader, key, valueAt));
}

/**
 * An ICS-23 proof that `key` is in the tree (with its value) or is not. `valueAt` returns the
 * value of a key present in this version (the tree holds only value hashes). An empty tree
 * gives a non-existence proof with neither neighbour (valid only against the empty root).
 */
export function proveKey(
  root: TreeNode | undefined,
  loader: NodeLoader,
  key: Uint8Array,
  valueAt: (key: Uint8Array) => Uint8Array,
): CommitmentProof {
  if (root === undefined) return { nonexist: { key, left: undefined, right: undefined } };
  const found = pathToKey(root, loader, key);
  if (equalBytes(found.leaf.key, key)) return { exist: existence(found, valueAt(key)) };
  const total = sizeOf(root);
  let left: LeafPath | undefined;
  let right: LeafPath | undefined;
  if (compareBytes(found.leaf.key, key) < 0) {
    left = found;
    if (found.index + 1 < total) right = pathToIndex(root, loader, found.index + 1);
  } else {
    right = found;
    if (found.index > 0) left = pathToIndex(root, loader, found.index - 1);
  }
  return {
    nonexist: {
      key,
      left: left === undefined ? undefined : existence(left, valueAt(left.leaf.key)),
      right: right === undefined ? undefined : existence(right, valueAt(right.leaf.key)),
    },
  };
}
