// One store's commit staged ahead of its block: the tree updates, hashes and flat rows of writes made ahead of the
// block they belong to (the next block's stepped-migration steps, done while the engine waits timeout_commit), kept
// for the stage of that block. Staging is a function of the committed tree, the version, the store's writes and the
// rows it reads (deleted rows of keys set again), so the kept result stands for the block's stage exactly when all
// four are still what they were: no commit since (the same root object), the same version, the block's writes to the
// store the very same list (the same write objects, each with the same value), and no background batch since (the
// only other writer of rows). Anything else and the block stages the store itself, as without it.
import type { CacheLayer, PendingWrite } from "./cache-layer.ts";
import type { KVBatch } from "./kv-backend.ts";
import type { TreeNode } from "./tree-node.ts";

/** What staging one store ahead keeps (`S` is the multistore's staged-store record). */
export interface StagedAhead<S> {
  name: string;
  sid: number;
  version: number;
  /** The committed root it was staged over. */
  base: TreeNode | undefined;
  /** The background work's rows mark when it was staged (`BackgroundWork.rowsMark`). */
  rowsMark: number;
  /** The writes it staged, in key order, and each one's value then. */
  writes: readonly PendingWrite[];
  values: (Uint8Array | null)[];
  store: S;
  /** The version's batch, with this store's rows in it (the block's stage adds the other stores' rows). */
  batch: KVBatch;
}

/** Whether the block's working layer of the store holds exactly the writes staged ahead (see the file comment). */
export function sameWrites(ahead: StagedAhead<unknown>, layer: CacheLayer): boolean {
  if (layer.size !== ahead.writes.length) return false;
  const writes = layer.sortedWrites();
  if (writes.length !== ahead.writes.length) return false;
  for (let i = 0; i < writes.length; i++) {
    if (writes[i] !== ahead.writes[i] || writes[i].value !== ahead.values[i]) return false;
  }
  return true;
}
