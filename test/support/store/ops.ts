// Writes named as data, for store tests that run the same versions on a store under test and on a reference
// (src/store/lost-version.test.ts, src/store/read-caches.test.ts).
import assert from "node:assert/strict";
import { toHex } from "../../../src/bytes/hex.ts";
import type { MultiStore } from "../../../src/store/multistore.ts";
import { verifyStoreProof } from "../../../src/store/proofs.ts";
import type { BranchMultiStore, ReadableKVStore } from "../../../src/store/types.ts";
import { b, entries, s } from "./helpers.ts";

/** One write: store, key, value (null deletes). */
export type Op = [string, string, string | null];

/** A top-level branch of `store` holding `ops`. */
export function branchOf(store: MultiStore, ops: Op[]): BranchMultiStore {
  const branch = store.branch();
  for (const [name, key, value] of ops) {
    if (value === null) branch.store(name).delete(b(key));
    else branch.store(name).set(b(key), b(value));
  }
  return branch;
}

/** Stages and commits `ops` as the next version; returns its app hash (hex). */
export async function commitOps(store: MultiStore, ops: Op[]): Promise<string> {
  const info = await store.stage(branchOf(store, ops));
  await store.commit();
  return toHex(info.appHash);
}

/** Commits `ops` on both stores (background work done on both after it, so write numbers agree); same app hash. */
export async function both(got: MultiStore, want: MultiStore, ops: Op[]): Promise<void> {
  assert.equal(await commitOps(got, ops), await commitOps(want, ops), "app hash");
  await got.idle();
  await want.idle();
}

/** What a test compares of one store at one version (both stores' answers must be deep-equal). */
export type StoreReads = (store: ReadableKVStore, keys: string[]) => Promise<unknown>;

/** Every key's value and the whole store's scan. */
const readAll: StoreReads = async (store, keys) => ({
  scan: await entries(store.iterate()),
  values: await Promise.all(keys.map(async (key) => s(await store.get(b(key))))),
});

/**
 * Stores `names` of `got` answer as `want`'s at every version both retain (`reads`, `rounds` times: a second round
 * reads what caches kept of the first), with the same latest version and app hash, and prove keys against the
 * version's app hash.
 */
export async function assertSameReads(
  got: MultiStore,
  want: MultiStore,
  names: string[],
  keys: string[],
  label: string,
  options: { reads?: StoreReads; rounds?: number } = {},
): Promise<void> {
  const { reads = readAll, rounds = 1 } = options;
  const latest = want.lastCommit().version;
  assert.equal(got.lastCommit().version, latest, `${label}: latest`);
  assert.equal(toHex(got.lastCommit().appHash), toHex(want.lastCommit().appHash), `${label}: app hash`);
  const [gotFrom, wantFrom] = [got.earliestVersion(), want.earliestVersion()];
  // biome-ignore lint/complexity/useMathMinMax: Math.max does not take bigints
  const from = gotFrom > wantFrom ? gotFrom : wantFrom;
  const proved = [...new Set([keys[0], keys[7] ?? keys[keys.length - 1], keys[keys.length - 1], "absent"])];
  for (let v = from; v <= latest; v++) {
    const [g, w] = [await got.view(v), await want.view(v)];
    assert.deepEqual(g.storeNames(), w.storeNames(), `${label}: stores@${v}`);
    for (let round = 0; round < rounds; round++) {
      for (const name of names.filter((n) => w.storeNames().includes(n))) {
        assert.deepEqual(
          await reads(g.store(name), keys),
          await reads(w.store(name), keys),
          `${label}: ${name}@${v} (round ${round})`,
        );
        for (const key of proved) {
          const proof = await got.prove(name, b(key), v);
          assert.ok(verifyStoreProof(proof, g.appHash as Uint8Array), `${label}: proof of ${name}/${key}@${v}`);
        }
      }
    }
  }
}
