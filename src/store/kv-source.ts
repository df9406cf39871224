// The internal read contract shared by every layer of a store (cache layers, the staged working
// set, committed versions): synchronous point reads and ordered async range scans. The public
// KVStore/ReadableKVStore interfaces of types.ts are thin async wrappers over it.
import { compareBytes, prefixEnd } from "../bytes/compare.ts";
import type { IterateOptions } from "./types.ts";

/** A normalised scan: keys in [lo, hi) (either side open when undefined). */
export interface ScanRange {
  lo: Uint8Array | undefined;
  hi: Uint8Array | undefined;
  reverse: boolean;
}

/** One readable layer. */
export interface KVSource {
  /** The value, or undefined when absent (or deleted in this layer). `sk` is the key's binary string when known. */
  readSync(key: Uint8Array, sk?: string): Uint8Array | undefined;
  /**
   * `readSync` as a promise, for sources that can hand out one they already hold: `ReadOnlyStore.get`
   * then makes no promise of its own. Throws where `readSync` would.
   */
  readPromise?(key: Uint8Array): Promise<Uint8Array | undefined>;
  /** Entries of the range in key order (descending when `range.reverse`). */
  scan(range: ScanRange): AsyncIterable<[Uint8Array, Uint8Array]>;
}

/** Rejects keys that are not non-empty byte arrays, naming the operation. */
export function assertKey(key: unknown, operation: string): asserts key is Uint8Array {
  if (!(key instanceof Uint8Array)) {
    throw new TypeError(`${operation}: key must be a Uint8Array, got ${key === null ? "null" : typeof key}`);
  }
  if (key.length === 0) throw new TypeError(`${operation}: key must not be empty`);
}

/** Rejects values that are not byte arrays (an empty array is a valid value). */
export function assertValue(value: unknown, operation: string): asserts value is Uint8Array {
  if (!(value instanceof Uint8Array)) {
    throw new TypeError(
      `${operation}: value must be a Uint8Array, got ${value === null ? "null" : typeof value}; use delete() to remove a key`,
    );
  }
}

/** Turns public iteration options into a [lo, hi) range; throws on malformed options. */
export function toScanRange(options: IterateOptions | undefined): { range: ScanRange; limit: number } {
  const o = options ?? {};
  for (const field of ["prefix", "start", "end"] as const) {
    const v = o[field];
    if (v !== undefined && !(v instanceof Uint8Array)) {
      throw new TypeError(`iterate: ${field} must be a Uint8Array when given, got ${typeof v}`);
    }
  }
  let limit = Number.POSITIVE_INFINITY;
  if (o.limit !== undefined) {
    if (!Number.isInteger(o.limit) || o.limit < 0) {
      throw new TypeError(`iterate: limit must be a non-negative integer, got ${String(o.limit)}`);
    }
    limit = o.limit;
  }
  let lo = o.start;
  let hi = o.end;
  if (o.prefix !== undefined && o.prefix.length > 0) {
    if (lo === undefined || compareBytes(lo, o.prefix) < 0) lo = o.prefix;
    const pe = prefixEnd(o.prefix);
    if (pe !== undefined && (hi === undefined || compareBytes(pe, hi) < 0)) hi = pe;
  }
  return { range: { lo, hi, reverse: o.reverse === true }, limit };
}

/** True when the range is empty (lo ≥ hi). */
export function isEmptyRange(range: ScanRange): boolean {
  return range.lo !== undefined && range.hi !== undefined && compareBytes(range.lo, range.hi) >= 0;
}

/** Applies a limit to an async iteration. */
export async function* limited<T>(source: AsyncIterable<T>, limit: number): AsyncIterable<T> {
  if (limit <= 0) return;
  let n = 0;
  for await (const item of source) {
    yield item;
    if (++n >= limit) return;
  }
}
