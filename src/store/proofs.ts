// Store proofs in upstream's ProofOps form: [ics23:iavl (the key in its module store),
// ics23:simple (the store's root in the app hash)], each op's data a CommitmentProof, and a
// verifier that recomputes the app hash from them and rejects anything that does not match.

import { equalBytes } from "../bytes/compare.ts";
import { fromUtf8, utf8 } from "../bytes/text.ts";
import type { MerkleStep } from "../crypto/merkle.ts";
import type { NodeLoader } from "./avl-tree.ts";
import { slabCopy } from "./byte-slab.ts";
import { EMPTY_HASH } from "./hash.ts";
import {
  type CommitmentProof,
  decodeCommitmentProof,
  encodeCommitmentProof,
  existenceRoot,
  HASH_OP,
  IAVL_SPEC,
  nonExistenceRoot,
  TENDERMINT_SPEC,
  verifyExistence,
} from "./ics23.ts";
import type { TreeNode } from "./tree-node.ts";
import { proveKeyEncoded } from "./tree-proof.ts";
import type { ProofOpLike, StoreProof } from "./types.ts";

/** ProofOp type of a key inside a module store (IAVL spec). */
export const PROOF_OP_IAVL = "ics23:iavl";
/** ProofOp type of a store root inside the app hash (Tendermint spec). */
export const PROOF_OP_SIMPLE = "ics23:simple";

/** Everything needed to prove one key of one store at one version. */
export interface ProveParameters {
  storeName: string;
  key: Uint8Array;
  value: Uint8Array | undefined;
  version: bigint;
  root: TreeNode | undefined;
  rootHash: Uint8Array;
  loader: NodeLoader;
  valueAt: (key: Uint8Array) => Uint8Array;
  /** The second op (`storeRootOp`): the same for every key of the store at this version. */
  storeOp: ProofOpLike;
}

/**
 * The `ics23:simple` op: the store's root (`rootHash`) under its name in the app hash, given the path of
 * the store's item in the app hash tree. Every proof of the store at one version carries the same one, so
 * the multistore builds it once per version and store and hands each proof a copy.
 */
export function storeRootOp(storeName: string, rootHash: Uint8Array, storePath: MerkleStep[]): ProofOpLike {
  const nameBytes = utf8(storeName);
  const multistoreProof: CommitmentProof = {
    exist: {
      key: nameBytes,
      value: rootHash,
      leaf: TENDERMINT_SPEC.leaf,
      path: storePath.map((s) => ({ hash: HASH_OP.SHA256, prefix: s.prefix, suffix: s.suffix })),
    },
  };
  return { type: PROOF_OP_SIMPLE, key: nameBytes, data: encodeCommitmentProof(multistoreProof) };
}

/** Builds the two proof ops for a key (existence when it has a value, else non-existence). */
export function proveMultistore(p: ProveParameters): StoreProof {
  const ops: ProofOpLike[] = [
    { type: PROOF_OP_IAVL, key: p.key, data: proveKeyEncoded(p.root, p.loader, p.key, p.valueAt) },
    // Copies: a caller may change what it was handed without reaching the next proof's op.
    { type: PROOF_OP_SIMPLE, key: p.storeOp.key.slice(), data: slabCopy(p.storeOp.data) },
  ];
  return { storeName: p.storeName, key: p.key, value: p.value, version: p.version, ops };
}

/** The store root the first op commits to, or undefined when it does not prove the claim. */
function storeRootOf(proof: StoreProof, op: ProofOpLike): Uint8Array | undefined {
  if (op.type !== PROOF_OP_IAVL || !equalBytes(op.key, proof.key)) return undefined;
  const decoded = decodeCommitmentProof(op.data);
  if (proof.value !== undefined) {
    if (!("exist" in decoded)) return undefined;
    const root = existenceRoot(decoded.exist);
    return verifyExistence(decoded.exist, IAVL_SPEC, root, proof.key, proof.value) ? root : undefined;
  }
  if (!("nonexist" in decoded)) return undefined;
  const { left, right, key } = decoded.nonexist;
  // An empty store has no neighbours to show; its root must then be the empty hash (checked by op 2).
  if (left === undefined && right === undefined) return equalBytes(key, proof.key) ? EMPTY_HASH : undefined;
  return nonExistenceRoot(decoded.nonexist, IAVL_SPEC, proof.key);
}

/**
 * Verifies a store proof against an app hash: the key's presence with exactly `proof.value` (or
 * its absence) in store `proof.storeName`, and that store's root in `appHash`. Never throws.
 */
export function verifyStoreProof(proof: StoreProof, appHash: Uint8Array): boolean {
  try {
    if (proof.ops.length !== 2) return false;
    const [storeOp, multistoreOp] = proof.ops;
    const storeRoot = storeRootOf(proof, storeOp);
    if (storeRoot === undefined) return false;
    if (multistoreOp.type !== PROOF_OP_SIMPLE || fromUtf8(multistoreOp.key) !== proof.storeName) return false;
    const decoded = decodeCommitmentProof(multistoreOp.data);
    if (!("exist" in decoded)) return false;
    return verifyExistence(decoded.exist, TENDERMINT_SPEC, appHash, multistoreOp.key, storeRoot);
  } catch {
    return false;
  }
}
