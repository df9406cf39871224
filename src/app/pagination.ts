// Pagination of store ranges for list queries, with upstream's rules (types/query/pagination.go):
// either a key or an offset (not both); limit 0 means the default 100 and counts the total; the
// response's next_key is the key (relative to the prefix) where the next page starts.
import { concatBytes } from "../bytes/concat.ts";
import { readRangeOf } from "../store/entry-iterators.ts";
import type { IterateOptions, ReadableKVStore } from "../store/types.ts";
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

/** A page request with upstream's defaults applied: no limit means DEFAULT_PAGE_LIMIT and a counted total. */
export interface NormalizedPageRequest {
  key: Uint8Array;
  offset: bigint;
  limit: bigint;
  countTotal: boolean;
  reverse: boolean;
}

/**
 * The one reading of a page request (`paginate`, `filteredPaginate`): absent fields take their zero values, a zero
 * limit becomes DEFAULT_PAGE_LIMIT with the total counted, and a request with both an offset and a key is an
 * InvalidArgument GrpcStatusError.
 */
export function normalizePageRequest(request: PageRequestLike | undefined): NormalizedPageRequest {
  const key = request?.key ?? NO_BYTES;
  const offset = request?.offset ?? 0n;
  if (offset > 0n && key.length > 0) {
    throw new GrpcStatusError(GrpcCode.InvalidArgument, "invalid request, either offset or key is expected, got both");
  }
  const limit = request?.limit ?? 0n;
  if (limit === 0n)
    return { key, offset, limit: DEFAULT_PAGE_LIMIT, countTotal: true, reverse: request?.reverse ?? false };
  return { key, offset, limit, countTotal: request?.countTotal ?? false, reverse: request?.reverse ?? false };
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
  const { key, offset, limit, countTotal, reverse } = normalizePageRequest(request);

  const items: T[] = [];
  let nextKey = NO_BYTES;

  if (key.length > 0) {
    const start = concatBytes(prefix, key);
    const range: IterateOptions = reverse
      ? { prefix, end: concatBytes(start, ZERO_BYTE), reverse: true }
      : { prefix, start };
    let count = 0n;
    await walk(
      store,
      range,
      limit + 1n,
      (fullKey, value) => {
        if (count === limit) {
          nextKey = fullKey.slice(prefix.length);
          return STOP;
        }
        count++;
        return decode(fullKey.slice(prefix.length), value);
      },
      items,
    );
    return { items, pagination: { nextKey, total: 0n } };
  }

  const end = offset + limit;
  let index = 0n;
  // With count_total every entry is visited; without, the page and one more.
  await walk(
    store,
    { prefix, reverse },
    countTotal ? undefined : end + 1n,
    (fullKey, value) => {
      const at = index++;
      if (at >= offset && at < end) return decode(fullKey.slice(prefix.length), value);
      if (at === end) {
        nextKey = fullKey.slice(prefix.length);
        if (!countTotal) return STOP;
      }
      return SKIP;
    },
    items,
  );
  return { items, pagination: { nextKey, total: countTotal ? index : 0n } };
}

const ZERO_BYTE = new Uint8Array([0]);

/** The most entries a page reads in one call; a longer walk goes on by iteration. */
const ONE_READ_MAX = 1000;
const ONE_READ_MAX_BIG = BigInt(ONE_READ_MAX);

type Entry = [Uint8Array, Uint8Array];

const STOP: unique symbol = Symbol("stop");
const SKIP: unique symbol = Symbol("skip");

/**
 * Visits the entries of `range` in order until `visit` says STOP, pushing what it returns (other
 * than SKIP) onto `items`. `needed`, when known, is how many entries the walk can visit at most.
 * The first ONE_READ_MAX (or `needed`) entries come in one read (RangeReader: no iterator per
 * layer, no second engine call to find the end); the rest, when there is more, by iteration from
 * just past the last one. A gas-metered store charges the same either way: each entry read, plus
 * one step when the end is found.
 */
async function walk<T>(
  store: ReadableKVStore,
  range: IterateOptions,
  needed: bigint | undefined,
  visit: Visit<T>,
  items: T[],
): Promise<void> {
  const first = needed !== undefined && needed < ONE_READ_MAX_BIG ? Number(needed) : ONE_READ_MAX;
  const options = { prefix: range.prefix, start: range.start, end: range.end, reverse: range.reverse, limit: first };
  const entries = await readRangeOf(store, options);
  let stopped = visitAll(entries, visit, items);
  if (stopped instanceof Promise) stopped = await stopped;
  if (stopped || entries.length < first) return;
  const last = entries[entries.length - 1][0];
  const rest: IterateOptions = range.reverse
    ? { prefix: range.prefix, start: range.start, end: last, reverse: true }
    : { prefix: range.prefix, start: concatBytes(last, ZERO_BYTE), end: range.end };
  for await (const [fullKey, value] of store.iterate(rest)) {
    const item = visit(fullKey, value);
    if (item === STOP) return;
    if (item === SKIP) continue;
    items.push(item instanceof Promise ? await item : item);
  }
}

type Visit<T> = (fullKey: Uint8Array, value: Uint8Array) => T | Promise<T> | typeof STOP | typeof SKIP;

/**
 * Visits `entries` in order; true when `visit` said STOP. Synchronous while the decoder is (most
 * are: no promise per page), going on asynchronously, in order, from the first decode that is not.
 */
function visitAll<T>(entries: Entry[], visit: Visit<T>, items: T[]): boolean | Promise<boolean> {
  for (let i = 0; i < entries.length; i++) {
    const item = visit(entries[i][0], entries[i][1]);
    if (item === STOP) return true;
    if (item === SKIP) continue;
    if (item instanceof Promise) return visitRest(entries, i, item, visit, items);
    items.push(item);
  }
  return false;
}

async function visitRest<T>(
  entries: Entry[],
  at: number,
  pending: Promise<T>,
  visit: Visit<T>,
  items: T[],
): Promise<boolean> {
  items.push(await pending);
  for (let i = at + 1; i < entries.length; i++) {
    const item = visit(entries[i][0], entries[i][1]);
    if (item === STOP) return true;
    if (item === SKIP) continue;
    items.push(item instanceof Promise ? await item : item);
  }
  return false;
}
