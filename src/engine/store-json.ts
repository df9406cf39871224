// JSON for the engine's own small records (state, validator sets): bigint and Uint8Array survive the round trip
// as {"$n":"…"} and {"$b":"hex"}. Blocks, commits and ABCI results are stored as protobuf instead.

/** Serialises a value holding bigints and byte arrays. */
export function toStoreJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v === "bigint") return { $n: v.toString() };
    if (v instanceof Uint8Array) return { $b: Buffer.from(v).toString("hex") };
    return v;
  });
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
