// The key layout of the embedded engine's block store (block-store.ts), one prefix byte per record kind, heights as
// 8-byte big-endian so keys sort numerically:
//   s                          → EngineState (store JSON)
//   B                          → the first stored height (after a bootstrap at a snapshot height or a prune)
//   b ‖ h                      → Block (gogoproto bytes, exactly what the part set was cut from)
//   m ‖ h                      → BlockMeta {block_id, block_size, header, num_txs}
//   i ‖ block hash             → h
//   c ‖ h                      → seen Commit for h
//   r ‖ h                      → ResponseFinalizeBlock
//   v ‖ h                      → validator set of h (store JSON)
//   p ‖ h ‖ index(4)           → TxResult {height, index, tx, result}
//   t ‖ tx hash                → h ‖ index of the latest inclusion
//   e ‖ len ‖ type.key ‖ len ‖ value ‖ h   → u32 index…    event index (event-postings.ts)

import { concatBytes } from "../bytes/concat.ts";

/** The key of the engine state. */
export const STATE_KEY = Uint8Array.of(0x73); // "s"
/** The first stored height of a store bootstrapped at a snapshot height or pruned (absent otherwise). */
export const BASE_KEY = Uint8Array.of(0x42); // "B"
/** The first byte of each kind of record keyed by height, hash or position. */
export const PREFIX = {
  block: 0x62,
  meta: 0x6d,
  hash: 0x69,
  commit: 0x63,
  results: 0x72,
  validators: 0x76,
  txPos: 0x70,
  txHash: 0x74,
  event: 0x65,
} as const;

/** A height as 8 big-endian bytes (so keys sort by height). */
export function u64(n: bigint): Uint8Array {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigUint64(0, n);
  return b;
}
/** A tx index or a length as 4 big-endian bytes. */
export function u32(n: number): Uint8Array {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setUint32(0, n);
  return b;
}
/** `prefix ‖ parts…`. */
export function prefixedKey(prefix: number, ...parts: Uint8Array[]): Uint8Array {
  return concatBytes(Uint8Array.of(prefix), ...parts);
}
/** The smallest key greater than every key starting with `prefix`. */
export function prefixEnd(prefix: Uint8Array): Uint8Array {
  const end = prefix.slice();
  for (let i = end.length - 1; i >= 0; i--) {
    if (end[i] < 0xff) {
      end[i]++;
      return end.subarray(0, i + 1);
    }
  }
  return Uint8Array.of(0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff);
}

/** Position of a tx in the chain: height ‖ index, 12 bytes, ordered like (height, index). */
export function txPosition(height: bigint, index: number): Uint8Array {
  return concatBytes(u64(height), u32(index));
}

/** `e ‖ u32(len ck) ‖ ck ‖ u32(len value) ‖ value ‖ suffix`, built in one buffer. */
export function eventKey(compositeKey: string, value: string, suffix: Uint8Array): Uint8Array {
  const ckLength = Buffer.byteLength(compositeKey);
  const valueLength = Buffer.byteLength(value);
  const out = Buffer.allocUnsafe(9 + ckLength + valueLength + suffix.length);
  out[0] = PREFIX.event;
  out.writeUInt32BE(ckLength, 1);
  out.write(compositeKey, 5, "utf8");
  out.writeUInt32BE(valueLength, 5 + ckLength);
  out.write(value, 9 + ckLength, "utf8");
  out.set(suffix, 9 + ckLength + valueLength);
  return out;
}
