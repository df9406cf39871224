// Comparing byte arrays: order, equality and prefixes (LevelDB's bytewise order), for the store, the app's branches
// and the modules' keys.

/** An empty byte array, shared (never written to). */
export const EMPTY_BYTES = new Uint8Array(0);

/** Bytewise three-way comparison (LevelDB's default order). */
export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  // A plain loop beats a native call for short keys, which usually differ early.
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const d = a[i] - b[i];
    if (d !== 0) return d < 0 ? -1 : 1;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

/** True when both arrays hold the same bytes. */
export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** True when `key` starts with `prefix`. */
export function hasPrefix(key: Uint8Array, prefix: Uint8Array): boolean {
  if (key.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (key[i] !== prefix[i]) return false;
  return true;
}

/**
 * The smallest key greater than every key that starts with `prefix`, or undefined when no such
 * key exists (an empty prefix or one made only of 0xff bytes).
 */
export function prefixEnd(prefix: Uint8Array): Uint8Array | undefined {
  let i = prefix.length - 1;
  while (i >= 0 && prefix[i] === 0xff) i--;
  if (i < 0) return undefined;
  // A copy even when `prefix` is a Buffer, whose slice() is a view: the increment must never reach the caller's bytes.
  const end = Uint8Array.prototype.slice.call(prefix, 0, i + 1);
  end[i]++;
  return end;
}
