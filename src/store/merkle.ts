// The app hash over (store name, store root) pairs encoded as CometBFT's simple-map KV pairs, as the RFC 6962 root
// (src/crypto/merkle.ts, the one merkle implementation) of those items.

import { sha256 } from "../bytes/sha256.ts";
import { utf8 } from "../bytes/text.ts";
import { merkleRoot } from "../crypto/merkle.ts";
import { ByteWriter } from "./byte-records.ts";

/**
 * The simple-map item of one store: uvarint(len name) name uvarint(32) sha256(storeRoot). Its
 * RFC 6962 leaf is what an ICS-23 proof under the Tendermint spec recomputes from (name, root).
 */
export function storeLeafItem(name: string, storeRoot: Uint8Array): Uint8Array {
  const nameBytes = utf8(name);
  const w = new ByteWriter(nameBytes.length + 40);
  w.lengthPrefixed(nameBytes).lengthPrefixed(sha256(storeRoot));
  return w.finish();
}

/** Items for the app hash, sorted by store name (bytewise on UTF-8, as Go sorts strings). */
export function appHashItems(roots: { name: string; root: Uint8Array }[]): { names: string[]; items: Uint8Array[] } {
  const sorted = [...roots].sort((a, b) => Buffer.compare(utf8(a.name), utf8(b.name)));
  return { names: sorted.map((r) => r.name), items: sorted.map((r) => storeLeafItem(r.name, r.root)) };
}

/** The app hash: RFC 6962 root over the stores' simple-map items, sorted by name. */
export function appHash(roots: { name: string; root: Uint8Array }[]): Uint8Array {
  return merkleRoot(appHashItems(roots).items);
}
