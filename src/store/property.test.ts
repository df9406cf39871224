// Property test: random sets, deletes, nested branches written or dropped, blocks committed,
// discarded or abandoned, with and without pruning, checked against a plain Map model: reads at
// every retained version, iteration in both directions (whole, prefix, range) and proofs.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import { KEEP_ALL, tempDir } from "../../test/support/store/helpers.ts";
import { toHex } from "../bytes/hex.ts";
import { bytesToBinaryString } from "../bytes/text.ts";
import { setCompactAfter } from "./cache-layer.ts";
import { PrunedVersionError } from "./errors.ts";
import { type MultiStore, openMultiStore } from "./multistore.ts";
import { verifyStoreProof } from "./proofs.ts";
import type { KVStore, PruningOptions, ReadableKVStore } from "./types.ts";

const STORES = ["alpha", "beta"];
type State = Map<string, Map<string, Uint8Array>>;

interface WriteOp {
  store: number;
  key: Uint8Array;
  /** undefined = delete */
  value: Uint8Array | undefined;
}
interface Tx {
  ops: WriteOp[];
  keep: boolean;
}
interface Block {
  txs: Tx[];
  outcome: "commit" | "discard" | "abandon";
  waitForPruning: boolean;
}

// Few distinct bytes so prefixes, neighbours, 0x00 and 0xff edges come up often.
const keyArb = fc.uint8Array({ minLength: 1, maxLength: 3 }).map((k) => k.map((x) => [0, 1, 0x61, 0x62, 0xff][x % 5]));
const opArb: fc.Arbitrary<WriteOp> = fc.record({
  store: fc.integer({ min: 0, max: STORES.length - 1 }),
  key: keyArb,
  value: fc.option(fc.uint8Array({ minLength: 0, maxLength: 3 }), { nil: undefined, freq: 4 }),
});
const blockArb: fc.Arbitrary<Block> = fc.record({
  txs: fc.array(fc.record({ ops: fc.array(opArb, { maxLength: 6 }), keep: fc.boolean() }), { maxLength: 3 }),
  outcome: fc.constantFrom("commit", "commit", "commit", "discard", "abandon"),
  waitForPruning: fc.boolean(),
});

function sortedEntries(state: Map<string, Uint8Array>): [string, Uint8Array][] {
  return [...state.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

function copy(state: State): State {
  return new Map([...state].map(([name, m]) => [name, new Map(m)]));
}

function apply(state: State, op: WriteOp): void {
  const m = state.get(STORES[op.store]) as Map<string, Uint8Array>;
  const k = bytesToBinaryString(op.key);
  if (op.value === undefined) m.delete(k);
  else m.set(k, op.value);
}

async function collect(store: ReadableKVStore, options?: Parameters<ReadableKVStore["iterate"]>[0]): Promise<string[]> {
  const out: string[] = [];
  for await (const [k, v] of store.iterate(options)) out.push(`${toHex(k)}=${toHex(v)}`);
  return out;
}

function expected(state: Map<string, Uint8Array>, lo?: string, hi?: string): string[] {
  return sortedEntries(state)
    .filter(([k]) => (lo === undefined || k >= lo) && (hi === undefined || k < hi))
    .map(([k, v]) => `${toHex(Buffer.from(k, "latin1"))}=${toHex(v)}`);
}

/** Compares a store's reads and iteration (whole, reversed, a prefix, a range) with the model. */
async function compare(
  store: ReadableKVStore | KVStore,
  state: Map<string, Uint8Array>,
  probe: Uint8Array,
): Promise<void> {
  const all = expected(state);
  assert.deepEqual(await collect(store), all);
  assert.deepEqual(await collect(store, { reverse: true }), [...all].reverse());
  const p = probe.subarray(0, 1);
  const pk = bytesToBinaryString(p);
  const pe = p[0] === 0xff ? undefined : String.fromCharCode(p[0] + 1);
  assert.deepEqual(await collect(store, { prefix: p }), expected(state, pk, pe));
  assert.deepEqual(await collect(store, { prefix: p, reverse: true }), expected(state, pk, pe).reverse());
  const sk = bytesToBinaryString(probe);
  assert.deepEqual(await collect(store, { start: p, end: probe }), expected(state, pk, sk));
  assert.deepEqual(
    await collect(store, { start: probe, reverse: true, limit: 2 }),
    expected(state, sk).reverse().slice(0, 2),
  );
  const got = await store.get(probe);
  const want = state.get(sk);
  assert.equal(got === undefined ? undefined : toHex(got), want === undefined ? undefined : toHex(want));
}

async function runProgram(store: MultiStore, blocks: Block[], probes: Uint8Array[]): Promise<void> {
  let committed: State = new Map(STORES.map((n) => [n, new Map()]));
  const history = new Map<number, State>();
  let p = 0;
  const nextProbe = (): Uint8Array => probes[p++ % probes.length];
  for (const block of blocks) {
    const branch = store.branch();
    let working = copy(committed);
    for (const tx of block.txs) {
      const txBranch = branch.branch();
      const txState = copy(working);
      for (const op of tx.ops) {
        const s = txBranch.store(STORES[op.store]);
        if (op.value === undefined) s.delete(op.key);
        else s.set(op.key, op.value);
        apply(txState, op);
      }
      const which = tx.ops.length > 0 ? tx.ops[0].store : 0;
      await compare(txBranch.store(STORES[which]), txState.get(STORES[which]) as Map<string, Uint8Array>, nextProbe());
      if (tx.keep) {
        txBranch.write();
        working = txState;
      }
    }
    await compare(branch.store(STORES[0]), working.get(STORES[0]) as Map<string, Uint8Array>, nextProbe());
    if (block.outcome === "abandon") continue;
    await store.stage(branch);
    if (block.outcome === "discard") {
      store.discardStaged();
      continue;
    }
    const info = await store.commit();
    committed = working;
    history.set(Number(info.version), committed);
    if (block.waitForPruning) await store.idle();
  }
  // Every retained version reads as the model did then; pruned ones say so.
  const earliest = Number(store.earliestVersion());
  for (const [version, state] of history) {
    if (version < earliest) {
      await assert.rejects(store.view(BigInt(version)), PrunedVersionError);
      continue;
    }
    const view = await store.view(BigInt(version));
    for (const name of STORES) {
      const m = state.get(name) as Map<string, Uint8Array>;
      await compare(view.store(name), m, nextProbe());
      for (const key of [nextProbe(), nextProbe()]) {
        const proof = await store.prove(name, key, BigInt(version));
        const want = m.get(bytesToBinaryString(key));
        assert.equal(
          proof.value === undefined ? undefined : toHex(proof.value),
          want === undefined ? undefined : toHex(want),
        );
        assert.ok(
          verifyStoreProof(proof, view.appHash as Uint8Array),
          `proof of ${toHex(key)} in ${name} at ${version}`,
        );
      }
    }
  }
}

const pruningArb: fc.Arbitrary<PruningOptions> = fc.constantFrom<PruningOptions>(
  KEEP_ALL,
  { strategy: "custom", keepRecent: 2n, interval: 1n },
  { strategy: "custom", keepRecent: 1n, interval: 3n },
);

describe("store against a Map model", () => {
  test("in memory", () => inMemory(120));

  test("in memory, every layer's writes in the compact form from its first write (cache-layer.ts)", async () => {
    const previous = setCompactAfter(0);
    try {
      await inMemory(60);
    } finally {
      setCompactAfter(previous);
    }
  });

  test("on LevelDB, reopening between programs", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(blockArb, { minLength: 1, maxLength: 6 }),
        fc.array(keyArb, { minLength: 1, maxLength: 6 }),
        pruningArb,
        async (blocks, probes, pruning) => {
          const dir = await tempDir();
          try {
            const store = await openMultiStore({ path: dir.path, storeNames: STORES, pruning, backgroundBatchSize: 2 });
            await runProgram(store, blocks, probes);
            const hash = store.lastCommit();
            await store.close();
            const reopened = await openMultiStore({ path: dir.path, storeNames: STORES, pruning });
            try {
              assert.deepEqual(reopened.lastCommit(), hash);
              await reopened.idle();
            } finally {
              await reopened.close();
            }
          } finally {
            await dir.remove();
          }
        },
      ),
      { numRuns: 15 },
    );
  });
});

async function inMemory(numRuns: number): Promise<void> {
  await fc.assert(
    fc.asyncProperty(
      fc.array(blockArb, { minLength: 1, maxLength: 8 }),
      fc.array(keyArb, { minLength: 1, maxLength: 8 }),
      pruningArb,
      fc.integer({ min: 1, max: 4 }),
      async (blocks, probes, pruning, batch) => {
        const store = await openMultiStore({
          backend: "memory",
          storeNames: STORES,
          pruning,
          backgroundBatchSize: batch,
        });
        try {
          await runProgram(store, blocks, probes);
        } finally {
          await store.close();
        }
      },
    ),
    { numRuns },
  );
}
