// Reads the last committed height of a LevelDB state store without mounting its stores, so a store
// loader can decide on store upgrades (which change the set of stores) before the real open.
// This reads the store's own metadata records; it belongs in src/store and should move there once
// the store exports an equivalent.
import { existsSync } from "node:fs";
import { META, metaKey } from "../store/keys.ts";
import { openLevelBackend } from "../store/kv-backend.ts";
import { decodeVersion } from "../store/records.ts";

/** The last committed version of the state store at `path` (0 when absent or never committed). */
export async function readCommittedHeight(path: string): Promise<bigint> {
  if (!existsSync(path)) return 0n;
  const backend = await openLevelBackend(path, { createIfMissing: false });
  try {
    const latest = backend.getSync(metaKey(META.latest));
    return latest === undefined ? 0n : BigInt(decodeVersion(latest));
  } finally {
    await backend.close();
  }
}
