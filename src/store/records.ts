// Encodings of the store's own metadata records: the store registry, commit infos and the
// pruning changelog. Every record starts with a format number so later layouts can be told apart.

import { fromUtf8, utf8 } from "../bytes/text.ts";
import { ByteReader, ByteWriter } from "./byte-records.ts";
import { readRoot, type TreeNode, writeRoot } from "./tree-node.ts";

const RECORD_FORMAT = 1;

function expectFormat(r: ByteReader, what: string): void {
  const format = r.uvarint();
  if (format !== RECORD_FORMAT) throw new Error(`${what} has format ${format}, expected ${RECORD_FORMAT}`);
}

/** A store that was deleted by an upgrade (its rows are reclaimed; its history is gone). */
export interface DeletedStore {
  sid: number;
  name: string;
  version: number;
}

/** Which store ids exist and what they are called now. */
export interface StoreRegistry {
  nextSid: number;
  mounted: { name: string; sid: number }[];
  deleted: DeletedStore[];
}

/** Encodes the store registry. */
export function encodeRegistry(reg: StoreRegistry): Uint8Array {
  const w = new ByteWriter(128).uvarint(RECORD_FORMAT).uvarint(reg.nextSid).uvarint(reg.mounted.length);
  for (const m of reg.mounted) w.lengthPrefixed(utf8(m.name)).uvarint(m.sid);
  w.uvarint(reg.deleted.length);
  for (const d of reg.deleted) w.uvarint(d.sid).lengthPrefixed(utf8(d.name)).uvarint(d.version);
  return w.finish();
}

/** Decodes the store registry. */
export function decodeRegistry(bytes: Uint8Array): StoreRegistry {
  const r = new ByteReader(bytes);
  expectFormat(r, "store registry");
  const nextSid = r.uvarint();
  const mounted: StoreRegistry["mounted"] = [];
  for (let n = r.uvarint(); n > 0; n--) mounted.push({ name: fromUtf8(r.lengthPrefixed()), sid: r.uvarint() });
  const deleted: DeletedStore[] = [];
  for (let n = r.uvarint(); n > 0; n--) {
    deleted.push({ sid: r.uvarint(), name: fromUtf8(r.lengthPrefixed()), version: r.uvarint() });
  }
  return { nextSid, mounted, deleted };
}

/** One store inside a commit info. */
export interface StoreCommit {
  name: string;
  sid: number;
  root: TreeNode | undefined;
  rootHash: Uint8Array;
}

/** Everything about one committed version: the app hash and each store's tree root. */
export interface CommitRecord {
  version: number;
  appHash: Uint8Array;
  /** Sorted by name. */
  stores: StoreCommit[];
}

/** Encodes a commit info. */
export function encodeCommit(c: CommitRecord): Uint8Array {
  const w = new ByteWriter(256).uvarint(RECORD_FORMAT).uvarint(c.version).lengthPrefixed(c.appHash);
  w.uvarint(c.stores.length);
  for (const s of c.stores) {
    w.lengthPrefixed(utf8(s.name)).uvarint(s.sid).lengthPrefixed(s.rootHash);
    writeRoot(w, s.root);
  }
  return w.finish();
}

/** Decodes a commit info. */
export function decodeCommit(bytes: Uint8Array): CommitRecord {
  const r = new ByteReader(bytes);
  expectFormat(r, "commit info");
  const version = r.uvarint();
  const appHash = r.lengthPrefixed();
  const stores: StoreCommit[] = [];
  for (let n = r.uvarint(); n > 0; n--) {
    const name = fromUtf8(r.lengthPrefixed());
    const sid = r.uvarint();
    const rootHash = r.lengthPrefixed();
    const root = readRoot(r);
    stores.push({ name, sid, root, rootHash });
  }
  return { version, appHash, stores };
}

/**
 * What pruning may delete once the version that wrote this record is no longer needed: history
 * rows the version superseded, keys it deleted (their deleted rows, if still current), and tree
 * nodes it replaced.
 */
export interface Changelog {
  superseded: { key: Uint8Array; writeNo: number }[];
  tombstones: { key: Uint8Array; writeNo: number }[];
  orphans: number[];
}

/** Number of prunable items in a changelog (the unit of pruning batches). */
export function changelogSize(c: Changelog): number {
  return c.superseded.length + c.tombstones.length + c.orphans.length;
}

/** Encodes a changelog; orphans are packed node refs. */
export function encodeChangelog(c: Changelog): Uint8Array {
  const w = new ByteWriter(64 + c.superseded.length * 40 + c.orphans.length * 8).uvarint(RECORD_FORMAT);
  w.uvarint(c.superseded.length);
  for (const s of c.superseded) w.lengthPrefixed(s.key).uvarint(s.writeNo);
  w.uvarint(c.tombstones.length);
  for (const t of c.tombstones) w.lengthPrefixed(t.key).uvarint(t.writeNo);
  w.uvarint(c.orphans.length);
  for (const o of c.orphans) w.uvarint(o);
  return w.finish();
}

/**
 * Builds a changelog's record while a commit runs through its writes, without an object per
 * entry (a 10k-write commit would otherwise keep 10k of them alive until it is written). Gives
 * the same bytes as encodeChangelog.
 */
export class ChangelogWriter {
  private readonly superseded = new ByteWriter(1024);
  private supersededCount = 0;
  private readonly tombstones = new ByteWriter(64);
  private tombstoneCount = 0;

  /** History row `writeNo` of `key` is superseded. */
  supersede(key: Uint8Array, writeNo: number): void {
    this.superseded.lengthPrefixed(key).uvarint(writeNo);
    this.supersededCount++;
  }

  /** `key` was deleted by write `writeNo`. */
  tombstone(key: Uint8Array, writeNo: number): void {
    this.tombstones.lengthPrefixed(key).uvarint(writeNo);
    this.tombstoneCount++;
  }

  /** True when there is nothing for pruning to do (no record is written then). */
  isEmpty(orphans: number[]): boolean {
    return this.supersededCount + this.tombstoneCount + orphans.length === 0;
  }

  /** The record, with the refs of the tree nodes the version replaced. */
  finish(orphans: number[]): Uint8Array {
    const w = new ByteWriter(32 + this.superseded.length + this.tombstones.length + orphans.length * 8);
    w.uvarint(RECORD_FORMAT);
    w.uvarint(this.supersededCount).bytes(this.superseded.view());
    w.uvarint(this.tombstoneCount).bytes(this.tombstones.view());
    w.uvarint(orphans.length);
    // Indexed: run once per commit over ~10k refs, a for-of stays unoptimized and allocates a result per ref.
    for (let i = 0; i < orphans.length; i++) w.uvarint(orphans[i]);
    return w.finish();
  }
}

/** Decodes a changelog. */
export function decodeChangelog(bytes: Uint8Array): Changelog {
  const r = new ByteReader(bytes);
  expectFormat(r, "changelog");
  const superseded: Changelog["superseded"] = [];
  for (let n = r.uvarint(); n > 0; n--) superseded.push({ key: r.lengthPrefixed(), writeNo: r.uvarint() });
  const tombstones: Changelog["tombstones"] = [];
  for (let n = r.uvarint(); n > 0; n--) tombstones.push({ key: r.lengthPrefixed(), writeNo: r.uvarint() });
  const orphans: number[] = [];
  for (let n = r.uvarint(); n > 0; n--) orphans.push(r.uvarint());
  return { superseded, tombstones, orphans };
}

/** Encodes a version number as 8 bytes. */
export function encodeVersion(version: number): Uint8Array {
  return new ByteWriter(8).u64be(version).finish();
}

/** Decodes 8 bytes written by encodeVersion. */
export function decodeVersion(bytes: Uint8Array): number {
  return new ByteReader(bytes).u64be();
}

/** Encodes a list of store ids (pending reclamation). */
export function encodeSidList(sids: number[]): Uint8Array {
  const w = new ByteWriter(16).uvarint(RECORD_FORMAT).uvarint(sids.length);
  for (const s of sids) w.uvarint(s);
  return w.finish();
}

/** Decodes a list written by encodeSidList. */
export function decodeSidList(bytes: Uint8Array): number[] {
  const r = new ByteReader(bytes);
  expectFormat(r, "reclaim list");
  const out: number[] = [];
  for (let n = r.uvarint(); n > 0; n--) out.push(r.uvarint());
  return out;
}
