// Reading one version of the commitment tree: lookups by key and by index, and ICS-23 existence
// and non-existence proofs in IAVL's encoding.

import { compareBytes, equalBytes } from "../bytes/compare.ts";
import { type NodeLoader, resolve } from "./avl-tree.ts";
import { ByteWriter } from "./byte-records.ts";
import { type CommitmentProof, type ExistenceProof, HASH_OP, IAVL_SPEC, type InnerOp } from "./ics23.ts";
import { digestBytes, hashOf, type InnerNode, type LeafNode, sizeOf, type TreeNode } from "./tree-node.ts";

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

/** The leaf where a search for `key` ends (the key itself, or a neighbour of where it would be). */
function pathToKey(root: TreeNode, loader: NodeLoader, key: Uint8Array): LeafPath {
  const steps: Step[] = [];
  let index = 0;
  let node = resolve(loader, root);
  while (node.kind === 1) {
    const wentLeft = compareBytes(key, node.key) < 0;
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

function innerOp(step: Step): InnerOp {
  const { node, wentLeft } = step;
  const w = new ByteWriter(80);
  w.svarint(node.height).svarint(node.size).svarint(node.version);
  if (wentLeft) {
    w.uvarint(32);
    return {
      hash: HASH_OP.SHA256,
      prefix: w.finish(),
      suffix: new ByteWriter(33)
        .uvarint(32)
        .bytes(digestBytes(hashOf(node.right)))
        .finish(),
    };
  }
  w.uvarint(32)
    .bytes(digestBytes(hashOf(node.left)))
    .uvarint(32);
  return { hash: HASH_OP.SHA256, prefix: w.finish(), suffix: new Uint8Array(0) };
}

function existence(path: LeafPath, value: Uint8Array): ExistenceProof {
  const ops: InnerOp[] = [];
  for (let i = path.steps.length - 1; i >= 0; i--) ops.push(innerOp(path.steps[i]));
  const prefix = new ByteWriter(12).svarint(0).svarint(1).svarint(path.leaf.version).finish();
  return {
    key: path.leaf.key,
    value,
    leaf: { ...IAVL_SPEC.leaf, prefix },
    path: ops,
  };
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
