// One store's commit staged ahead of its block: the tree updates, hashes and flat rows of writes made ahead of the
// block they belong to (the next block's stepped-migration steps, done while the engine waits timeout_commit), kept
// for the stage of that block. Staging is a function of the committed tree, the version, the store's writes and the
// rows it reads (deleted rows of keys set again), so the kept result stands for the block's stage exactly when all
// four are still what they were: no commit since (the same root object), the same version, the block's writes to the
// store the very same list (the same write objects, each with the same value; in the compact form the same set of
// writes, handed over whole, with no write since), and no background batch since (the only other writer of rows).
// Anything else and the block stages the store itself, as without it.
import type { CacheLayer, PendingWrite, SortedWrites } from "./cache-layer.ts";
import { CompactSortedWrites, type CompactWrites } from "./compact-writes.ts";
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
  /** Which writes it staged (`markWrites`). */
  mark: WritesMark;
  store: S;
  /** The version's batch, with this store's rows in it (the block's stage adds the other stores' rows). */
  batch: KVBatch;
}

/** What says which writes were staged: the small form's write objects and their values, or a compact set's stamp. */
export type WritesMark =
  | { writes: readonly PendingWrite[]; values: (Uint8Array | null)[] }
  | { compact: CompactWrites; stamp: number };

/** The mark of `writes` as they are now. */
export function markWrites(writes: SortedWrites): WritesMark {
  if (writes instanceof CompactSortedWrites) return { compact: writes.writes, stamp: writes.stamp };
  return { writes, values: writes.map((w) => w.value) };
}

/** Whether the block's working layer of the store holds exactly the writes staged ahead (see the file comment). */
export function sameWrites(ahead: StagedAhead<unknown>, layer: CacheLayer): boolean {
  const mark = ahead.mark;
  const writes = layer.sortedWrites();
  if ("compact" in mark) {
    return writes instanceof CompactSortedWrites && writes.writes === mark.compact && mark.compact.stamp === mark.stamp;
  }
  if (writes instanceof CompactSortedWrites || layer.size !== mark.writes.length) return false;
  if (writes.length !== mark.writes.length) return false;
  for (let i = 0; i < writes.length; i++) {
    if (writes[i] !== mark.writes[i] || writes[i].value !== mark.values[i]) return false;
  }
  return true;
}
