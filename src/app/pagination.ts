// Pagination of store ranges for list queries, with upstream's rules (types/query/pagination.go):
// either a key or an offset (not both); limit 0 means the default 100 and counts the total; the
// response's next_key is the key (relative to the prefix) where the next page starts.
import { concatBytes } from "../store/bytes.ts";
import type { ReadableKVStore } from "../store/types.ts";
import { GrpcCode, GrpcStatusError } from "./errors.ts";

// An absent key and the last page's next_key: one shared empty array (a zero-length array cannot
// change), not an allocation per query.
const NO_BYTES = new Uint8Array(0);

/** Default page size. */
export const DEFAULT_PAGE_LIMIT = 100n;

/**
 * The largest page of a list that grows with chain history (txs, proposals, votes, deposits,
 * accounts): upstream's tx search maximum (CometBFT `tx_search` per_page). A larger limit gets a
 * page of this size, not an error, as CometBFT's per_page does; the page response still says how to
 * go on (next_key, total).
 */
export const MAX_HISTORY_PAGE_LIMIT = 100n;

/** `limit` lowered to {@link MAX_HISTORY_PAGE_LIMIT}. */
export function capHistoryLimit(limit: bigint): bigint {
  return limit > MAX_HISTORY_PAGE_LIMIT ? MAX_HISTORY_PAGE_LIMIT : limit;
}

/** `request` with its limit lowered to {@link MAX_HISTORY_PAGE_LIMIT} (limit 0 keeps meaning the default). */
export function capHistoryPage<T extends PageRequestLike | undefined>(request: T): T {
  if (request === undefined || request.limit <= MAX_HISTORY_PAGE_LIMIT) return request;
  return { ...request, limit: MAX_HISTORY_PAGE_LIMIT };
}

/** The fields of chain.base.query.v1beta1.PageRequest. */
export interface PageRequestLike {
  key: Uint8Array;
  offset: bigint;
  limit: bigint;
  countTotal: boolean;
  reverse: boolean;
}

/** The fields of chain.base.query.v1beta1.PageResponse. */
export interface PageResponseLike {
  nextKey: Uint8Array;
  total: bigint;
}

/** One page of decoded items plus the page response. */
export interface Page<T> {
  items: T[];
  pagination: PageResponseLike;
}

/**
 * Pages through the entries of `store` under `prefix`. `decode` gets the key without the prefix and
 * the value. Errors are InvalidArgument GrpcStatusErrors.
 */
export async function paginate<T>(
  store: ReadableKVStore,
  prefix: Uint8Array,
  request: PageRequestLike | undefined,
  decode: (key: Uint8Array, value: Uint8Array) => T | Promise<T>,
): Promise<Page<T>> {
  const key = request?.key ?? NO_BYTES;
  const offset = request?.offset ?? 0n;
  let limit = request?.limit ?? 0n;
  let countTotal = request?.countTotal ?? false;
  const reverse = request?.reverse ?? false;
  if (offset > 0n && key.length > 0) {
    throw new GrpcStatusError(GrpcCode.InvalidArgument, "invalid request, either offset or key is expected, got both");
  }
  if (limit === 0n) {
    limit = DEFAULT_PAGE_LIMIT;
    countTotal = true;
  }

  const items: T[] = [];
  let nextKey = NO_BYTES;

  if (key.length > 0) {
    const start = concatBytes(prefix, key);
    const iteration = reverse
      ? store.iterate({ prefix, end: concatBytes(start, new Uint8Array([0])), reverse: true })
      : store.iterate({ prefix, start });
    let count = 0n;
    for await (const [fullKey, value] of iteration) {
      if (count === limit) {
        nextKey = fullKey.slice(prefix.length);
        break;
      }
      const item = decode(fullKey.slice(prefix.length), value);
      items.push(item instanceof Promise ? await item : item);
      count++;
    }
    return { items, pagination: { nextKey, total: 0n } };
  }

  const end = offset + limit;
  let index = 0n;
  for await (const [fullKey, value] of store.iterate({ prefix, reverse })) {
    if (index >= offset && index < end) {
      const item = decode(fullKey.slice(prefix.length), value);
      // Most decoders are synchronous: awaiting a plain value would still cost a promise tick.
      items.push(item instanceof Promise ? await item : item);
    } else if (index === end) {
      nextKey = fullKey.slice(prefix.length);
      if (!countTotal) break;
    }
    index++;
  }
  return { items, pagination: { nextKey, total: countTotal ? index : 0n } };
}
