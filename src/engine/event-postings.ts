// The block store's tx event index (block-store.ts): which txs of a height carry an indexed event attribute.
import { concatBytes } from "../bytes/concat.ts";
import { toHex } from "../bytes/hex.ts";
import type { Event } from "../gen/tendermint/abci/types_pb.js";
import { eventKey, u32, u64 } from "./block-store-keys.ts";

/**
 * A block's event index, one entry per distinct (type.key, value) with the indexes of the block's txs that
 * carry it (`e ‖ … ‖ value ‖ h → u32 index…`): most attributes of a block's txs repeat (the message action,
 * the fee, the senders), so a block of 1,000 bank sends writes a few thousand entries instead of ~15,000.
 * Stores written before this layout hold one empty entry per tx (`… ‖ h ‖ index → ∅`); both are read.
 */
export class EventPostings {
  // By event type, then attribute key, then value: the composite "type.key" is built once per distinct pair
  // in `write`, not for each of a block's tens of thousands of attributes.
  private readonly byType = new Map<string, Map<string, Map<string, number[]>>>();

  /** Records the indexed attributes of tx `index`'s events. */
  add(events: readonly Event[], index: number): void {
    for (const event of events) {
      if (event.type === "") continue;
      let keys: Map<string, Map<string, number[]>> | undefined;
      for (const attr of event.attributes) {
        if (!attr.index || attr.key === "") continue;
        if (keys === undefined) {
          keys = this.byType.get(event.type);
          if (keys === undefined) {
            keys = new Map();
            this.byType.set(event.type, keys);
          }
        }
        let values = keys.get(attr.key);
        if (values === undefined) {
          values = new Map();
          keys.set(attr.key, values);
        }
        const txs = values.get(attr.value);
        if (txs === undefined) values.set(attr.value, [index]);
        else if (txs[txs.length - 1] !== index) txs.push(index);
      }
    }
  }

  /** Hands each entry of height `h` to `put`. */
  write(h: bigint, put: (key: Uint8Array, value: Uint8Array) => void): void {
    const hk = u64(h);
    const byComposite = new Map<string, Map<string, number[]>>();
    for (const [type, keys] of this.byType) {
      for (const [attrKey, values] of keys) {
        const compositeKey = `${type}.${attrKey}`;
        const seen = byComposite.get(compositeKey);
        if (seen === undefined) {
          byComposite.set(compositeKey, values);
          continue;
        }
        // Two (type, key) pairs that join to the same "type.key" ("a.b"+"c" and "a"+"b.c") share one entry.
        for (const [value, txs] of values) {
          const other = seen.get(value);
          seen.set(value, other === undefined ? txs : [...new Set([...other, ...txs])].sort((x, y) => x - y));
        }
      }
    }
    for (const [compositeKey, values] of byComposite) {
      for (const [value, txs] of values) {
        const list = Buffer.allocUnsafe(4 * txs.length);
        for (let i = 0; i < txs.length; i++) list.writeUInt32BE(txs[i], 4 * i);
        put(eventKey(compositeKey, value, hk), list);
      }
    }
  }
}

/** Positions (height ‖ index, hex) an event index entry stands for, in either layout (see EventPostings). */
export function postedPositions(entryKey: Uint8Array, entryValue: Uint8Array, suffixStart: number): string[] {
  const suffix = entryKey.subarray(suffixStart);
  if (entryValue.length === 0) return [toHex(suffix)]; // the earlier layout: the key ends with the position
  const out: string[] = [];
  const view = new DataView(entryValue.buffer, entryValue.byteOffset, entryValue.byteLength);
  for (let at = 0; at + 4 <= entryValue.length; at += 4) out.push(toHex(concatBytes(suffix, u32(view.getUint32(at)))));
  return out;
}
