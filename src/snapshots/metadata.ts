// The snapshot metadata CometBFT carries opaquely (Snapshot.metadata): the protobuf message
// `Metadata { repeated bytes chunk_hashes = 1; }` as the Cosmos SDK's snapshot manager writes it —
// the sha256 of every chunk, so a restoring node checks each chunk the moment it arrives.

import { encodeUvarint, readUvarintAt } from "../bytes/varint.ts";
import { SnapshotFormatError } from "./errors.ts";

/** Encodes the chunk hashes as the Metadata message. */
export function encodeMetadata(chunkHashes: Uint8Array[]): Uint8Array {
  const out: number[] = [];
  for (const hash of chunkHashes) {
    out.push(0x0a); // field 1, length-delimited
    out.push(...encodeUvarint(hash.length));
    for (const byte of hash) out.push(byte);
  }
  return Uint8Array.from(out);
}

/** Decodes a Metadata message; throws SnapshotFormatError unless every hash is 32 bytes. */
export function decodeMetadata(bytes: Uint8Array): Uint8Array[] {
  const hashes: Uint8Array[] = [];
  let offset = 0;
  while (offset < bytes.length) {
    const tag = readUvarintAt(bytes, offset);
    if (tag === undefined || tag.value !== 0x0a)
      throw new SnapshotFormatError("the snapshot metadata is not a chunk-hash list");
    const len = readUvarintAt(bytes, tag.next);
    if (len === undefined || len.value !== 32 || len.next + 32 > bytes.length) {
      throw new SnapshotFormatError("the snapshot metadata holds a chunk hash that is not 32 bytes");
    }
    hashes.push(bytes.slice(len.next, len.next + 32));
    offset = len.next + 32;
  }
  return hashes;
}
