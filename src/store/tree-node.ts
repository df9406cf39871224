// Nodes of the commitment tree (an IAVL-style AVL+ tree), their hashes and their records on disk.
//
// Hashing follows IAVL so that proofs are ICS-23 proofs under the standard IAVL spec:
//   leaf  = sha256(svarint(0) svarint(1) svarint(version) uvarint(len key) key uvarint(32) sha256(value))
//   inner = sha256(svarint(height) svarint(size) svarint(version) uvarint(32) leftHash uvarint(32) rightHash)
// (svarint = zig-zag varint, uvarint = protobuf varint.)
//
// Leaves are never stored on their own: a leaf lives inline in its parent's record (or in the
// commit info when the tree has one key). An inner node record holds, for each child, either the
// leaf (key, version, write number, hash) or a reference to the child's record plus its height,
// size and hash, so a path can be rebuilt and rehashed without loading the siblings.
//
// In memory a node's hash is a Digest: the 32 bytes as a one-byte-per-char ("binary") string, which
// node:crypto's hash() returns directly. A 32-char string takes ~50 bytes of V8 heap where a
// Uint8Array(32) takes ~250 (typed array, buffer, backing store): a 10k-write commit creates up
// to ~60k hashes that live on in the node cache, so this is most of what the garbage collector
// copies per commit. Bytes go to and from disk and proofs through digestBytes / digestAt.

import { hash } from "node:crypto";
import { equalBytes } from "../bytes/compare.ts";
import { binaryStringAt } from "../bytes/text.ts";
import { putUvarint, uvarintLength } from "../bytes/varint.ts";
import { type Arena, ByteReader, type ByteWriter } from "./byte-records.ts";
import { ByteSlab } from "./byte-slab.ts";

/** A SHA-256 digest as a 32-char binary string (one char per byte, each < 256). */
export type Digest = string;

/** The bytes of a digest (a fresh array). */
export function digestBytes(digest: Digest): Uint8Array {
  const out = new Uint8Array(32);
  for (let i = 0; i < 32; i++) out[i] = digest.charCodeAt(i);
  return out;
}

/** The digest of the 32 bytes at `offset` of `bytes`. */
export function digestAt(bytes: Uint8Array, offset: number): Digest {
  return binaryStringAt(bytes, offset, offset + 32);
}

/** The digest of 32 bytes. */
export function toDigest(bytes: Uint8Array): Digest {
  if (bytes.length !== 32) throw new Error(`a SHA-256 digest has 32 bytes, got ${bytes.length}`);
  return digestAt(bytes, 0);
}

/**
 * A Buffer with Node's (undocumented, untyped) `latin1Write`: the hash inputs and pages are assembled in
 * such buffers so a digest string goes in with one native call (~25 ns) rather than 32 `charCodeAt`
 * stores (~60 ns); a commit writes ~4 digests per new node.
 */
type ScratchBuffer = Buffer & { latin1Write(text: string, offset: number, length: number): number };

function scratchBuffer(size: number): ScratchBuffer {
  return Buffer.alloc(size) as ScratchBuffer;
}

/** Whether this Node's Buffer has `latin1Write` (it is not public API): else digests are copied byte by byte. */
const HAS_LATIN1_WRITE = typeof (Buffer.prototype as Partial<ScratchBuffer>).latin1Write === "function";

const latin1Write = (Buffer.prototype as Partial<ScratchBuffer>).latin1Write;

/**
 * Writes a digest's 32 bytes at `offset` of any byte array (a proof's output): Node's `latin1Write` takes a
 * plain Uint8Array as its receiver, so a proof's ~17 digests go in with one native call each, as a commit's do.
 */
export function copyDigest(out: Uint8Array, offset: number, digest: Digest): void {
  if (latin1Write !== undefined) latin1Write.call(out, digest, offset, 32);
  else for (let i = 0; i < 32; i++) out[offset + i] = digest.charCodeAt(i);
}

/** Writes a digest's 32 bytes at `offset` of `buf`; returns the offset after them. */
function putDigest(buf: ScratchBuffer, offset: number, digest: Digest): number {
  if (HAS_LATIN1_WRITE) buf.latin1Write(digest, offset, 32);
  else for (let i = 0; i < 32; i++) buf[offset + i] = digest.charCodeAt(i);
  return offset + 32;
}

/** SHA-256 of `input` as a digest string: one native call, no array allocated for the result. */
function digestOf(input: Uint8Array): Digest {
  return hash("sha256", input, "binary");
}

/** A key with its last write: IAVL's leaf. `writeNo` numbers the key's writes (flat history). */
export interface LeafNode {
  readonly kind: 0;
  readonly key: Uint8Array;
  /** Version of the last write (part of the hash). */
  readonly version: number;
  /** 1 for the first write of the key, then +1 per write (set or delete). Not hashed. */
  writeNo: number;
  /** Written once, by whoever hashes the leaf (LeafHasher may do it after the leaf is in the tree). */
  hash: Digest;
}

/** An inner node: loaded from disk (ref ≥ 0, immutable) or new in the working tree (ref = -1). */
export interface InnerNode {
  readonly kind: 1;
  height: number;
  size: number;
  version: number;
  /** The smallest key of the right subtree (IAVL's inner key): keys < key go left. */
  key: Uint8Array;
  /** keyPrefix(key): a descent compares it first and reads the key's bytes only on a tie. */
  kp: number;
  left: TreeNode;
  right: TreeNode;
  /** Undefined while the node is new and not hashed yet. */
  hash: Digest | undefined;
  /** Packed (version, seq) of the node's record, or -1 for a node not persisted yet. */
  ref: number;
}

/** A persisted inner node that has not been loaded: enough to hash and balance around it. */
export interface StubNode {
  readonly kind: 2;
  readonly ref: number;
  readonly hash: Digest;
  readonly height: number;
  readonly size: number;
}

export type TreeNode = LeafNode | InnerNode | StubNode;

/** Bits of a packed node reference used for the sequence number within a version. */
const SEQ_BITS = 23;
const SEQ_SCALE = 2 ** SEQ_BITS;
/** Most nodes one store can create in one version. */
export const MAX_NODES_PER_VERSION = SEQ_SCALE;

/** Packs a node's (version, seq) into one number (exact below 2^53). */
export function packRef(version: number, seq: number): number {
  return version * SEQ_SCALE + seq;
}

/** The version of a packed reference. */
export function refVersion(ref: number): number {
  return Math.floor(ref / SEQ_SCALE);
}

/** The sequence number of a packed reference. */
export function refSeq(ref: number): number {
  // Not ref % SEQ_SCALE: a remainder of doubles is a C call (~3× the cost); this is exact below 2^53.
  return ref - Math.floor(ref / SEQ_SCALE) * SEQ_SCALE;
}

/**
 * The first 4 bytes of a key as a number (missing bytes as 0), shifted into the signed 32-bit range
 * so V8 keeps it as a small integer in the node rather than a heap number of its own.
 * keyPrefix(a) < keyPrefix(b) implies a < b in byte order; equal prefixes decide nothing. A descent
 * through a large tree compares the written key with one inner key per level, and reaching each
 * inner key's bytes (another object, elsewhere in the heap) was a cache miss per level: about 40%
 * of the descent's time.
 */
export function keyPrefix(key: Uint8Array): number {
  const n = key.length;
  const b = n >= 4 ? (key[0] << 24) | (key[1] << 16) | (key[2] << 8) | key[3] : shortPrefix(key, n);
  return b ^ 0x80000000;
}

function shortPrefix(key: Uint8Array, n: number): number {
  return (n > 0 ? key[0] << 24 : 0) | (n > 1 ? key[1] << 16 : 0) | (n > 2 ? key[2] << 8 : 0);
}

/** Height of any node (leaves are 0). */
export function heightOf(node: TreeNode): number {
  return node.kind === 0 ? 0 : node.height;
}

/** Number of leaves under any node. */
export function sizeOf(node: TreeNode): number {
  return node.kind === 0 ? 1 : node.size;
}

// Hash inputs are assembled in one reused buffer: hashing runs for every changed node, and
// allocating a fresh buffer per hash costs more than the hash itself.
let scratch = scratchBuffer(1024);
/** Views of the scratch buffer's first n bytes, by n: a subarray per hash was ~10% of its cost. */
let scratchViews: Uint8Array[] = [];

function ensureScratch(size: number): ScratchBuffer {
  if (scratch.length < size) {
    scratch = scratchBuffer(Math.max(size, scratch.length * 2));
    scratchViews = [];
  }
  return scratch;
}

/** The digest of the scratch buffer's first `length` bytes. */
function digestScratch(length: number): Digest {
  let view = scratchViews[length];
  if (view === undefined) {
    view = scratch.subarray(0, length);
    scratchViews[length] = view;
  }
  return digestOf(view);
}

/** Writes a zig-zag varint of a non-negative number; returns the new offset. */
function putSvarint(buf: Uint8Array, offset: number, value: number): number {
  return putUvarint(buf, offset, value * 2);
}

/** The IAVL leaf hash of `key` = `valueHash` written at `version`. */
export function leafHash(key: Uint8Array, valueHash: Uint8Array, version: number): Digest {
  const buf = ensureScratch(key.length + 64);
  buf[0] = 0; // svarint(height 0)
  buf[1] = 2; // svarint(size 1)
  let o = putSvarint(buf, 2, version);
  o = putUvarint(buf, o, key.length);
  buf.set(key, o);
  o += key.length;
  buf[o++] = 32;
  buf.set(valueHash, o);
  return digestScratch(o + 32);
}

/**
 * The IAVL leaf hash of `key` = `value` written at `version`: leafHash(key, sha256(value), version)
 * with the value's digest written straight into the hash input (no array for it).
 */
export function leafHashOfValue(key: Uint8Array, value: Uint8Array, version: number): Digest {
  return leafHashOfValueDigest(key, digestOf(value), version);
}

/** leafHash with the value's digest as a Digest string (the caller hashed the value, or knew its digest). */
export function leafHashOfValueDigest(key: Uint8Array, digest: Digest, version: number): Digest {
  const buf = ensureScratch(key.length + 64);
  buf[0] = 0; // svarint(height 0)
  buf[1] = 2; // svarint(size 1)
  let o = putSvarint(buf, 2, version);
  o = putUvarint(buf, o, key.length);
  buf.set(key, o);
  o += key.length;
  buf[o++] = 32;
  return digestScratch(putDigest(buf, o, digest));
}

/** The IAVL inner hash from the node's fields and its children's hashes. */
export function innerHash(height: number, size: number, version: number, leftHash: Digest, rightHash: Digest): Digest {
  const buf = ensureScratch(128);
  let o = putSvarint(buf, 0, height);
  o = putSvarint(buf, o, size);
  o = putSvarint(buf, o, version);
  buf[o++] = 32;
  o = putDigest(buf, o, leftHash);
  buf[o++] = 32;
  return digestScratch(putDigest(buf, o, rightHash));
}

/** The node's hash, computing (and caching) it for new inner nodes, children first. */
export function hashOf(node: TreeNode): Digest {
  if (node.kind !== 1) return node.hash;
  if (node.hash !== undefined) return node.hash;
  const h = innerHash(node.height, node.size, node.version, hashOf(node.left), hashOf(node.right));
  node.hash = h;
  return h;
}

/**
 * The keys of decoded nodes, carved from slabs of their own (see decodePageNode). 4 KiB, not the 16 KiB of the shared
 * slabs: a node that stays cached long (the top of a tree, which every walk passes) keeps its whole slab alive, and
 * a smaller slab bounds what such a key pins while still sharing one buffer among ~100–800 keys.
 */
const decodedKeys = new ByteSlab(4 * 1024);

// Child slot tags inside a record.
const CHILD_INNER = 0;
const CHILD_LEAF = 1;
/** A leaf whose key equals the parent's key (the usual right leaf), so the key is not repeated. */
const CHILD_LEAF_SAME_KEY = 2;
const CHILD_NONE = 3;

function writeChild(w: ByteWriter, child: TreeNode | undefined, parentKey: Uint8Array | undefined): void {
  if (child === undefined) {
    w.byte(CHILD_NONE);
    return;
  }
  if (child.kind === 0) {
    if (parentKey !== undefined && equalBytes(child.key, parentKey)) {
      w.byte(CHILD_LEAF_SAME_KEY);
    } else {
      w.byte(CHILD_LEAF).lengthPrefixed(child.key);
    }
    w.uvarint(child.version).uvarint(child.writeNo).bytes(digestBytes(child.hash));
    return;
  }
  if (child.ref < 0) throw new Error("internal: child node has no record yet");
  w.byte(CHILD_INNER)
    .uvarint(refVersion(child.ref))
    .uvarint(refSeq(child.ref))
    .uvarint(child.height)
    .uvarint(child.size)
    .bytes(digestBytes(hashOf(child)));
}

function readChild(r: ByteReader, parentKey: Uint8Array | undefined): TreeNode | undefined {
  const tag = r.byte();
  switch (tag) {
    case CHILD_NONE:
      return undefined;
    case CHILD_LEAF:
    case CHILD_LEAF_SAME_KEY: {
      const key = tag === CHILD_LEAF ? decodedKeys.copy(r.lengthPrefixed()) : parentKey;
      if (key === undefined) throw new Error("leaf refers to a missing parent key");
      const version = r.uvarint();
      const writeNo = r.uvarint();
      const hash = digestAt(r.bytes(32), 0);
      return { kind: 0, key, version, writeNo, hash };
    }
    case CHILD_INNER: {
      const version = r.uvarint();
      const seq = r.uvarint();
      const height = r.uvarint();
      const size = r.uvarint();
      const hash = digestAt(r.bytes(32), 0);
      return { kind: 2, ref: packRef(version, seq), hash, height, size };
    }
    default:
      throw new Error(`unknown child tag ${tag}`);
  }
}

function readInner(r: ByteReader, ref: number, hash: Digest): InnerNode {
  const height = r.uvarint();
  const size = r.uvarint();
  const version = r.uvarint();
  const key = decodedKeys.copy(r.lengthPrefixed());
  const left = readChild(r, undefined);
  const right = readChild(r, key);
  if (left === undefined || right === undefined) throw new Error("inner node without two children");
  return { kind: 1, height, size, version, key, kp: keyPrefix(key), left, right, hash, ref };
}

/**
 * Nodes per page. A version's new nodes are numbered children-first and stored PAGE_NODES to a
 * record, so a commit writes a few large records instead of one per node, and the nodes of one
 * subtree tend to share a page (one disk read serves a walk down it).
 */
export const PAGE_NODES = 64;

/** Page number and slot of a node's sequence number. */
export function pageOf(seq: number): { page: number; slot: number } {
  return { page: Math.floor(seq / PAGE_NODES), slot: seq % PAGE_NODES };
}

// Pages are assembled in one reused buffer with direct writes (no writer objects): a commit
// encodes tens of thousands of nodes.
let pageScratch = scratchBuffer(1 << 16);

function ensurePage(used: number, extra: number): ScratchBuffer {
  if (used + extra > pageScratch.length) {
    const next = scratchBuffer(Math.max(used + extra, pageScratch.length * 2));
    next.set(pageScratch.subarray(0, used));
    pageScratch = next;
  }
  return pageScratch;
}

/** Most bytes a child slot takes besides its key. */
const CHILD_MAX = 1 + 5 * 10 + 32;

function putChild(buf: ScratchBuffer, o: number, child: TreeNode, parentKey: Uint8Array | undefined): number {
  if (child.kind === 0) {
    const key = child.key;
    if (parentKey !== undefined && (key === parentKey || equalBytes(key, parentKey))) {
      buf[o++] = CHILD_LEAF_SAME_KEY;
    } else {
      buf[o++] = CHILD_LEAF;
      o = putUvarint(buf, o, key.length);
      buf.set(key, o);
      o += key.length;
    }
    o = putUvarint(buf, o, child.version);
    o = putUvarint(buf, o, child.writeNo);
    return putDigest(buf, o, child.hash);
  }
  if (child.ref < 0) throw new Error("internal: child node has no record yet");
  buf[o++] = CHILD_INNER;
  o = putUvarint(buf, o, refVersion(child.ref));
  o = putUvarint(buf, o, refSeq(child.ref));
  o = putUvarint(buf, o, child.height);
  o = putUvarint(buf, o, child.size);
  return putDigest(buf, o, hashOf(child));
}

/**
 * Encodes consecutive nodes (by seq) as one page record: count, then each node length-prefixed
 * (height, size, version, key, left child, right child). Into `arena` when given.
 */
export function encodePage(nodes: InnerNode[], from: number, to: number, arena?: Arena): Uint8Array {
  const view = encodePageView(nodes, from, to);
  const out = arena === undefined ? new Uint8Array(view.length) : arena.alloc(view.length);
  out.set(view);
  return out;
}

/**
 * encodePage into a reused buffer: the view is valid until the next call (for a batch that
 * copies what it is given, such as LevelDB's).
 */
export function encodePageView(nodes: InnerNode[], from: number, to: number): Uint8Array {
  let buf = ensurePage(0, 10);
  let o = putUvarint(buf, 0, to - from);
  for (let i = from; i < to; i++) {
    const node = nodes[i];
    const left = node.left;
    const right = node.right;
    const keys = node.key.length + (left.kind === 0 ? left.key.length : 0) + (right.kind === 0 ? right.key.length : 0);
    buf = ensurePage(o, 3 + 4 * 10 + 2 * CHILD_MAX + 2 * 10 + keys);
    // The body goes after a 1-byte length prefix and is moved when its length needs more: ~70% of
    // records are < 128 bytes (a 2-byte guess moved those instead).
    const start = o + 1;
    let e = putUvarint(buf, start, node.height);
    e = putUvarint(buf, e, node.size);
    e = putUvarint(buf, e, node.version);
    e = putUvarint(buf, e, node.key.length);
    buf.set(node.key, e);
    e += node.key.length;
    e = putChild(buf, e, left, undefined);
    e = putChild(buf, e, right, node.key);
    const length = e - start;
    const width = length < 0x80 ? 1 : uvarintLength(length);
    if (width !== 1) buf.copyWithin(o + width, start, e);
    putUvarint(buf, o, length);
    o += width + length;
  }
  // A plain Uint8Array view, as before the scratch became a Buffer (whose slice() would not copy).
  return new Uint8Array(buf.buffer, buf.byteOffset, o);
}

/** Number of nodes in a page record. */
export function pageSize(page: Uint8Array): number {
  return new ByteReader(page).uvarint();
}

/** Decodes the node in `slot` of a page; `ref` and `hash` come from whoever pointed at it. */
export function decodePageNode(page: Uint8Array, slot: number, ref: number, hash: Digest): InnerNode {
  const r = new ByteReader(page);
  const count = r.uvarint();
  if (slot >= count) throw new Error(`page has ${count} nodes, no slot ${slot}`);
  for (let i = 0; i < slot; i++) {
    const skip = r.uvarint();
    r.offset += skip;
  }
  r.uvarint();
  // Fields are copied out (see readInner/readChild): cached nodes must not pin whole pages. The keys go into
  // slabs (byte-slab.ts, `decodedKeys`): a decoded node holds one or two keys for as long as it is cached or a newer
  // version's node shares them, and a key of its own costs a typed array plus a buffer (~230 B of heap for a
  // short key) where a slab's view costs the typed array alone (~110 B). A stepped migration's walk decodes
  // ~2 keys a record of budget that live through a step done ahead.
  return readInner(r, ref, hash);
}

/** Encodes a tree root (or its absence) for the commit info. */
export function writeRoot(w: ByteWriter, root: TreeNode | undefined): void {
  writeChild(w, root, undefined);
}

/** Decodes a root written by writeRoot. */
export function readRoot(r: ByteReader): TreeNode | undefined {
  return readChild(r, undefined);
}

/** A persisted view of a node: inner children become stubs so loaded nodes hold no subtrees. */
export function toStub(node: TreeNode): LeafNode | StubNode {
  if (node.kind !== 1) return node;
  return { kind: 2, ref: node.ref, hash: hashOf(node), height: node.height, size: node.size };
}
