// Pagination that counts only the entries a filter accepts (upstream query.FilteredPaginate), for
// list queries with filters (gov: status, voter, depositor; staking: status). The framework's `paginate` counts every entry.

import { concatBytes } from "../bytes/concat.ts";
import type { ReadableKVStore } from "../store/types.ts";
import { normalizePageRequest, type Page, type PageRequestLike } from "./pagination.ts";

/**
 * Pages through `store` under `prefix`, keeping entries for which `accept` returns a value.
 * Offsets, limits and totals count accepted entries only; next_key is the raw key (without the
 * prefix) where the next page starts.
 */
export async function filteredPaginate<T>(
  store: ReadableKVStore,
  prefix: Uint8Array,
  request: PageRequestLike | undefined,
  accept: (key: Uint8Array, value: Uint8Array) => Promise<T | undefined>,
): Promise<Page<T>> {
  const { key, offset, limit, countTotal, reverse } = normalizePageRequest(request);
  const items: T[] = [];
  let nextKey = new Uint8Array();

  if (key.length > 0) {
    const start = concatBytes(prefix, key);
    const iteration = reverse
      ? store.iterate({ prefix, end: concatBytes(start, Uint8Array.of(0)), reverse: true })
      : store.iterate({ prefix, start });
    let hits = 0n;
    for await (const [fullKey, value] of iteration) {
      if (hits === limit) {
        nextKey = fullKey.slice(prefix.length);
        break;
      }
      const item = await accept(fullKey.slice(prefix.length), value);
      if (item !== undefined) {
        items.push(item);
        hits++;
      }
    }
    return { items, pagination: { nextKey, total: 0n } };
  }

  const end = offset + limit;
  let hits = 0n;
  for await (const [fullKey, value] of store.iterate({ prefix, reverse })) {
    const item = await accept(fullKey.slice(prefix.length), value);
    if (item === undefined) continue;
    if (hits >= offset && hits < end) items.push(item);
    hits++;
    if (hits === end + 1n) {
      nextKey = fullKey.slice(prefix.length);
      if (!countTotal) break;
    }
  }
  return { items, pagination: { nextKey, total: countTotal ? hits : 0n } };
}
