// Each store's key count at one committed version, for the dry run's and the rehearsal's store table. The store
// answers from its tree's root (VersionView.keyCount, O(1)); iterating is only the fallback for a view without it,
// since reading every record of a million-key store took longer than the upgrade being rehearsed (issue 33).
import type { ReadableKVStore, VersionView } from "../store/types.ts";

/** Store name → number of keys at the view's version. */
export async function storeKeyCounts(view: VersionView): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const name of view.storeNames()) {
    counts.set(name, view.keyCount?.(name) ?? (await iteratedCount(view.store(name))));
  }
  return counts;
}

/** Counts by reading every entry (a branch's pending writes have no tree to ask). */
export async function iteratedCount(store: ReadableKVStore): Promise<number> {
  let count = 0;
  for await (const _entry of store.iterate()) count++;
  return count;
}
