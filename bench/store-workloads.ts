// The store workloads of iavl.bench.ts on our side: the same shapes bench/iavl/main.go runs on IAVL (32-byte random
// keys, 100-byte random values, the tree loaded 20,000 keys a version), on a real LevelDB multistore opened as the
// node opens it (synced commits, default caches).
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { type MultiStore, openMultiStore } from "../src/store/multistore.ts";
import type { PruningOptions } from "../src/store/types.ts";
import type { ReadPhase } from "./iavl-program.ts";

const KEEP_ALL: PruningOptions = { strategy: "nothing", keepRecent: 0n, interval: 0n };
const LOAD_BLOCK = 20_000;

/** The middle value (the upper one of an even count). */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function randomKeys(count: number): Uint8Array[] {
  return Array.from({ length: count }, () => new Uint8Array(randomBytes(32)));
}

function randomValue(): Uint8Array {
  return new Uint8Array(randomBytes(100));
}

async function load(store: MultiStore, population: Uint8Array[]): Promise<void> {
  for (let from = 0; from < population.length; from += LOAD_BLOCK) {
    const block = store.branch();
    const bank = block.store("bank");
    for (let i = from; i < Math.min(population.length, from + LOAD_BLOCK); i++) bank.set(population[i], randomValue());
    await store.stage(block);
    await store.commit();
  }
}

/** Each round's wall time and the process's CPU time in it (every thread: LevelDB's and the leaf hasher's too). */
export interface CommitRounds {
  ms: number[];
  cpuMs: number[];
}

/**
 * Times `rounds` versions of `writes` updates (set, stage, commit) into a store of `keys` keys: every key when the
 * two are equal, random existing keys otherwise. Rounds run back to back as a node's blocks do, so a round also
 * pays for whatever the previous commit left running (its tree pages' write); the last one is awaited before close.
 */
export async function ourCommitRounds(
  dir: string,
  keys: number,
  writes: number,
  rounds: number,
): Promise<CommitRounds> {
  const store = await openMultiStore({ path: join(dir, "ours"), storeNames: ["bank"], pruning: KEEP_ALL });
  try {
    const population = randomKeys(keys);
    await load(store, population);
    await store.idle();
    const out: CommitRounds = { ms: [], cpuMs: [] };
    for (let r = 0; r < rounds; r++) {
      const picks =
        keys === writes
          ? population
          : Array.from({ length: writes }, () => population[Math.floor(Math.random() * population.length)]);
      const values = Array.from({ length: writes }, randomValue);
      const t = performance.now();
      const cpu = process.cpuUsage();
      const bank = store.branch();
      const s = bank.store("bank");
      for (let i = 0; i < writes; i++) s.set(picks[i], values[i]);
      await store.stage(bank);
      await store.commit();
      out.ms.push(performance.now() - t);
      const used = process.cpuUsage(cpu);
      out.cpuMs.push((used.user + used.system) / 1000);
    }
    await store.idle();
    return out;
  } finally {
    await store.close();
  }
}

/** Our read workload held open: one timed pass per call, in microseconds per operation. */
export interface OurReadSession {
  phase(name: ReadPhase): Promise<number>;
  close(): Promise<void>;
}

/**
 * A store of `keys` keys, then `versions` more versions of 40 random updates each (unsynced: they are not timed),
 * compacted; each `phase` call then times one pass: reads of `samples` random keys at the latest version or 1,000
 * versions back (`view(version).store()`, read as the node's queries read it: their gas store calls the store's `getNow`
 * when it has one — every committed view's store has — and `get` otherwise, src/app/gas-kv-store.ts), or proofs (the store op and the multistore op, as a
 * query with prove=true answers) of a tenth as many keys at the latest version.
 */
export async function openOurReads(
  dir: string,
  keys: number,
  versions: number,
  samples: number,
): Promise<OurReadSession> {
  const store = await openMultiStore({
    path: join(dir, "ours-reads"),
    storeNames: ["bank"],
    pruning: KEEP_ALL,
    sync: false,
  });
  try {
    const population = randomKeys(keys);
    await load(store, population);
    for (let v = 0; v < versions; v++) {
      const block = store.branch();
      const bank = block.store("bank");
      for (let i = 0; i < 40; i++) bank.set(population[Math.floor(Math.random() * population.length)], randomValue());
      await store.stage(block);
      await store.commit();
    }
    await store.compact();
    const latest = store.lastCommit().version;
    const now = (await store.view(latest)).store("bank");
    const back = (await store.view(latest - 1000n)).store("bank");
    const sample = Array.from({ length: samples }, () => population[Math.floor(Math.random() * population.length)]);
    const proofSample = sample.slice(0, Math.floor(samples / 10));
    const passes: Record<ReadPhase, () => Promise<number>> = {
      async latest() {
        const t = performance.now();
        for (const k of sample) {
          const value = now.getNow !== undefined ? now.getNow(k) : await now.get(k);
          if (value === undefined) throw new Error("a key is missing at latest");
        }
        return ((performance.now() - t) * 1000) / sample.length;
      },
      async back() {
        const t = performance.now();
        for (const k of sample) {
          const value = back.getNow !== undefined ? back.getNow(k) : await back.get(k);
          if (value === undefined) throw new Error("a key is missing 1,000 back");
        }
        return ((performance.now() - t) * 1000) / sample.length;
      },
      async proofs() {
        const t = performance.now();
        for (const k of proofSample) await store.prove("bank", k, latest);
        return ((performance.now() - t) * 1000) / proofSample.length;
      },
    };
    return { phase: (name) => passes[name](), close: () => store.close() };
  } catch (err) {
    await store.close();
    throw err;
  }
}
