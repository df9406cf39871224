// JSON for the engine's own small records (state, validator sets): bigint and Uint8Array survive the round trip
// as {"$n":"…"} and {"$b":"hex"}. Blocks, commits and ABCI results are stored as protobuf instead.
//
// The block store writes the engine state and a validator set every height. JSON.stringify with a replacer calls
// back into JavaScript for every key and copied each byte array to hex it (~3.6% of a replayed height's CPU), so
// plain data is written by hand below, to the same text; anything else (a Buffer or another object with toJSON,
// a class instance, a cycle) takes JSON.stringify's own path.
//
// A height's save writes the same validator set four times (the set record, and the state's last, current and next
// sets, one array while the set does not change): the calls of one save share a memo of the arrays already written.

/** The replacer that defines the format: what JSON.stringify(value, storeReplacer) gives is the stored text. */
function storeReplacer(_key: string, v: unknown): unknown {
  if (typeof v === "bigint") return { $n: v.toString() };
  if (v instanceof Uint8Array) return { $b: hexOf(v) };
  return v;
}

function hexOf(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("hex");
}

/** Deeper than any engine record: a value nested further (or a cycle) is left to JSON.stringify. */
const MAX_DEPTH = 32;

/** Object keys as JSON strings with their colon: the engine's records repeat the same few dozen keys. */
const quotedKeys = new Map<string, string>();
const QUOTED_KEYS_KEPT = 1024;

function quotedKey(key: string): string {
  let quoted = quotedKeys.get(key);
  if (quoted === undefined) {
    quoted = `${JSON.stringify(key)}:`;
    if (quotedKeys.size < QUOTED_KEYS_KEPT) quotedKeys.set(key, quoted);
  }
  return quoted;
}

/** Raised inside the hand-written path for a value it does not write; the caller falls back to JSON.stringify. */
class NotPlain extends Error {}
const NOT_PLAIN = new NotPlain();

/**
 * `v`'s JSON, or undefined when `v` writes nothing (undefined, a function or a symbol: left out of an object, `null`
 * in an array, as JSON.stringify does).
 */
function write(v: unknown, depth: number, memo: ArrayTexts | undefined): string | undefined {
  switch (typeof v) {
    case "string":
      return JSON.stringify(v);
    case "number":
      return Number.isFinite(v) ? String(v) : "null";
    case "boolean":
      return v ? "true" : "false";
    case "bigint":
      return `{"$n":"${v.toString()}"}`;
    case "undefined":
    case "function":
    case "symbol":
      return undefined;
  }
  if (v === null) return "null";
  if (depth > MAX_DEPTH) throw NOT_PLAIN;
  const proto: unknown = Object.getPrototypeOf(v);
  if (proto === Uint8Array.prototype) return `{"$b":"${hexOf(v as Uint8Array)}"}`;
  if (Array.isArray(v)) {
    if (proto !== Array.prototype) throw NOT_PLAIN;
    const known = memo?.get(v);
    if (known !== undefined) return known;
    let text = "[";
    for (let i = 0; i < v.length; i++) {
      if (i > 0) text += ",";
      text += write(v[i], depth + 1, memo) ?? "null";
    }
    text += "]";
    // Kept only once written whole: a cycle still recurses to MAX_DEPTH and falls back to JSON.stringify.
    memo?.set(v, text);
    return text;
  }
  if ((proto !== Object.prototype && proto !== null) || typeof (v as { toJSON?: unknown }).toJSON === "function") {
    throw NOT_PLAIN;
  }
  let text = "{";
  for (const key of Object.keys(v as object)) {
    const value = write((v as Record<string, unknown>)[key], depth + 1, memo);
    if (value === undefined) continue;
    if (text.length > 1) text += ",";
    text += quotedKey(key) + value;
  }
  return `${text}}`;
}

/**
 * Arrays already written by calls that share it, by identity. Share one only between calls made together, over
 * values nothing changes in between (one save's records): a memo kept longer would write an array changed in place
 * as it was.
 */
export type ArrayTexts = Map<readonly unknown[], string>;

/** Serialises a value holding bigints and byte arrays; `memo` (see ArrayTexts) skips arrays already written. */
export function toStoreJson(value: unknown, memo?: ArrayTexts): string {
  let text: string | undefined;
  try {
    text = write(value, 0, memo);
  } catch (err) {
    if (err !== NOT_PLAIN) throw err;
  }
  return text ?? JSON.stringify(value, storeReplacer);
}

/** Reverses {@link toStoreJson}. */
export function fromStoreJson<T>(text: string): T {
  return JSON.parse(text, (_key, v: unknown) => {
    if (v !== null && typeof v === "object" && !Array.isArray(v)) {
      const keys = Object.keys(v);
      if (keys.length === 1 && keys[0] === "$n") return BigInt((v as { $n: string }).$n);
      if (keys.length === 1 && keys[0] === "$b") return new Uint8Array(Buffer.from((v as { $b: string }).$b, "hex"));
    }
    return v;
  }) as T;
}
