// Snapshot format 1: the byte stream an exported state (src/store exportState) is written as, and
// its split into chunks. Items follow each other with no padding:
//   store: 0x01 uvarint(len) name
//   leaf:  0x02 uvarint(version) uvarint(len) key uvarint(len) value
//   inner: 0x03 uvarint(version) uvarint(height)
// The stream is cut into chunks of a fixed size (the last one shorter); an item may span chunks.

import { concatBytes } from "../bytes/concat.ts";
import { encodeUvarint, readUvarintAt } from "../bytes/varint.ts";
import type { ExportItem } from "../store/index.ts";
import { SnapshotFormatError } from "./errors.ts";

/** The snapshot format number this release writes and restores. */
export const SNAPSHOT_FORMAT = 1;

/** Default chunk size: 4 MiB keeps each chunk well inside CometBFT's 16 MB p2p message limit. */
export const DEFAULT_CHUNK_SIZE = 4 * 1024 * 1024;

const TAG_STORE = 1;
const TAG_LEAF = 2;
const TAG_INNER = 3;
const textEncoder = new TextEncoder();
const textDecoder = new TextDecoder("utf-8", { fatal: true });

function encodeItem(item: ExportItem): Uint8Array {
  const head: number[] = [];
  switch (item.kind) {
    case "store": {
      const name = textEncoder.encode(item.name);
      head.push(TAG_STORE);
      head.push(...encodeUvarint(name.length));
      return concatBytes(Uint8Array.from(head), name);
    }
    case "leaf": {
      head.push(TAG_LEAF);
      head.push(...encodeUvarint(item.version));
      head.push(...encodeUvarint(item.key.length));
      const mid: number[] = [];
      mid.push(...encodeUvarint(item.value.length));
      return concatBytes(Uint8Array.from(head), item.key, Uint8Array.from(mid), item.value);
    }
    case "inner":
      head.push(TAG_INNER);
      head.push(...encodeUvarint(item.version));
      head.push(...encodeUvarint(item.height));
      return Uint8Array.from(head);
  }
}

/** Encodes the item batches and yields the stream in chunks of `chunkSize` bytes (at least one chunk). */
export async function* encodeChunks(
  batches: AsyncIterable<ExportItem[]>,
  chunkSize = DEFAULT_CHUNK_SIZE,
): AsyncGenerator<Uint8Array> {
  if (!Number.isSafeInteger(chunkSize) || chunkSize < 1)
    throw new RangeError(`chunk size must be ≥ 1, got ${chunkSize}`);
  let chunk = new Uint8Array(chunkSize);
  let used = 0;
  let emitted = 0;
  for await (const batch of batches) {
    for (const item of batch) {
      let bytes = encodeItem(item);
      while (bytes.length > 0) {
        const n = Math.min(bytes.length, chunkSize - used);
        chunk.set(bytes.subarray(0, n), used);
        used += n;
        bytes = bytes.subarray(n);
        if (used === chunkSize) {
          yield chunk;
          emitted++;
          chunk = new Uint8Array(chunkSize);
          used = 0;
        }
      }
    }
  }
  if (used > 0 || emitted === 0) yield chunk.subarray(0, used);
}

/**
 * Items per decoded batch at most. A batch's items and the importer's nodes for them stay alive until the batch is
 * settled, so a whole 4 MiB chunk's ~100,000 items at once outlived the young generation and were promoted and
 * marked (a third of a restore's main-thread CPU was GC). 8,192 still left a batch's ~2-3 MB alive across most
 * scavenges, which copied it: at 1,024 a 400,000-pair restore's GC threads spent ~0.3 s where they spent ~0.6 s.
 */
export const DECODE_BATCH_ITEMS = 1024;

/**
 * Decodes a chunked stream into batches of items (at most DECODE_BATCH_ITEMS each, none across a chunk boundary
 * but for the item that spans it); throws SnapshotFormatError for bytes that are not format 1. A leaf's value is a
 * view of the chunk's bytes (of a small joined buffer for the item that spans two chunks; its key a copy).
 */
export async function* decodeChunks(
  chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
): AsyncGenerator<ExportItem[]> {
  let pending: Uint8Array = new Uint8Array(0);
  for await (const chunk of chunks) {
    let batch: ExportItem[] = [];
    let offset = 0;
    if (pending.length > 0) {
      const spanning = parseSpanning(pending, chunk);
      if (spanning === undefined) {
        // The item is longer than this chunk too: all of it waits for the next one.
        pending = concatBytes(pending, chunk);
        continue;
      }
      batch.push(spanning);
      offset = parsedEnd;
    }
    for (;;) {
      const item = parseItem(chunk, offset);
      if (item === undefined) break;
      batch.push(item);
      offset = parsedEnd;
      if (batch.length === DECODE_BATCH_ITEMS) {
        yield batch;
        batch = [];
      }
    }
    pending = chunk.subarray(offset);
    if (batch.length > 0) yield batch;
  }
  if (pending.length > 0)
    throw new SnapshotFormatError(`the snapshot stream ends inside an item (${pending.length} bytes left)`);
}

/**
 * The item that begins in `tail` (the previous chunk's unparsed end) and ends in `chunk`, with parsedEnd set to where
 * it ends in `chunk`; undefined when it does not end in `chunk` either. Only the tail and as much of the chunk's head
 * as the item needs are joined: joining the whole chunk copied every 4 MiB chunk once more into a new buffer, which
 * the collector had to account for (and free) beside the chunk itself.
 */
function parseSpanning(tail: Uint8Array, chunk: Uint8Array): ExportItem | undefined {
  let take = Math.min(chunk.length, 256);
  for (;;) {
    const joined = concatBytes(tail, chunk.subarray(0, take));
    const item = parseItem(joined, 0);
    if (item !== undefined) {
      parsedEnd -= tail.length;
      return item;
    }
    if (take === chunk.length) return undefined;
    take = Math.min(chunk.length, take * 4);
  }
}

/** Where the last complete uvarintAt() or parseItem() ended (module state: no result object per call). */
let parsedEnd = 0;

/**
 * The uvarint at `offset`, setting parsedEnd past it; -1 while its last byte has not arrived. Up to 7 bytes (49
 * bits, always a safe integer) inline; longer ones go through readUvarint, which rejects what is too long or large.
 */
function uvarintAt(buf: Uint8Array, offset: number): number {
  let value = 0;
  let scale = 1;
  const stop = Math.min(buf.length, offset + 7);
  for (let at = offset; at < stop; at++) {
    const byte = buf[at];
    value += (byte & 0x7f) * scale;
    if (byte < 0x80) {
      parsedEnd = at + 1;
      return value;
    }
    scale *= 0x80;
  }
  if (stop < offset + 7) return -1;
  const long = readUvarintAt(buf, offset);
  if (long === undefined) return -1;
  parsedEnd = long.next;
  return long.value;
}

/** The item at `offset` (parsedEnd set past it), or undefined when it has not fully arrived. */
function parseItem(buf: Uint8Array, offset: number): ExportItem | undefined {
  if (offset >= buf.length) return undefined;
  const tag = buf[offset];
  const a = uvarintAt(buf, offset + 1);
  if (a < 0) return undefined;
  switch (tag) {
    case TAG_STORE: {
      const from = parsedEnd;
      if (from + a > buf.length) return undefined;
      let name: string;
      try {
        name = textDecoder.decode(buf.subarray(from, from + a));
      } catch {
        throw new SnapshotFormatError("a store name in the snapshot stream is not UTF-8");
      }
      parsedEnd = from + a;
      return { kind: "store", name };
    }
    case TAG_LEAF: {
      const keyLen = uvarintAt(buf, parsedEnd);
      const keyAt = parsedEnd;
      if (keyLen < 0 || keyAt + keyLen > buf.length) return undefined;
      const valueLen = uvarintAt(buf, keyAt + keyLen);
      const valueAt = parsedEnd;
      if (valueLen < 0 || valueAt + valueLen > buf.length) return undefined;
      const key = buf.slice(keyAt, keyAt + keyLen);
      // A view: the importer only hashes the value and copies it into its rows (the key, which the rebuilt tree
      // keeps, is a copy so the tree never pins a chunk).
      const value = buf.subarray(valueAt, valueAt + valueLen);
      parsedEnd = valueAt + valueLen;
      return { kind: "leaf", key, value, version: a };
    }
    case TAG_INNER: {
      const h = uvarintAt(buf, parsedEnd);
      if (h < 0) return undefined;
      return { kind: "inner", version: a, height: h };
    }
    default:
      throw new SnapshotFormatError(`unknown item tag ${tag} in the snapshot stream (format ${SNAPSHOT_FORMAT})`);
  }
}
