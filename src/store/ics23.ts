// ICS-23 commitment proofs (cosmos.ics23.v1 CommitmentProof): the wire encoding of the subset
// the store produces (existence and non-existence proofs) and a verifier for the two specs it
// uses — IAVL for a key inside a module store, Tendermint (RFC 6962 simple merkle) for a store
// root inside the app hash. Field numbers and enum values follow cosmos/ics23 proofs.proto.

import { compareBytes, equalBytes } from "../bytes/compare.ts";
import { sha256 } from "../bytes/sha256.ts";
import { putUvarint, uvarintLength } from "../bytes/varint.ts";
import { ByteReader, ByteWriter, DecodeError } from "./byte-records.ts";

/** HashOp values used here. */
export const HASH_OP = { NO_HASH: 0, SHA256: 1 } as const;
/** LengthOp values used here. */
export const LENGTH_OP = { NO_PREFIX: 0, VAR_PROTO: 1 } as const;

/** ICS-23 LeafOp: how a leaf (key, value) is hashed. */
export interface LeafOp {
  hash: number;
  prehashKey: number;
  prehashValue: number;
  length: number;
  prefix: Uint8Array;
}

/** ICS-23 InnerOp: one step up the tree (prefix ‖ child ‖ suffix). */
export interface InnerOp {
  hash: number;
  prefix: Uint8Array;
  suffix: Uint8Array;
}

/** ICS-23 ExistenceProof: a key, its value, the leaf op and the path to the root. */
export interface ExistenceProof {
  key: Uint8Array;
  value: Uint8Array;
  leaf: LeafOp;
  /** Inner steps from the leaf's parent up to the root. */
  path: InnerOp[];
}

/** ICS-23 NonExistenceProof: the neighbours on either side of an absent key. */
export interface NonExistenceProof {
  key: Uint8Array;
  left: ExistenceProof | undefined;
  right: ExistenceProof | undefined;
}

/** ICS-23 CommitmentProof: an existence or a non-existence proof. */
export type CommitmentProof = { exist: ExistenceProof } | { nonexist: NonExistenceProof };

/** How leaves and inner nodes of one tree shape are hashed (ICS-23 ProofSpec). */
export interface ProofSpec {
  leaf: LeafOp;
  childOrder: number[];
  childSize: number;
  minPrefixLength: number;
  maxPrefixLength: number;
  innerHash: number;
  /** Extra IAVL checks on the varints inside leaf and inner prefixes. */
  iavl: boolean;
}

/** The spec of IAVL trees (module stores). */
export const IAVL_SPEC: ProofSpec = {
  leaf: {
    hash: HASH_OP.SHA256,
    prehashKey: HASH_OP.NO_HASH,
    prehashValue: HASH_OP.SHA256,
    length: LENGTH_OP.VAR_PROTO,
    prefix: new Uint8Array([0]),
  },
  childOrder: [0, 1],
  childSize: 33,
  minPrefixLength: 4,
  maxPrefixLength: 12,
  innerHash: HASH_OP.SHA256,
  iavl: true,
};

/** The spec of CometBFT's simple merkle tree (store roots inside the app hash). */
export const TENDERMINT_SPEC: ProofSpec = {
  leaf: {
    hash: HASH_OP.SHA256,
    prehashKey: HASH_OP.NO_HASH,
    prehashValue: HASH_OP.SHA256,
    length: LENGTH_OP.VAR_PROTO,
    prefix: new Uint8Array([0]),
  },
  childOrder: [0, 1],
  childSize: 32,
  minPrefixLength: 1,
  maxPrefixLength: 1,
  innerHash: HASH_OP.SHA256,
  iavl: false,
};

// ---- encoding -------------------------------------------------------------------------------

function tag(w: ByteWriter, field: number, wire: number): void {
  w.uvarint(field * 8 + wire);
}

function enumField(w: ByteWriter, field: number, value: number): void {
  if (value === 0) return;
  tag(w, field, 0);
  w.uvarint(value);
}

function bytesField(w: ByteWriter, field: number, value: Uint8Array): void {
  if (value.length === 0) return;
  tag(w, field, 2);
  w.lengthPrefixed(value);
}

function messageField(w: ByteWriter, field: number, body: Uint8Array): void {
  tag(w, field, 2);
  w.lengthPrefixed(body);
}

/** Protobuf bytes of a LeafOp. */
export function encodeLeafOp(op: LeafOp): Uint8Array {
  const w = new ByteWriter(32);
  enumField(w, 1, op.hash);
  enumField(w, 2, op.prehashKey);
  enumField(w, 3, op.prehashValue);
  enumField(w, 4, op.length);
  bytesField(w, 5, op.prefix);
  return w.finish();
}

/** Bytes of a length-delimited field with a one-byte tag (fields 1–15), nothing when empty as proto3 omits it. */
function bytesFieldLength(length: number): number {
  return length === 0 ? 0 : 1 + uvarintLength(length) + length;
}

function putBytesField(out: Uint8Array, o: number, field: number, value: Uint8Array): number {
  if (value.length === 0) return o;
  out[o++] = field * 8 + 2;
  o = putUvarint(out, o, value.length);
  out.set(value, o);
  return o + value.length;
}

function innerOpLength(op: InnerOp): number {
  return (
    (op.hash === 0 ? 0 : 1 + uvarintLength(op.hash)) +
    bytesFieldLength(op.prefix.length) +
    bytesFieldLength(op.suffix.length)
  );
}

// The same bytes as a writer of messageFields would give (each inner op a message of its hash enum, prefix and suffix), written into one array of the exact size: a
// proof of a large tree has ~17 inner ops, and an array per op (and per growth of the writer) was a
// large share of a proof's cost.
function encodeExistence(p: ExistenceProof): Uint8Array {
  const leaf = encodeLeafOp(p.leaf);
  let size = bytesFieldLength(p.key.length) + bytesFieldLength(p.value.length) + 1 + uvarintLength(leaf.length);
  size += leaf.length;
  for (const op of p.path) {
    const n = innerOpLength(op);
    size += 1 + uvarintLength(n) + n;
  }
  const out = new Uint8Array(size);
  let o = putBytesField(out, 0, 1, p.key);
  o = putBytesField(out, o, 2, p.value);
  out[o++] = 3 * 8 + 2;
  o = putUvarint(out, o, leaf.length);
  out.set(leaf, o);
  o += leaf.length;
  for (const op of p.path) {
    out[o++] = 4 * 8 + 2;
    o = putUvarint(out, o, innerOpLength(op));
    if (op.hash !== 0) {
      out[o++] = 1 * 8;
      o = putUvarint(out, o, op.hash);
    }
    o = putBytesField(out, o, 2, op.prefix);
    o = putBytesField(out, o, 3, op.suffix);
  }
  return out;
}

function encodeNonExistence(p: NonExistenceProof): Uint8Array {
  const w = new ByteWriter(512);
  bytesField(w, 1, p.key);
  if (p.left !== undefined) messageField(w, 2, encodeExistence(p.left));
  if (p.right !== undefined) messageField(w, 3, encodeExistence(p.right));
  return w.finish();
}

/** Protobuf bytes of a CommitmentProof. */
export function encodeCommitmentProof(proof: CommitmentProof): Uint8Array {
  const field = "exist" in proof ? 1 : 2;
  const body = "exist" in proof ? encodeExistence(proof.exist) : encodeNonExistence(proof.nonexist);
  const out = new Uint8Array(1 + uvarintLength(body.length) + body.length);
  out[0] = field * 8 + 2;
  out.set(body, putUvarint(out, 1, body.length));
  return out;
}

// ---- decoding -------------------------------------------------------------------------------

type FieldVisitor = (field: number, wire: number, r: ByteReader) => void;

function readMessage(bytes: Uint8Array, visit: FieldVisitor): void {
  const r = new ByteReader(bytes);
  while (!r.done) {
    const key = r.uvarint();
    const field = Math.floor(key / 8);
    const wire = key % 8;
    if (field === 0) throw new DecodeError("field number 0");
    visit(field, wire, r);
  }
}

function skip(wire: number, r: ByteReader): void {
  switch (wire) {
    case 0:
      r.uvarint();
      return;
    case 1:
      r.bytes(8);
      return;
    case 2:
      r.lengthPrefixed();
      return;
    case 5:
      r.bytes(4);
      return;
    default:
      throw new DecodeError(`unsupported wire type ${wire}`);
  }
}

function expectWire(actual: number, expected: number): void {
  if (actual !== expected) throw new DecodeError(`wire type ${actual}, expected ${expected}`);
}

function decodeLeafOp(bytes: Uint8Array): LeafOp {
  const op: LeafOp = { hash: 0, prehashKey: 0, prehashValue: 0, length: 0, prefix: new Uint8Array(0) };
  readMessage(bytes, (field, wire, r) => {
    if (field >= 1 && field <= 4) {
      expectWire(wire, 0);
      const v = r.uvarint();
      if (field === 1) op.hash = v;
      else if (field === 2) op.prehashKey = v;
      else if (field === 3) op.prehashValue = v;
      else op.length = v;
    } else if (field === 5) {
      expectWire(wire, 2);
      op.prefix = r.lengthPrefixed();
    } else skip(wire, r);
  });
  return op;
}

function decodeInnerOp(bytes: Uint8Array): InnerOp {
  const op: InnerOp = { hash: 0, prefix: new Uint8Array(0), suffix: new Uint8Array(0) };
  readMessage(bytes, (field, wire, r) => {
    if (field === 1) {
      expectWire(wire, 0);
      op.hash = r.uvarint();
    } else if (field === 2 || field === 3) {
      expectWire(wire, 2);
      if (field === 2) op.prefix = r.lengthPrefixed();
      else op.suffix = r.lengthPrefixed();
    } else skip(wire, r);
  });
  return op;
}

function decodeExistence(bytes: Uint8Array): ExistenceProof {
  const p: ExistenceProof = {
    key: new Uint8Array(0),
    value: new Uint8Array(0),
    leaf: { hash: 0, prehashKey: 0, prehashValue: 0, length: 0, prefix: new Uint8Array(0) },
    path: [],
  };
  let sawLeaf = false;
  readMessage(bytes, (field, wire, r) => {
    if (field >= 1 && field <= 4) {
      expectWire(wire, 2);
      const body = r.lengthPrefixed();
      if (field === 1) p.key = body;
      else if (field === 2) p.value = body;
      else if (field === 3) {
        p.leaf = decodeLeafOp(body);
        sawLeaf = true;
      } else p.path.push(decodeInnerOp(body));
    } else skip(wire, r);
  });
  if (!sawLeaf) throw new DecodeError("existence proof without a leaf op");
  return p;
}

function decodeNonExistence(bytes: Uint8Array): NonExistenceProof {
  const p: NonExistenceProof = { key: new Uint8Array(0), left: undefined, right: undefined };
  readMessage(bytes, (field, wire, r) => {
    if (field >= 1 && field <= 3) {
      expectWire(wire, 2);
      const body = r.lengthPrefixed();
      if (field === 1) p.key = body;
      else if (field === 2) p.left = decodeExistence(body);
      else p.right = decodeExistence(body);
    } else skip(wire, r);
  });
  return p;
}

/** Decodes CommitmentProof bytes holding an existence or non-existence proof. */
export function decodeCommitmentProof(bytes: Uint8Array): CommitmentProof {
  let result: CommitmentProof | undefined;
  readMessage(bytes, (field, wire, r) => {
    if (field === 1 || field === 2) {
      expectWire(wire, 2);
      const body = r.lengthPrefixed();
      result = field === 1 ? { exist: decodeExistence(body) } : { nonexist: decodeNonExistence(body) };
    } else skip(wire, r);
  });
  if (result === undefined)
    throw new DecodeError("commitment proof holds neither an existence nor a non-existence proof");
  return result;
}

// ---- verification ---------------------------------------------------------------------------

function doHash(op: number, data: Uint8Array): Uint8Array {
  if (op === HASH_OP.NO_HASH) return data;
  if (op === HASH_OP.SHA256) return sha256(data);
  throw new DecodeError(`unsupported hash op ${op}`);
}

function lengthPrefix(op: number, data: Uint8Array): Uint8Array {
  if (op === LENGTH_OP.NO_PREFIX) return data;
  if (op === LENGTH_OP.VAR_PROTO) return new ByteWriter(data.length + 5).lengthPrefixed(data).finish();
  throw new DecodeError(`unsupported length op ${op}`);
}

function applyLeaf(op: LeafOp, key: Uint8Array, value: Uint8Array): Uint8Array {
  if (key.length === 0 && op.prehashKey === HASH_OP.NO_HASH) throw new DecodeError("leaf op needs a key");
  const k = lengthPrefix(op.length, doHash(op.prehashKey, key));
  const v = lengthPrefix(op.length, doHash(op.prehashValue, value));
  const w = new ByteWriter(op.prefix.length + k.length + v.length);
  return doHash(op.hash, w.bytes(op.prefix).bytes(k).bytes(v).finish());
}

function applyInner(op: InnerOp, child: Uint8Array): Uint8Array {
  const w = new ByteWriter(op.prefix.length + child.length + op.suffix.length);
  return doHash(op.hash, w.bytes(op.prefix).bytes(child).bytes(op.suffix).finish());
}

/** The root an existence proof commits to. */
export function existenceRoot(p: ExistenceProof): Uint8Array {
  let h = applyLeaf(p.leaf, p.key, p.value);
  for (const op of p.path) h = applyInner(op, h);
  return h;
}

function startsWith(bytes: Uint8Array, prefix: Uint8Array): boolean {
  if (bytes.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (bytes[i] !== prefix[i]) return false;
  return true;
}

/** Reads the zig-zag varints at the start of an IAVL prefix; undefined when malformed. */
function iavlVarints(prefix: Uint8Array, count: number): number[] | undefined {
  try {
    const r = new ByteReader(prefix);
    const out: number[] = [];
    for (let i = 0; i < count; i++) out.push(r.svarint());
    return out;
  } catch {
    return undefined;
  }
}

function checkAgainstSpec(p: ExistenceProof, spec: ProofSpec): boolean {
  const leaf = p.leaf;
  if (
    leaf.hash !== spec.leaf.hash ||
    leaf.prehashKey !== spec.leaf.prehashKey ||
    leaf.prehashValue !== spec.leaf.prehashValue ||
    leaf.length !== spec.leaf.length ||
    !startsWith(leaf.prefix, spec.leaf.prefix)
  ) {
    return false;
  }
  if (spec.iavl) {
    const v = iavlVarints(leaf.prefix, 3);
    if (v === undefined || v[0] !== 0 || v[1] !== 1 || v[2] < 0) return false;
  }
  const maxSuffix = (spec.childOrder.length - 1) * spec.childSize;
  for (let i = 0; i < p.path.length; i++) {
    const op = p.path[i];
    if (op.hash !== spec.innerHash) return false;
    // An inner prefix that could be read as a leaf would let a leaf pose as a node.
    if (startsWith(op.prefix, spec.leaf.prefix)) return false;
    if (op.prefix.length < spec.minPrefixLength) return false;
    if (op.prefix.length > spec.maxPrefixLength + maxSuffix) return false;
    if (op.suffix.length % spec.childSize !== 0 || op.suffix.length > maxSuffix) return false;
    if (spec.iavl) {
      const v = iavlVarints(op.prefix, 3);
      if (v === undefined || v[0] < i + 1 || v[1] < 2 || v[2] < 0) return false;
    }
  }
  return true;
}

/** Which child an inner op steps from (0 = left), or -1 when its padding fits no branch. */
function branchOf(op: InnerOp, spec: ProofSpec): number {
  const n = spec.childOrder.length;
  for (let branch = 0; branch < n; branch++) {
    const minPrefix = branch * spec.childSize + spec.minPrefixLength;
    const maxPrefix = branch * spec.childSize + spec.maxPrefixLength;
    const suffix = (n - 1 - branch) * spec.childSize;
    if (op.prefix.length >= minPrefix && op.prefix.length <= maxPrefix && op.suffix.length === suffix) return branch;
  }
  return -1;
}

function allOnBranch(path: InnerOp[], spec: ProofSpec, branch: number): boolean {
  return path.every((op) => branchOf(op, spec) === branch);
}

function sameOp(a: InnerOp, b: InnerOp): boolean {
  return a.hash === b.hash && equalBytes(a.prefix, b.prefix) && equalBytes(a.suffix, b.suffix);
}

/** True when the leaf of `left` is immediately followed by the leaf of `right` in the tree. */
function areNeighbours(left: InnerOp[], right: InnerOp[], spec: ProofSpec): boolean {
  let l = left.length - 1;
  let r = right.length - 1;
  while (l >= 0 && r >= 0 && sameOp(left[l], right[r])) {
    l--;
    r--;
  }
  if (l < 0 || r < 0) return false;
  // At the node where the paths split, left must step up from child i and right from child i+1 ...
  if (branchOf(left[l], spec) + 1 !== branchOf(right[r], spec) || branchOf(left[l], spec) < 0) return false;
  // ... and below it, left must be the rightmost leaf of its side and right the leftmost of its side.
  return allOnBranch(left.slice(0, l), spec, spec.childOrder.length - 1) && allOnBranch(right.slice(0, r), spec, 0);
}

/** Verifies that `key` = `value` under `root`. */
export function verifyExistence(
  p: ExistenceProof,
  spec: ProofSpec,
  root: Uint8Array,
  key: Uint8Array,
  value: Uint8Array,
): boolean {
  try {
    if (!equalBytes(p.key, key) || !equalBytes(p.value, value)) return false;
    if (!checkAgainstSpec(p, spec)) return false;
    return equalBytes(existenceRoot(p), root);
  } catch {
    return false;
  }
}

/** The root a non-existence proof commits to, or undefined when the proof is not valid for `key`. */
export function nonExistenceRoot(p: NonExistenceProof, spec: ProofSpec, key: Uint8Array): Uint8Array | undefined {
  try {
    if (!equalBytes(p.key, key)) return undefined;
    const { left, right } = p;
    if (left === undefined && right === undefined) return undefined;
    let root: Uint8Array | undefined;
    for (const side of [left, right]) {
      if (side === undefined) continue;
      if (!checkAgainstSpec(side, spec)) return undefined;
      const r = existenceRoot(side);
      if (root !== undefined && !equalBytes(root, r)) return undefined;
      root = r;
    }
    if (left !== undefined && compareBytes(left.key, key) >= 0) return undefined;
    if (right !== undefined && compareBytes(right.key, key) <= 0) return undefined;
    if (left === undefined) {
      if (right === undefined || !allOnBranch(right.path, spec, 0)) return undefined;
    } else if (right === undefined) {
      if (!allOnBranch(left.path, spec, spec.childOrder.length - 1)) return undefined;
    } else if (!areNeighbours(left.path, right.path, spec)) {
      return undefined;
    }
    return root;
  } catch {
    return undefined;
  }
}
