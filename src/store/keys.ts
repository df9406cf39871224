// The on-disk key layout: one LevelDB keyspace split into tables by a one-byte tag. Module data
// is addressed by a store id (sid), never by the store's name, so renaming a store only rewrites
// the name→sid map. See README.md "Key layout".

/** Table tags (first byte of every key). */
export const TABLE = {
  /** m‖name → singleton metadata records. */
  meta: 0x6d,
  /** c‖version(8) → commit info of that version. */
  commit: 0x63,
  /** l‖sid(4)‖key → latest value: uvarint(writeCount) uvarint(version) value. */
  latest: 0x6c,
  /** d‖sid(4)‖key → uvarint(writeCount) uvarint(version) of a key whose last write was a delete. */
  deleted: 0x64,
  /**
   * h‖sid(4)‖key‖writeNo(6) → uvarint(version) uvarint(prevVersion) u8(1 set / 0 delete) value. Present for every
   * write before the key's latest one (within retention); an imported key's write 1 gets its row only when superseded.
   */
  history: 0x68,
  /** n‖sid(4)‖version(8)‖page(4) → a page of inner nodes of the commitment tree. */
  node: 0x6e,
  /** k‖sid(4)‖version(8)‖page(4) → how many nodes of that page pruning found dead. */
  pageDead: 0x6b,
  /** x‖version(8)‖sid(4) → what pruning may delete once `version` is no longer retained. */
  changelog: 0x78,
} as const;

/** Metadata record names under TABLE.meta. */
export const META = {
  format: "format",
  latest: "latest",
  earliest: "earliest",
  stores: "stores",
  pruneOffset: "prune-offset",
  reclaim: "reclaim",
  /**
   * u64 version of an imported state (state-import.ts; absent otherwise): a key whose latest or deleted row says write
   * 1 at or before it has no history row 1 — the commit that supersedes that write writes it (README.md, "Key layout").
   */
  importedAt: "imported-at",
  /**
   * u64 version + store id list, present only while a large version's update rows are on disk ahead of its commit
   * (lost-latest-rows.ts; README "A large version's memory", Step B): the version whose rows an open must undo.
   */
  partial: "partial",
} as const;

/** Identifies this layout; bumped on incompatible changes. */
export const FORMAT_MARKER = "chaind-state-store/1";

const metaKeyCache = new Map<string, Uint8Array>();

/** Key of a metadata record. */
export function metaKey(name: string): Uint8Array {
  let key = metaKeyCache.get(name);
  if (key === undefined) {
    key = new Uint8Array(1 + name.length);
    key[0] = TABLE.meta;
    for (let i = 0; i < name.length; i++) key[i + 1] = name.charCodeAt(i);
    metaKeyCache.set(name, key);
  }
  return key;
}

function writeU32(out: Uint8Array, offset: number, value: number): void {
  out[offset] = value >>> 24;
  out[offset + 1] = (value >>> 16) & 0xff;
  out[offset + 2] = (value >>> 8) & 0xff;
  out[offset + 3] = value & 0xff;
}

function writeU64(out: Uint8Array, offset: number, value: number): void {
  writeU32(out, offset, Math.floor(value / 0x100000000));
  writeU32(out, offset + 4, value >>> 0);
}

/** Reads a big-endian u64 (as a safe integer) from `bytes` at `offset`. */
export function readU64(bytes: Uint8Array, offset: number): number {
  return readU32(bytes, offset) * 0x100000000 + readU32(bytes, offset + 4);
}

/** Reads a big-endian u32 from `bytes` at `offset`. */
export function readU32(bytes: Uint8Array, offset: number): number {
  return ((bytes[offset] << 24) | (bytes[offset + 1] << 16) | (bytes[offset + 2] << 8) | bytes[offset + 3]) >>> 0;
}

/** Key of the commit info of `version`. */
export function commitKey(version: number): Uint8Array {
  const out = new Uint8Array(9);
  out[0] = TABLE.commit;
  writeU64(out, 1, version);
  return out;
}

/** tag‖sid — the start of one store's rows in a per-store table. */
export function storePrefix(table: number, sid: number): Uint8Array {
  const out = new Uint8Array(5);
  out[0] = table;
  writeU32(out, 1, sid);
  return out;
}

/** tag‖sid‖key. */
export function storeKey(table: number, sid: number, key: Uint8Array): Uint8Array {
  const out = new Uint8Array(5 + key.length);
  out[0] = table;
  writeU32(out, 1, sid);
  out.set(key, 5);
  return out;
}

/**
 * h‖sid‖key‖writeNo. The write number has a fixed width, so two (key, number) pairs never share
 * a row key. History rows are only ever read by exact key, or cleared a whole store at a time.
 */
export function historyKey(sid: number, key: Uint8Array, writeNo: number): Uint8Array {
  const out = new Uint8Array(11 + key.length);
  out[0] = TABLE.history;
  writeU32(out, 1, sid);
  out.set(key, 5);
  const o = 5 + key.length;
  const high = Math.floor(writeNo / 0x100000000);
  out[o] = (high >>> 8) & 0xff;
  out[o + 1] = high & 0xff;
  writeU32(out, o + 2, writeNo >>> 0);
  return out;
}

/** n‖sid‖version‖page. */
export function nodeKey(sid: number, version: number, page: number): Uint8Array {
  return pageRowKey(TABLE.node, sid, version, page);
}

/** k‖sid‖version‖page. */
export function pageDeadKey(sid: number, version: number, page: number): Uint8Array {
  return pageRowKey(TABLE.pageDead, sid, version, page);
}

function pageRowKey(table: number, sid: number, version: number, page: number): Uint8Array {
  const out = new Uint8Array(17);
  out[0] = table;
  writeU32(out, 1, sid);
  writeU64(out, 5, version);
  writeU32(out, 13, page);
  return out;
}

/** x‖version‖sid. */
export function changelogKey(version: number, sid: number): Uint8Array {
  const out = new Uint8Array(13);
  out[0] = TABLE.changelog;
  writeU64(out, 1, version);
  writeU32(out, 9, sid);
  return out;
}

/** x‖version — the first changelog row of `version`. */
export function changelogVersionPrefix(version: number): Uint8Array {
  const out = new Uint8Array(9);
  out[0] = TABLE.changelog;
  writeU64(out, 1, version);
  return out;
}
