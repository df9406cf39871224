// Bech32 encoding and decoding of the same few addresses happens many times per tx (events, signer
// checks, keeper calls); these memoised forms keep that off the hot path. Bounded; oldest go first.
// Returned byte arrays are shared: callers must not modify them.
import { addressToBech32, type Bech32Prefixes, currentBech32Prefixes, decodeBech32 } from "../crypto/index.ts";

const LIMIT = 20_000;
const encoded = new Map<string, string>();
const decoded = new Map<string, { prefix: string; data: Uint8Array }>();
// The prefixes the encodings were made with: a process that switches chains (tests) must not see the old prefix.
let encodedWith: Bech32Prefixes = currentBech32Prefixes();

/** `chain1…` of 20- or 32-byte address bytes (memoised addressToBech32). */
export function accountBech32(address: Uint8Array): string {
  const prefixes = currentBech32Prefixes();
  if (prefixes !== encodedWith) {
    encoded.clear();
    encodedWith = prefixes;
  }
  const key = Buffer.from(address.buffer, address.byteOffset, address.byteLength).toString("latin1");
  let text = encoded.get(key);
  if (text === undefined) {
    text = addressToBech32(address);
    remember(encoded, key, text);
  }
  return text;
}

/** Prefix and bytes of a bech32 string (memoised decodeBech32; errors are not cached). */
export function decodeBech32Cached(text: string): { prefix: string; data: Uint8Array } {
  let result = decoded.get(text);
  if (result === undefined) {
    result = decodeBech32(text);
    remember(decoded, text, result);
  }
  return result;
}

/** The account prefix of the chain this process serves. */
export function accountPrefix(): string {
  return currentBech32Prefixes().acc;
}

function remember<V>(map: Map<string, V>, key: string, value: V): void {
  if (map.size >= LIMIT) {
    const oldest = map.keys().next();
    if (!oldest.done) map.delete(oldest.value);
  }
  map.set(key, value);
}
